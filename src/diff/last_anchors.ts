/**
 * Call-graph position once more, after everything else, for the functions the last rounds left
 * free: those the consistency check's second pass took pairs from (no round runs after it but the
 * gaps) and those next to what the address-order gaps paired (their anchors came last). Lua 5.2's
 * `lua_pushvalue`, paired wrongly by its shape, freed, paired wrongly again by propagation, freed
 * again, then stood alone with 5.3's `lua_pushvalue` as its clear best by position (27 shared
 * matched neighbours). Nothing checks these pairs afterwards, so the lead must hold without the
 * address-order bonus: address order may lift a pair over the least score, never break a tie.
 */
import { AddressOrder, ANCHOR_DEFAULTS, anchorCandidates, anchorScore } from "./anchors.ts";
import type { MatchState } from "./match_state.ts";
import { MutualBest } from "./mutual.ts";

/** Thresholds of {@link lastAnchorRound}. */
export interface LastAnchorOptions {
  round: string;
  /** Least score ({@link anchorScore}, with the address-order bonus where the pair keeps it). */
  minScore: number;
  /** How far the best candidate must lead the runner-up on both sides, without that bonus. */
  margin: number;
  /** Least number of shared matched neighbours of a candidate. */
  minCommon: number;
}

/**
 * The thresholds the matcher uses: the first position round's score and lead, and two shared
 * neighbours. On bench/diff.ts one shared neighbour paired Lua 5.1's `luaE_newthread` with 5.2's
 * `lua_newthread` (5.2 inlined the one into the other) and Lua 5.2's `math_ldexp` (gone in 5.3)
 * with `os_difftime` (both call the same two helpers); the address-order bonus counted in the
 * lead paired SQLite's `sqlite3DeleteColumnNames` across gcc and clang with `fkTriggerDelete`
 * (0.58 against its partner's 0.52 without the bonus).
 */
export const LAST_ANCHOR_DEFAULTS: LastAnchorOptions = {
  round: "anchors:last",
  minScore: ANCHOR_DEFAULTS.minScore,
  margin: ANCHOR_DEFAULTS.margin,
  minCommon: 2,
};

/**
 * Pairs each unmatched `a[i]` with the unmatched `b[j]` that is its best candidate by call-graph
 * position by `margin` over every other, and it `b[j]`'s, scored without the address-order bonus,
 * when the two share at least `minCommon` matched neighbours and score, with the bonus where
 * `b[j]` keeps the order between the nearest matched functions, at least `minScore`. Returns how
 * many pairs it made.
 */
export function lastAnchorRound(s: MatchState, opts: LastAnchorOptions): number {
  const order = new AddressOrder(s);
  const best = new MutualBest();
  const dice = new Map<number, number>();
  for (let i = 0; i < s.a.length; i++) {
    if (s.partnerA[i] !== -1) continue;
    // Every candidate competes for the lead, however few neighbours it shares.
    for (const [j, c] of anchorCandidates(s, i)) {
      if (c.common >= opts.minCommon) dice.set(i * s.b.length + j, c.dice);
      best.offer(i, j, anchorScore(s, i, j, c.dice, false));
    }
  }
  let made = 0;
  for (const [i, j] of best.chosen(opts.margin)) {
    const d = dice.get(i * s.b.length + j);
    if (d === undefined || anchorScore(s, i, j, d, order.between(i)(j)) < opts.minScore) continue;
    s.pair(i, j, opts.round);
    if (s.partnerA[i] === j) made++;
  }
  return made;
}
