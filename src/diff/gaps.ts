/**
 * Address order without similarity: between two consecutive matched pairs that keep their order,
 * a gap holding the same number of unmatched functions on both sides holds them at the same
 * places, one for one, however much their bodies changed (a release that rewrote a function in
 * place, templates whose inlining changed, twins of equal code told apart by where they sit). The
 * place is the evidence; what could make it wrong is a function removed and another added in the
 * same gap, and those show in the call graph. A pair is made when nothing there speaks against it
 * (every matched caller and callee of either function has its partner among the other's), or when
 * the call graph leans its way and the bodies are somewhat alike (a shared matched neighbour, and
 * one side only gained or lost calls).
 */
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link gapRound}. */
export interface GapOptions {
  round: string;
  /** Longest gap filled. */
  maxGap: number;
  /** Least similarity of a pair made on {@link leansOn}'s evidence rather than agreement. */
  minLeaning: number;
}

/**
 * The thresholds the matcher uses. On bench/diff.ts, of the pairs of the equal gaps left at this
 * point, every wrong one (24 over the Lua pairs, in gaps of one or two functions) had a matched
 * neighbour whose partner was not the other's neighbour and, with one exception at similarity
 * 0.23, neither side free of such contradictions; similarity alone told them apart less well
 * (wrong pairs at 0.02–0.46, right ones at 0.04–1). The round made 46 pairs there, all right; a
 * floor of 0.3 for leaning pairs made two wrong ones as well (Lua 5.2 → 5.3, 5.3 → 5.4).
 */
export const GAP_DEFAULTS: GapOptions = {
  round: "gaps",
  maxGap: 32,
  minLeaning: 0.4,
};

/**
 * Whether every matched caller and callee of `a[i]` has its partner among `b[j]`'s callers and
 * callees (the same direction), and every matched one of `b[j]` among `a[i]`'s.
 */
export function neighboursAgree(s: MatchState, i: number, j: number): boolean {
  const within = (
    from: readonly number[],
    partner: Int32Array,
    to: readonly number[],
  ) => from.every((k) => partner[k] === -1 || to.includes(partner[k]!));
  return within(s.graphA.callers[i]!, s.partnerA, s.graphB.callers[j]!) &&
    within(s.graphA.callees[i]!, s.partnerA, s.graphB.callees[j]!) &&
    within(s.graphB.callers[j]!, s.partnerB, s.graphA.callers[i]!) &&
    within(s.graphB.callees[j]!, s.partnerB, s.graphA.callees[i]!);
}

/**
 * Whether `a[i]` and `b[j]` share a matched neighbour and every matched caller and callee of one
 * of them has its partner among the other's: the other gained or lost calls, no more.
 */
export function leansOn(s: MatchState, i: number, j: number): boolean {
  let common = 0;
  let againstA = 0;
  let againstB = 0;
  for (const dir of ["callers", "callees"] as const) {
    const ofA = s.graphA[dir][i]!;
    const ofB = s.graphB[dir][j]!;
    for (const k of ofA) {
      if (s.partnerA[k] === -1) continue;
      if (ofB.includes(s.partnerA[k]!)) common++;
      else againstA++;
    }
    for (const k of ofB) if (s.partnerB[k] !== -1 && !ofA.includes(s.partnerB[k]!)) againstB++;
  }
  return common > 0 && (againstA === 0 || againstB === 0);
}

/**
 * Pairs the functions of equal gaps between consecutive in-order matched pairs, place by place,
 * where their matched neighbours agree ({@link neighboursAgree}). Returns how many pairs it made.
 */
export function gapRound(s: MatchState, opts: GapOptions): number {
  const orderA = [...s.a.keys()].sort((x, y) => s.a[x]!.start - s.a[y]!.start);
  const orderB = [...s.b.keys()].sort((x, y) => s.b[x]!.start - s.b[y]!.start);
  const rankB = new Int32Array(s.b.length);
  orderB.forEach((j, r) => rankB[j] = r);
  // Gaps are read off before any pair is made: a pair made here must not bound another gap.
  const gaps: { fromA: number; fromB: number; length: number }[] = [];
  let prevA = -1;
  let prevB = -1;
  for (let ra = 0; ra < orderA.length; ra++) {
    const j = s.partnerA[orderA[ra]!]!;
    if (j === -1) continue;
    const rb = rankB[j]!;
    const length = ra - prevA - 1;
    // Only a gap between two matched pairs in order says where its functions went.
    if (prevA !== -1 && rb > prevB && rb - prevB - 1 === length && length > 0) {
      if (length <= opts.maxGap) gaps.push({ fromA: prevA + 1, fromB: prevB + 1, length });
    }
    // A pair out of order (moved code) does not end a gap: keep the last in-order pair.
    if (rb > prevB) {
      prevA = ra;
      prevB = rb;
    }
  }
  const pairs: [number, number][] = [];
  for (const { fromA, fromB, length } of gaps) {
    // A pair out of order inside the gap: its places do not correspond one to one.
    const free = (order: number[], from: number, partner: Int32Array) =>
      order.slice(from, from + length).every((k) => partner[k] === -1);
    if (!free(orderA, fromA, s.partnerA) || !free(orderB, fromB, s.partnerB)) continue;
    for (let k = 0; k < length; k++) {
      const i = orderA[fromA + k]!;
      const j = orderB[fromB + k]!;
      if (
        neighboursAgree(s, i, j) ||
        (leansOn(s, i, j) && similarity(s.a[i]!, s.b[j]!) >= opts.minLeaning)
      ) pairs.push([i, j]);
    }
  }
  // Judged on the pairs made before this round only: one made here is no witness for another.
  // A pair the consistency check withdrew stays unmade.
  let made = 0;
  for (const [i, j] of pairs) {
    s.pair(i, j, opts.round);
    if (s.partnerA[i] === j) made++;
  }
  return made;
}
