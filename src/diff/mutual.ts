/**
 * The similarity round shared by the global, call-graph and address-gap passes: each function is
 * paired with its most similar candidate when that choice is mutual, clear and similar enough.
 */
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/**
 * Pairs each unmatched `a[i]` (`i` in `is`) with its most similar unmatched `b[j]` (`j` in `js`)
 * when each is the other's best by at least `margin` and their similarity reaches `min`. Only
 * functions of roughly equal size (half to twice the instructions) are compared: similarity is
 * low for the rest anyway, and a sorted window keeps large sets from costing |is|·|js|.
 */
export function bestMutual(
  s: MatchState,
  is: readonly number[],
  js: readonly number[],
  min: number,
  round: string,
  margin = 0.05,
): number {
  const { a, b, partnerA, partnerB } = s;
  const freeA = is.filter((i) => partnerA[i] === -1);
  const freeB = js.filter((j) => partnerB[j] === -1)
    .sort((x, y) => b[x]!.instructions - b[y]!.instructions);
  if (freeA.length === 0 || freeB.length === 0) return 0;
  const firstAtLeast = (n: number) => {
    let lo = 0;
    let hi = freeB.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (b[freeB[mid]!]!.instructions < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const bestOfA = new Map<number, { j: number; s: number; second: number }>();
  const bestOfB = new Map<number, { i: number; s: number; second: number }>();
  for (const i of freeA) {
    const n = a[i]!.instructions;
    for (let k = firstAtLeast(Math.ceil(n / 2)); k < freeB.length; k++) {
      const j = freeB[k]!;
      if (b[j]!.instructions > n * 2) break;
      const sim = similarity(a[i]!, b[j]!);
      if (sim < min) continue;
      const ba = bestOfA.get(i);
      if (!ba || sim > ba.s) bestOfA.set(i, { j, s: sim, second: ba ? ba.s : 0 });
      else if (sim > ba.second) ba.second = sim;
      const bb = bestOfB.get(j);
      if (!bb || sim > bb.s) bestOfB.set(j, { i, s: sim, second: bb ? bb.s : 0 });
      else if (sim > bb.second) bb.second = sim;
    }
  }
  let made = 0;
  for (const [i, ba] of bestOfA) {
    const bb = bestOfB.get(ba.j);
    // A tie, or a runner-up nearly as good on either side, leaves both unmatched.
    if (!bb || bb.i !== i || ba.s - ba.second < margin || bb.s - bb.second < margin) continue;
    s.pair(i, ba.j, round);
    made++;
  }
  return made;
}
