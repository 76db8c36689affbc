/**
 * Scoring of function matches against symbols, shared by bench/diff.ts (diff_databases) and
 * bench/_rizin.ts (rz-diff): a pair is judged when both starts have a unique symbol and correct
 * when the names agree; truth counts the names in both builds at starts both analyses found.
 */

/** Precision and recall of a list of matched pairs. */
export interface MatchScore {
  truth: number;
  judged: number;
  correct: number;
  precision: number;
  recall: number;
  f1: number;
  /** Indexes in `pairs` of the judged pairs that were wrong. */
  wrong: number[];
}

/**
 * Scores `pairs` (start in a, start in b); `symA` maps a's starts to names already renamed to
 * b's, `symB` maps b's; `foundA`/`foundB` are the starts each analysis found.
 */
export function scoreMatches(
  pairs: readonly (readonly [number, number])[],
  symA: Map<number, string>,
  symB: Map<number, string>,
  foundA: Set<number>,
  foundB: Set<number>,
): MatchScore {
  const namesB = new Map([...symB].map(([at, n]) => [n, at]));
  let truth = 0;
  for (const [at, n] of symA) {
    const bt = namesB.get(n);
    if (bt !== undefined && foundA.has(at) && foundB.has(bt)) truth++;
  }
  let judged = 0;
  let correct = 0;
  const wrong: number[] = [];
  pairs.forEach(([a, b], i) => {
    const na = symA.get(a);
    const nb = symB.get(b);
    if (na === undefined || nb === undefined) return;
    judged++;
    if (na === nb) correct++;
    else wrong.push(i);
  });
  const precision = judged === 0 ? 0 : correct / judged;
  const recall = truth === 0 ? 0 : Math.min(1, correct / truth);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { truth, judged, correct, precision, recall, f1, wrong };
}
