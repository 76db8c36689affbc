/**
 * Pairs of address order that the call graph contradicts. The consistency check trusts a pair
 * that address order placed between two matched pairs whatever its neighbours say (a new version
 * changes who calls what). That trust ends where the call graph has much to say and says
 * otherwise: Lua 5.1's `luaL_checkinteger`, called by twelve matched functions, stood where
 * 5.2's `luaL_optnumber` (one caller) stands, 0.73 similar, and paired with it by order while
 * none of its callers' partners called it.
 */
import { agreement } from "./consistency.ts";
import type { Match, MatchState } from "./match_state.ts";

/** Thresholds of {@link orderContradicted}. */
export interface OrderContradictedOptions {
  /** Rounds whose pairs are looked at (exact round names). */
  rounds: readonly string[];
  /** Least number of matched callers and callees, both sides together, for the graph to speak. */
  minNeighbours: number;
  /** A pair whose {@link agreement} is under this is contradicted. */
  maxAgree: number;
  /** Pairs at least this similar keep their place whatever their neighbours say. */
  trustSimilarity: number;
}

/**
 * The thresholds the matcher uses. On bench/diff.ts the pairs of address order with 5 matched
 * neighbours or more and an agreement under 0.6 were 2 wrong (agreement 0.19 with 21 neighbours,
 * 0.40 with 10) and one right (0.36 with 11: Lua 5.4's `luaV_tointeger`, whose callers 5.4 moved to
 * a new fast path); the other right ones of low agreement have 3 neighbours or fewer.
 */
export const ORDER_CONTRADICTED_DEFAULTS: OrderContradictedOptions = {
  rounds: ["sequence", "sequence:similarity"],
  minNeighbours: 10,
  maxAgree: 0.3,
  trustSimilarity: 0.9,
};

/** Matched callers and callees of `a[i]` and `b[j]`, both sides counted. */
function matchedNeighbours(s: MatchState, i: number, j: number): number {
  let n = 0;
  for (const role of ["callers", "callees"] as const) {
    for (const k of s.graphA[role][i]!) if (s.partnerA[k] !== -1) n++;
    for (const k of s.graphB[role][j]!) if (s.partnerB[k] !== -1) n++;
  }
  return n;
}

/**
 * The pairs of `opts.rounds` under `opts.trustSimilarity` with at least `opts.minNeighbours`
 * matched neighbours whose agreement is under `opts.maxAgree`, measured with every other pair in
 * place. Takes nothing back: the caller withdraws them.
 */
export function orderContradicted(s: MatchState, opts: OrderContradictedOptions): Match[] {
  return s.matches.filter((m) => {
    if (!opts.rounds.includes(m.round) || m.similarity >= opts.trustSimilarity) return false;
    if (matchedNeighbours(s, m.a, m.b) < opts.minNeighbours) return false;
    const g = agreement(s, m.a, m.b);
    return g !== undefined && g < opts.maxAgree;
  });
}
