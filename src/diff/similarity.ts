/** How alike two functions are, from their features alone: a number in [0, 1]. */
import type { FunctionFeatures } from "./features.ts";

/** 1 when the masked bytes are equal; otherwise a weighted blend of what can be compared. */
export function similarity(a: FunctionFeatures, b: FunctionFeatures): number {
  if (identical(a, b)) return 1;
  let sum = 0;
  let weight = 0;
  const add = (w: number, v: number) => {
    sum += w * v;
    weight += w;
  };
  add(0.3, histogramSimilarity(a.histogram, b.histogram));
  add(0.1, ratio(a.instructions, b.instructions));
  add(0.05, ratio(a.size, b.size));
  add(0.1, ratio(a.blocks, b.blocks));
  add(0.1, ratio(a.edges, b.edges));
  add(0.05, ratio(a.callees.length, b.callees.length));
  add(0.05, a.loops === b.loops ? 1 : 0);
  if (a.mnem_hash === b.mnem_hash) add(0.2, 1);
  else if (a.mnem_set_hash === b.mnem_set_hash) add(0.2, 0.8);
  else add(0.2, 0);
  if (a.cfg_sig === b.cfg_sig) add(0.1, 1);
  else add(0.1, 0);
  if (a.strings.length + b.strings.length > 0) add(0.15, jaccard(a.strings, b.strings));
  if (a.imports.length + b.imports.length > 0) add(0.1, jaccard(a.imports, b.imports));
  if (a.constants.length + b.constants.length > 0) add(0.1, jaccard(a.constants, b.constants));
  // Never 1 for functions that differ: 1 means "identical" in every report.
  return Math.min(0.999, Math.round((sum / weight) * 1000) / 1000);
}

/** Equal masked bytes and length: the same code, wherever it sits. */
export function identical(a: FunctionFeatures, b: FunctionFeatures): boolean {
  return a.bytes_hash === b.bytes_hash && a.instructions === b.instructions;
}

function ratio(x: number, y: number): number {
  if (x === y) return 1;
  return Math.min(x, y) / Math.max(x, y);
}

function histogramSimilarity(x: number[], y: number[]): number {
  let diff = 0;
  let total = 0;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? 0;
    const q = y[i] ?? 0;
    diff += Math.abs(p - q);
    total += p + q;
  }
  return total === 0 ? 1 : 1 - diff / total;
}

function jaccard<T>(x: T[], y: T[]): number {
  const sx = new Set(x);
  const sy = new Set(y);
  let both = 0;
  for (const v of sx) if (sy.has(v)) both++;
  const union = sx.size + sy.size - both;
  return union === 0 ? 1 : both / union;
}
