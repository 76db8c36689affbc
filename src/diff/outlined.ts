/**
 * Helpers one side outlined: an old function that held a helper inlined can pair with the new
 * side's helper, whose body is part of its own, while the new function that kept its role (and
 * calls the helper) stays free. SQLite 3.15's `btreeCursor` holds `allocateTempSpace` inlined;
 * 3.40's `btreeCursor` calls it, and call-graph position paired 3.15's `btreeCursor` with 3.40's
 * `allocateTempSpace` (0.29 similar) while 3.40's `btreeCursor` (0.50 similar) stood free with the
 * same caller. The pair moves to the helper's caller when the old function's matched callers call
 * that caller and never the helper, its matched callees are reached from the two, and it is more
 * like the caller than the helper; and the same the other way round, for a helper the old side
 * outlined and the new side inlined (clang inlining Lua's `luaK_numberK` into `luaK_exp2K`). The
 * other side of `wrappers.ts`, which moves a pair to a thin wrapper that kept the old name.
 */
import type { CallGraph, Match, MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link outlinedRound}. */
export interface OutlinedOptions {
  round: string;
  /** Rounds whose pairs never move (prefixes of `Match.round`): equal code is no look-alike. */
  exact: readonly string[];
}

/**
 * The thresholds the matcher uses. On bench/diff.ts the round moved four pairs over all 18
 * pairs, each from a wrong partner to the right one (SQLCipher's `btreeCursor`; on the gcc →
 * clang pairs Lua's `luaK_exp2K` and `singlevaraux`, SQLite's shell `output_quoted_escaped_string`).
 * Without the similarity test it also moved right pairs wrongly (Lua 5.3 → 5.4's `luaV_finishOp`
 * to `unroll`, SQLite clang's `sqlite3_bind_value`, and ten more the other way round), and letting
 * the helper share the old function's callers moved 3 right pairs wrongly.
 */
export const OUTLINED_DEFAULTS: OutlinedOptions = {
  round: "outlined",
  exact: ["name", "bytes", "mnemonics", "ties"],
};

/** One side of a pair seen from the pair: its call graph and partners, and the other side's. */
interface Sides {
  here: CallGraph;
  partnerHere: Int32Array;
  there: CallGraph;
  partnerThere: Int32Array;
}

/**
 * The caller `l` (on the `there` side) that `x` should pair with instead of `y`, or undefined:
 * `l` is `y`'s only unmatched caller, at least one matched caller of `x` has its partner calling
 * `l` and none calling `y`, every matched callee of `x` has its partner called by `l` or `y`, and
 * `similar(l)` is more than `sim`, the pair's similarity.
 */
function outlinedCaller(
  g: Sides,
  x: number,
  y: number,
  sim: number,
  similar: (l: number) => number,
): number | undefined {
  const free = g.there.callers[y]!.filter((l) => l !== y && g.partnerThere[l] === -1);
  if (free.length !== 1) return undefined;
  const l = free[0]!;
  let onL = 0;
  for (const k of g.here.callers[x]!) {
    const p = g.partnerHere[k]!;
    if (p === -1) continue;
    if (g.there.callees[p]!.includes(y)) return undefined;
    if (g.there.callees[p]!.includes(l)) onL++;
  }
  if (onL === 0) return undefined;
  const reached = new Set([...g.there.callees[l]!, ...g.there.callees[y]!]);
  for (const k of g.here.callees[x]!) {
    const p = g.partnerHere[k]!;
    if (p !== -1 && !reached.has(p)) return undefined;
  }
  return similar(l) > sim ? l : undefined;
}

/**
 * Moves each pair one of whose sides is a helper that side outlined (see the module comment) to
 * the helper's caller; the pair taken back is never made again. Returns how many pairs moved.
 */
export function outlinedRound(s: MatchState, opts: OutlinedOptions): number {
  const toB: Sides = {
    here: s.graphA,
    partnerHere: s.partnerA,
    there: s.graphB,
    partnerThere: s.partnerB,
  };
  const toA: Sides = {
    here: s.graphB,
    partnerHere: s.partnerB,
    there: s.graphA,
    partnerThere: s.partnerA,
  };
  const moves: { m: Match; i: number; j: number }[] = [];
  for (const m of s.matches) {
    if (opts.exact.some((r) => m.round.startsWith(r))) continue;
    const l = outlinedCaller(toB, m.a, m.b, m.similarity, (l) => similarity(s.a[m.a]!, s.b[l]!));
    if (l !== undefined) {
      moves.push({ m, i: m.a, j: l });
      continue;
    }
    const k = outlinedCaller(toA, m.b, m.a, m.similarity, (k) => similarity(s.a[k]!, s.b[m.b]!));
    if (k !== undefined) moves.push({ m, i: k, j: m.b });
  }
  if (moves.length === 0) return 0;
  s.withdraw(new Set(moves.map((x) => x.m)));
  let made = 0;
  for (const { i, j } of moves) {
    if (s.partnerA[i] !== -1 || s.partnerB[j] !== -1) continue;
    s.pair(i, j, opts.round);
    made++;
  }
  return made;
}
