/**
 * The stray check once more, after every round: the consistency check looks for pairs of
 * call-graph position that stray from their matched neighbours' address order only in its first
 * pass ({@link strayPairs}), and the pairs of position made after it (its second pass's
 * structural rounds, the last position round beside the gaps) were never looked at. On
 * bench/diff.ts those were 5 wrong pairs over the 21 pairs and no right one, the same shape the
 * first pass takes back: Lua 5.1's `lua_newthread` and `gctm` paired with 5.2's
 * `lua_upvaluejoin` and `f_gc` (5.2 inlined `lua_newthread`'s partner and moved `gctm`'s body),
 * two Lua pairs across gcc and clang, one of SQLite -O2 → -O3 and one of c-ares.
 */
import type { Match, MatchState } from "./match_state.ts";
import { strayPairs } from "./order_drift.ts";

/** What {@link lastStrayCheck} looks at, as {@link strayPairs} takes it. */
export interface LastStrayOptions {
  /** Rounds whose pairs are looked at (prefixes of `Match.round`). */
  rounds: readonly string[];
  factor: number;
  floor: number;
}

/**
 * Withdraws the pairs of `opts.rounds` that stray from their neighbours' address order (see
 * {@link strayPairs}), measured with every other pair in place, and bans them. Nothing runs after
 * it: what it frees stays free (pairing it again by the last rounds found nothing on
 * bench/diff.ts). Returns the withdrawn pairs.
 */
export function lastStrayCheck(s: MatchState, opts: LastStrayOptions): Match[] {
  const out = strayPairs(s, opts.rounds, opts.factor, opts.floor);
  s.withdraw(out);
  return [...out];
}
