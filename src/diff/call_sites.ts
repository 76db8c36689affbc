/**
 * The call-site check: a pair made on equal code (bytes, mnemonics) is contradicted when a
 * matched caller calls, at the place it calls `a`'s function, another function of `b` of the same
 * shape. Twins whose bodies are equal once call targets are masked (zstd's
 * `HUF_compress1X_usingCTable` and `HUF_compress4X_usingCTable`, one tail call each) are told
 * apart only there: equal bytes say nothing about which is which, the caller's call order does.
 */
import { orderedCallees } from "./call_order.ts";
import type { Match, MatchState } from "./match_state.ts";
import { MIN_CERTAIN_INSTRUCTIONS } from "./small_bytes.ts";

/** Rounds of equal code whose pairs are checked (prefixes of the round names). */
export const CALL_SITE_ROUNDS = [
  "bytes",
  "mnemonics",
  "call_graph:bytes",
  "call_graph:mnemonics",
  "ties:",
];

/**
 * Checks every pair of {@link CALL_SITE_ROUNDS}: each matched caller pair places one function of
 * `b` where `a`'s function is called, by the matched callees around that call in both callers'
 * call order (the gap between them of equal length on both sides). A place that holds another
 * function of `b` with the partner's mnemonics contradicts the pair: it moves to that function
 * when every place agrees on it and it is free (or freed by this check) and claimed once, else
 * it is withdrawn — a tie. Returns the withdrawn pairs; the moved ones are paired as `round`.
 */
export function callSiteCheck(s: MatchState, round: string): Match[] {
  const indexA = new Map(s.a.map((f, i) => [f.start, i]));
  const indexB = new Map(s.b.map((f, j) => [f.start, j]));
  const calleesA = new Map<number, number[]>();
  const calleesB = new Map<number, number[]>();
  const listA = (k: number) =>
    calleesA.get(k) ?? calleesA.set(k, orderedCallees(indexA, s.a[k]!.callees)).get(k)!;
  const listB = (k: number) =>
    calleesB.get(k) ?? calleesB.set(k, orderedCallees(indexB, s.b[k]!.callees)).get(k)!;
  const checked = s.matches.filter((m) => CALL_SITE_ROUNDS.some((r) => m.round.startsWith(r)));
  const shape = (j: number) => s.b[j]!.mnem_hash;

  const contradicted = new Map<Match, number | undefined>();
  for (const m of checked) {
    const places = new Set<number>();
    for (const ca of s.graphA.callers[m.a]!) {
      const cb = s.partnerA[ca]!;
      if (cb === -1) continue;
      // Callees of the pair's shape are under question too: never anchors.
      const anchor = (k: number) => {
        const p = s.partnerA[k]!;
        return p !== -1 && shape(p) !== shape(m.b) ? p : -1;
      };
      const at = placeIn(listA(ca), listB(cb), m.a, anchor);
      if (at !== undefined) places.add(at);
    }
    const others = [...places].filter((j) => j !== m.b);
    // A tiny body's equal bytes are no better evidence than any other function every place
    // agrees on; a place of another shape among others is changed code around the call.
    const weak = s.a[m.a]!.instructions < MIN_CERTAIN_INSTRUCTIONS && places.size === 1;
    if (others.length === 0 || !(weak || others.some((j) => shape(j) === shape(m.b)))) continue;
    contradicted.set(m, places.size === 1 ? others[0] : undefined);
  }
  const gone = [...contradicted.keys()];
  s.withdraw(new Set(gone));
  const claims = new Map<number, number>();
  for (const j of contradicted.values()) {
    if (j !== undefined) claims.set(j, (claims.get(j) ?? 0) + 1);
  }
  for (const [m, j] of contradicted) {
    if (j === undefined || claims.get(j) !== 1 || s.partnerB[j] !== -1) continue;
    s.pair(m.a, j, round);
  }
  return gone;
}

/**
 * The function of `cb` (b's caller) at the place `ca` (a's caller) calls `i`: between the
 * nearest anchors around that call (a callee whose partner `anchor` gives, -1 for none, in the
 * same order on both sides), when that gap is equally long on both sides; undefined otherwise.
 */
export function placeIn(
  ca: readonly number[],
  cb: readonly number[],
  i: number,
  anchor: (k: number) => number,
): number | undefined {
  const x = ca.indexOf(i);
  if (x === -1) return undefined;
  const posB = new Map(cb.map((j, y) => [j, y]));
  let x0 = -1;
  let y0 = -1;
  for (let k = 0; k < x; k++) {
    const y = posB.get(anchor(ca[k]!));
    if (y === undefined || y <= y0) continue;
    x0 = k;
    y0 = y;
  }
  let x1 = ca.length;
  let y1 = cb.length;
  for (let k = x + 1; k < ca.length; k++) {
    const y = posB.get(anchor(ca[k]!));
    if (y === undefined || y <= y0) continue;
    x1 = k;
    y1 = y;
    break;
  }
  return x1 - x0 === y1 - y0 ? cb[y0 + x - x0] : undefined;
}
