/** How alike two functions are, from their features alone: a number in [0, 1]. */
import type { FunctionFeatures } from "./features.ts";

/** 1 when the masked bytes are equal; otherwise a weighted blend of what can be compared. */
export function similarity(a: FunctionFeatures, b: FunctionFeatures): number {
  return similarityAtLeast(a, b, -1);
}

/**
 * {@link similarity} when it reaches `min`, else -1 without computing the costly parts: the
 * cheap terms first, then the histogram and the list overlaps only while a perfect score on them
 * could still reach `min`. The similarity rounds compare millions of pairs of a large binary and
 * reject almost all of them.
 */
export function similarityAtLeast(a: FunctionFeatures, b: FunctionFeatures, min: number): number {
  if (identical(a, b)) return 1;
  // Weights sum to 1.05 when strings, imports and constants are absent on both sides; each of
  // those adds its weight only when either side has any. (Plain sums: this runs millions of
  // times on large binaries.)
  const cheap = 0.1 * ratio(a.instructions, b.instructions) +
    0.05 * ratio(a.size, b.size) +
    0.1 * ratio(a.blocks, b.blocks) +
    0.1 * ratio(a.edges, b.edges) +
    0.05 * ratio(a.callees.length, b.callees.length) +
    (a.loops === b.loops ? 0.05 : 0) +
    (a.mnem_hash === b.mnem_hash ? 0.2 : a.mnem_set_hash === b.mnem_set_hash ? 0.16 : 0) +
    (a.cfg_sig === b.cfg_sig ? 0.1 : 0);
  const strings = a.strings.length + b.strings.length > 0;
  const imports = a.imports.length + b.imports.length > 0;
  const constants = a.constants.length + b.constants.length > 0;
  const weight = 1.05 + (strings ? 0.15 : 0) + (imports ? 0.1 : 0) + (constants ? 0.1 : 0);
  // The histogram's share is at most 1 - |n_a - n_b| / (n_a + n_b): each instruction fills one
  // bucket. (A small slack keeps rounding from cutting a pair that reaches `min` exactly.)
  const lists = weight - 1.05;
  const slack = 0.002;
  const histMax = 1 - Math.abs(a.instructions - b.instructions) /
      Math.max(1, a.instructions + b.instructions);
  if ((cheap + 0.3 * histMax + lists) / weight < min - slack) return -1;
  const h = histogramSimilarity(a.histogram, b.histogram);
  if ((cheap + 0.3 * h + lists) / weight < min - slack) return -1;
  let sum = 0.3 * h + cheap;
  if (strings) sum += 0.15 * jaccard(a.strings, b.strings);
  if (imports) sum += 0.1 * jaccard(a.imports, b.imports);
  if (constants) sum += 0.1 * jaccard(a.constants, b.constants);
  // Never 1 for functions that differ: 1 means "identical" in every report.
  const s = Math.min(0.999, Math.round((sum / weight) * 1000) / 1000);
  return s >= min ? s : -1;
}

/** Equal masked bytes and length: the same code, wherever it sits. */
export function identical(a: FunctionFeatures, b: FunctionFeatures): boolean {
  return a.instructions === b.instructions && a.bytes_hash === b.bytes_hash;
}

function ratio(x: number, y: number): number {
  if (x === y) return 1;
  return Math.min(x, y) / Math.max(x, y);
}

function histogramSimilarity(x: readonly number[], y: readonly number[]): number {
  let diff = 0;
  let total = 0;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const p = i < x.length ? x[i]! : 0;
    const q = i < y.length ? y[i]! : 0;
    diff += p > q ? p - q : q - p;
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
