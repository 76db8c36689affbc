/**
 * Matching by call order: a matched function calls its callees in the same order on both sides
 * where its code did not change, so the unmatched callees between two matched ones (or between
 * either end of the list and the nearest matched one) that are equally many on both sides are
 * most likely the same functions, in order. It tells apart small look-alikes (getters, thin
 * wrappers) that nothing else does: each is known by where its caller calls it.
 */
import { agreement } from "./consistency.ts";
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link callOrderRound}. */
export interface CallOrderOptions {
  round: string;
  /** Least similarity of a pair inside a gap of one callee on each side. */
  minSingle: number;
  /** Least similarity of each pair inside a longer gap. */
  minRun: number;
  /** Longest gap filled in order. */
  maxGap: number;
  /**
   * Least share of the pair's matched callers and callees that correspond (a Dice coefficient):
   * a callee that other matched functions place elsewhere is not the one in the gap.
   */
  minAgree: number;
}

/**
 * The thresholds the matcher uses: the similarity floors of address-order matching (sequence.ts).
 * With an agreement of at least 0.5 the round made 41 pairs over the pairs of bench/diff.ts, one
 * of them wrong (SQLite gcc → clang); without that floor it also made wrong pairs whose
 * agreement was 0.17 to 0.47.
 */
export const CALL_ORDER_DEFAULTS: CallOrderOptions = {
  round: "call_order",
  minSingle: 0.5,
  minRun: 0.6,
  maxGap: 4,
  minAgree: 0.5,
};

/** Callees by index, in order of first call, without repeats or targets that are no function. */
export function orderedCallees(index: Map<number, number>, callees: readonly number[]): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const c of callees) {
    const k = index.get(c);
    if (k === undefined || seen.has(k)) continue;
    seen.add(k);
    out.push(k);
  }
  return out;
}

/**
 * Fills the gaps of equal length between the matched callees of every matched pair, where the
 * matched callees come in the same order on both sides. Returns how many pairs it made.
 */
export function callOrderRound(s: MatchState, opts: CallOrderOptions): number {
  const indexA = new Map(s.a.map((f, i) => [f.start, i]));
  const indexB = new Map(s.b.map((f, j) => [f.start, j]));
  let made = 0;
  for (const m of [...s.matches]) {
    const ca = orderedCallees(indexA, s.a[m.a]!.callees);
    const cb = orderedCallees(indexB, s.b[m.b]!.callees);
    if (ca.length === 0 || cb.length === 0) continue;
    const posB = new Map(cb.map((j, y) => [j, y]));
    let prevX = -1;
    let prevY = -1;
    for (let x = 0; x <= ca.length; x++) {
      // The ends of both lists close the last gap.
      let y = cb.length;
      if (x < ca.length) {
        const p = s.partnerA[ca[x]!]!;
        if (p === -1) continue;
        const at = posB.get(p);
        // A matched callee that b's function does not call, or calls out of order: no anchor.
        if (at === undefined || at <= prevY) continue;
        y = at;
      }
      const gap = x - prevX - 1;
      if (gap > 0 && gap === y - prevY - 1 && gap <= opts.maxGap) {
        made += fillGap(s, ca.slice(prevX + 1, x), cb.slice(prevY + 1, y), opts);
      }
      prevX = x;
      prevY = y;
    }
  }
  return made;
}

/** Pairs `is[k]` with `js[k]` for every k when every pair qualifies, else none of them. */
function fillGap(s: MatchState, is: number[], js: number[], opts: CallOrderOptions): number {
  const min = is.length === 1 ? opts.minSingle : opts.minRun;
  for (let k = 0; k < is.length; k++) {
    const i = is[k]!;
    const j = js[k]!;
    if (s.partnerA[i] !== -1 || s.partnerB[j] !== -1) return 0;
    if (similarity(s.a[i]!, s.b[j]!) < min || (agreement(s, i, j) ?? 0) < opts.minAgree) return 0;
  }
  for (let k = 0; k < is.length; k++) s.pair(is[k]!, js[k]!, opts.round);
  return is.length;
}
