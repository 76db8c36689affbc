/**
 * The similarity round shared by the global, call-graph and address-gap passes: each function is
 * paired with its most similar candidate when that choice is mutual, clear and similar enough.
 */
import type { MatchState } from "./match_state.ts";
import { similarityAtLeast } from "./similarity.ts";

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
  refuse?: (i: number, j: number) => boolean,
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
  const best = new MutualBest();
  for (const i of freeA) {
    const n = a[i]!.instructions;
    for (let k = firstAtLeast(Math.ceil(n / 2)); k < freeB.length; k++) {
      const j = freeB[k]!;
      if (b[j]!.instructions > n * 2) break;
      const sim = similarityAtLeast(a[i]!, b[j]!, min);
      if (sim >= min) best.offer(i, j, sim);
    }
  }
  return best.pairInto(s, margin, round, refuse);
}

/**
 * Each side's best-scoring candidate and runner-up score, from scored pairs offered one by one;
 * then the pairs that chose each other by a margin.
 */
export class MutualBest {
  readonly #ofA = new Map<number, { j: number; s: number; second: number }>();
  readonly #ofB = new Map<number, { i: number; s: number; second: number }>();

  /** Records `a[i]` ↔ `b[j]` scoring `score`. */
  offer(i: number, j: number, score: number): void {
    const ba = this.#ofA.get(i);
    if (!ba || score > ba.s) this.#ofA.set(i, { j, s: score, second: ba ? ba.s : 0 });
    else if (score > ba.second) ba.second = score;
    const bb = this.#ofB.get(j);
    if (!bb || score > bb.s) this.#ofB.set(j, { i, s: score, second: bb ? bb.s : 0 });
    else if (score > bb.second) bb.second = score;
  }

  /**
   * Pairs in `s` each `i` and `j` that are each other's best by at least `margin` over the
   * runner-up on both sides (a tie never is). Returns how many pairs it made.
   */
  pairInto(
    s: MatchState,
    margin: number,
    round: string,
    refuse?: (i: number, j: number) => boolean,
  ): number {
    let made = 0;
    for (const [i, j] of this.chosen(margin)) {
      if (s.partnerA[i] !== -1 || s.partnerB[j] !== -1 || refuse?.(i, j)) continue;
      s.pair(i, j, round);
      made++;
    }
    return made;
  }

  /** The pairs that are each other's best by at least `margin` on both sides, unpaired. */
  chosen(margin: number): [number, number][] {
    const out: [number, number][] = [];
    for (const [i, ba] of this.#ofA) {
      const bb = this.#ofB.get(ba.j);
      if (!bb || bb.i !== i || ba.s - ba.second < margin || bb.s - bb.second < margin) continue;
      out.push([i, ba.j]);
    }
    return out;
  }
}
