/**
 * Wrappers: a new version often keeps a function's name on a wrapper and moves the body to a new
 * helper the wrapper calls (Lua 5.4's `luaL_prepbuffsize` is `return prepbuffsize(B, sz, -1)`,
 * its `luaO_arith` calls `luaO_rawarith`; 5.3's `singlestep` held `atomic` inlined, 5.4's calls
 * it). Call-graph position then pairs the old function with the helper, whose body is alike.
 * When the helper has an unmatched caller that stands where the old function stands too, and
 * calls nothing matched that the old function did not call, that caller is the function that
 * kept the name and the role: the pair moves to it.
 */
import { anchorCandidates, degreeLikeness, freeAroundB } from "./anchors.ts";
import type { Match, MatchState } from "./match_state.ts";

/** Thresholds of {@link wrapperRound}. */
export interface WrapperOptions {
  round: string;
  /** Rounds whose pairs may move (prefixes of `Match.round`). */
  rounds: readonly string[];
  /** Least shared matched neighbours of the wrapper and the old function. */
  minCommon: number;
  /** Least anchor Dice coefficient of the wrapper and the old function. */
  minDice: number;
  /**
   * Greatest share of the wrapper's matched callees (the helper aside) that are not partners of
   * the old function's callees.
   */
  maxStrangers: number;
}

/**
 * The thresholds the matcher uses. On the Lua pairs of bench/diff.ts the round moved 4 pairs,
 * all to the right function (Lua 5.3 → 5.4), and none on SQLite. Strangers allowed without the
 * test of caller and callee counts moved gcc -O3's luaT_trybinTM to luaT_trybiniTM; any share
 * of strangers (not at most half) moved 2 wrongly on Lua 5.1 → 5.2; looking for wrappers on the
 * old side as well (an optimiser inlining a helper into its wrapper) moved 6 more, all wrongly.
 */
export const WRAPPER_DEFAULTS: WrapperOptions = {
  round: "wrappers",
  rounds: ["anchors"],
  minCommon: 2,
  minDice: 0.4,
  maxStrangers: 0.5,
};

/**
 * The unmatched function of `a` whose matched callers and callees best correspond to those of
 * `b[l]` (anchor Dice coefficient), when no other is as good.
 */
export function bestInA(s: MatchState, l: number): number | undefined {
  let best: number | undefined;
  let top = -1;
  for (const k of freeAroundB(s, l)) {
    const d = anchorCandidates(s, k).get(l)?.dice ?? -1;
    if (d > top) {
      best = k;
      top = d;
    } else if (d === top) best = undefined;
  }
  return best;
}

/**
 * The wrapper of `b[j]` for `a[i]` (both taken as unmatched): the one unmatched caller of `b[j]`
 * that is smaller than it, shares at least `minCommon` matched neighbours with `a[i]` at a Dice
 * coefficient of `minDice`, has `a[i]` as its own best candidate, and calls little matched but
 * `b[j]` and partners of `a[i]`'s callees. Undefined when none or more than one qualifies.
 */
function wrapperOf(s: MatchState, i: number, j: number, opts: WrapperOptions): number | undefined {
  const cands = anchorCandidates(s, i);
  const mine = new Set<number>();
  for (const c of s.graphA.callees[i]!) if (s.partnerA[c] !== -1) mine.add(s.partnerA[c]!);
  let found: number | undefined;
  for (const l of s.graphB.callers[j]!) {
    if (l === j || s.partnerB[l] !== -1 || s.b[l]!.instructions >= s.b[j]!.instructions) continue;
    const c = cands.get(l);
    if (!c || c.common < opts.minCommon || c.dice < opts.minDice) continue;
    const calls = s.graphB.callees[l]!.filter((x) => x !== j && s.partnerB[x] !== -1);
    // A call the old function never made is allowed when the caller's counts of callers and
    // callees are more like the old function's than the helper's are (5.4's luaB_costatus checks
    // its argument with luaL_typeerror where 5.3's called luaL_argerror).
    const strangers = calls.filter((x) => !mine.has(x)).length;
    if (
      strangers > 0 &&
      (strangers > opts.maxStrangers * calls.length ||
        degreeLikeness(s, i, l) <= degreeLikeness(s, i, j))
    ) continue;
    if (bestInA(s, l) !== i) continue;
    if (found !== undefined) return undefined;
    found = l;
  }
  return found;
}

/**
 * Moves each pair of `opts.rounds` whose `b` side has a wrapper (see the module comment) to the
 * wrapper; the pair taken back is never made again. Returns how many pairs moved.
 */
export function wrapperRound(s: MatchState, opts: WrapperOptions): number {
  const moves: { m: Match; j: number }[] = [];
  for (const m of s.matches) {
    if (!opts.rounds.some((r) => m.round.startsWith(r))) continue;
    // Looked at as if the pair were not made, the way the round that made it saw it.
    s.partnerA[m.a] = -1;
    s.partnerB[m.b] = -1;
    const l = wrapperOf(s, m.a, m.b, opts);
    s.partnerA[m.a] = m.b;
    s.partnerB[m.b] = m.a;
    if (l !== undefined) moves.push({ m, j: l });
  }
  if (moves.length === 0) return 0;
  s.withdraw(new Set(moves.map((x) => x.m)));
  let made = 0;
  for (const { m, j } of moves) {
    if (s.partnerB[j] !== -1) continue;
    s.pair(m.a, j, opts.round);
    made++;
  }
  return made;
}
