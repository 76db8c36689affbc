/**
 * The once-only checks of the consistency check's first pass, once more after every round. The
 * outscored check ({@link outscoredPairs}), the stray check ({@link strayPairs}) and the call-site
 * check ({@link callSiteCheck}) look only at the pairs made before that first pass; the pairs of
 * the check's second pass, of the last position round and of the gaps were never looked at. On
 * bench/diff.ts, run again at the very end (and the last rounds after them, on what they freed),
 * they took back 8 wrong pairs over the 21 dumped pairs and no right one, each the shape the
 * first pass takes back: Lua 5.1's `lua_newthread` and `gctm` paired with 5.2's
 * `lua_upvaluejoin` and `f_gc` far from their neighbours' partners (stray; 5.2 inlined the one's
 * partner and moved the other's body), SQLCipher's `sqlite3VdbeError` with 3.40's
 * `sqlite3VdbeMemFinalize` while 3.40's `sqlite3VdbeError` stood free and better placed
 * (outscored; the last rounds then paired the two right), libfuse 2's `fuse_chan_bufsize` with
 * 3's `get_max_read` (call sites), and one pair each on Lua and SQLite across compilers and
 * options and on c-ares (stray). The outscored check's other direction (a free function of `a`
 * placed better as the partner) took back one more wrong pair (Lua 5.1's `luaL_addlstring` →
 * 5.2's `luaL_pushresult`) and one right one (Lua 5.3 → 5.4's `lua_getglobal`): left out.
 */
import { outscoredPairs } from "./anchors.ts";
import { callSiteCheck } from "./call_sites.ts";
import type { Match, MatchState } from "./match_state.ts";
import { strayPairs } from "./order_drift.ts";

/** What {@link lastCheck} looks at: the thresholds of the first pass's checks. */
export interface LastCheckOptions {
  /** The round name of the pairs the call-site check moves. */
  round: string;
  outscored: { rounds: readonly string[]; margin: number };
  /** `blind`: rounds whose pairs are no address-order neighbours ({@link strayPairs}). */
  stray: { rounds: readonly string[]; factor: number; floor: number; blind?: readonly string[] };
}

/**
 * Withdraws (and bans) the pairs the outscored and stray checks find, then runs the call-site
 * check, as the consistency check's first pass does, each measured with every other pair in
 * place. Returns the pairs taken back; the caller runs the last rounds again on what they freed.
 */
export function lastCheck(s: MatchState, opts: LastCheckOptions): Match[] {
  const { outscored: o, stray } = opts;
  const out = new Set([
    ...outscoredPairs(s, o.margin, o.rounds),
    ...strayPairs(s, stray.rounds, stray.factor, stray.floor, stray.blind),
  ]);
  s.withdraw(out);
  return [...out, ...callSiteCheck(s, opts.round)];
}
