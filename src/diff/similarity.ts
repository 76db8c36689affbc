/** How alike two functions are, from their features alone: a number in [0, 1]. */
import type { FunctionFeatures } from "./features.ts";

/** 1 when the masked bytes are equal; otherwise a weighted blend of what can be compared. */
export function similarity(a: FunctionFeatures, b: FunctionFeatures): number {
  if (identical(a, b)) return 1;
  // Weights sum to 1.05 when strings, imports and constants are absent on both sides; each of
  // those adds its weight only when either side has any. (Plain sums: this runs millions of
  // times on large binaries.)
  let sum = 0.3 * histogramSimilarity(a.histogram, b.histogram) +
    0.1 * ratio(a.instructions, b.instructions) +
    0.05 * ratio(a.size, b.size) +
    0.1 * ratio(a.blocks, b.blocks) +
    0.1 * ratio(a.edges, b.edges) +
    0.05 * ratio(a.callees.length, b.callees.length) +
    (a.loops === b.loops ? 0.05 : 0) +
    (a.mnem_hash === b.mnem_hash ? 0.2 : a.mnem_set_hash === b.mnem_set_hash ? 0.16 : 0) +
    (a.cfg_sig === b.cfg_sig ? 0.1 : 0);
  let weight = 1.05;
  if (a.strings.length + b.strings.length > 0) {
    sum += 0.15 * jaccard(a.strings, b.strings);
    weight += 0.15;
  }
  if (a.imports.length + b.imports.length > 0) {
    sum += 0.1 * jaccard(a.imports, b.imports);
    weight += 0.1;
  }
  if (a.constants.length + b.constants.length > 0) {
    sum += 0.1 * jaccard(a.constants, b.constants);
    weight += 0.1;
  }
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
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const p = x[i] ?? 0;
    const q = y[i] ?? 0;
    diff += Math.abs(p - q);
    total += p + q;
  }
  return total === 0 ? 1 : 1 - diff / total;
}

/** Jaccard index of two sorted lists without repeats (as features keep them): a linear merge. */
function jaccard<T extends string | number>(x: readonly T[], y: readonly T[]): number {
  let both = 0;
  for (let i = 0, j = 0; i < x.length && j < y.length;) {
    if (x[i] === y[j]) {
      both++;
      i++;
      j++;
    } else if (x[i]! < y[j]!) i++;
    else j++;
  }
  const union = x.length + y.length - both;
  return union === 0 ? 1 : both / union;
}
