/**
 * Helpers one side outlined: an old function that held a helper inlined can pair with the new
 * side's helper, whose body is part of its own, while the new function that kept its role (and
 * calls the helper) stays free. SQLite 3.15's `btreeCursor` holds `allocateTempSpace` inlined;
 * 3.40's `btreeCursor` calls it, and call-graph position paired 3.15's `btreeCursor` with 3.40's
 * `allocateTempSpace` (0.29 similar) while 3.40's `btreeCursor` (0.50 similar) stood free with the
 * same caller. The pair moves to the helper's caller when the old function's matched callers call
 * that caller and never the helper, its matched callees are reached from the two, and it is more
 * like the caller than the helper. The other side of `wrappers.ts`, which moves a pair to a thin
 * wrapper that kept the old name.
 */
import type { Match, MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link outlinedRound}. */
export interface OutlinedOptions {
  round: string;
  /** Rounds whose pairs never move (prefixes of `Match.round`): equal code is no look-alike. */
  exact: readonly string[];
}

/**
 * The thresholds the matcher uses. On bench/diff.ts the round moved one pair over all 18 pairs,
 * rightly (SQLCipher's `btreeCursor`); without the similarity test it also moved 2 right pairs
 * wrongly (Lua 5.3 → 5.4's `luaV_finishOp` to `unroll`, SQLite clang's `sqlite3_bind_value`),
 * and letting the helper share the old function's callers moved 3 right pairs wrongly.
 */
export const OUTLINED_DEFAULTS: OutlinedOptions = {
  round: "outlined",
  exact: ["name", "bytes", "mnemonics", "ties"],
};

/**
 * The caller `b[l]` that `a[i]` should pair with instead of `b[j]`, or undefined: `l` is `j`'s
 * only unmatched caller, at least one matched caller of `a[i]` has its partner calling `l` and
 * none calling `j`, every matched callee of `a[i]` has its partner called by `l` or `j`, and
 * `a[i]` is more similar to `l` than to `j`.
 */
function outlinedCaller(s: MatchState, i: number, j: number, sim: number): number | undefined {
  const free = s.graphB.callers[j]!.filter((l) => l !== j && s.partnerB[l] === -1);
  if (free.length !== 1) return undefined;
  const l = free[0]!;
  let onL = 0;
  for (const k of s.graphA.callers[i]!) {
    const p = s.partnerA[k]!;
    if (p === -1) continue;
    if (s.graphB.callees[p]!.includes(j)) return undefined;
    if (s.graphB.callees[p]!.includes(l)) onL++;
  }
  if (onL === 0) return undefined;
  const reached = new Set([...s.graphB.callees[l]!, ...s.graphB.callees[j]!]);
  for (const k of s.graphA.callees[i]!) {
    const p = s.partnerA[k]!;
    if (p !== -1 && !reached.has(p)) return undefined;
  }
  return similarity(s.a[i]!, s.b[l]!) > sim ? l : undefined;
}

/**
 * Moves each pair whose `b` side is a helper the other side outlined (see the module comment) to
 * the helper's caller; the pair taken back is never made again. Returns how many pairs moved.
 */
export function outlinedRound(s: MatchState, opts: OutlinedOptions): number {
  const moves: { m: Match; l: number }[] = [];
  for (const m of s.matches) {
    if (opts.exact.some((r) => m.round.startsWith(r))) continue;
    const l = outlinedCaller(s, m.a, m.b, m.similarity);
    if (l !== undefined) moves.push({ m, l });
  }
  if (moves.length === 0) return 0;
  s.withdraw(new Set(moves.map((x) => x.m)));
  let made = 0;
  for (const { m, l } of moves) {
    if (s.partnerB[l] !== -1) continue;
    s.pair(m.a, l, opts.round);
    made++;
  }
  return made;
}
