/**
 * The last check of a diff: a pair whose matched callers and callees mostly correspond to
 * functions elsewhere around its partner is more likely a look-alike than the same function (a
 * function inlined, split or rewritten in the other binary, whose closest stand-in got the pair).
 * Such pairs are withdrawn once every round has run, so no round builds on the check.
 */
import type { Match, MatchState } from "./match_state.ts";

/** Thresholds of {@link withdrawContradicted}. */
export interface ConsistencyOptions {
  /** Least {@link agreement} a pair keeps. */
  minAgree: number;
  /** Pairs at least this similar keep their place whatever their neighbours say. */
  trustSimilarity: number;
  /**
   * Rounds whose pairs are kept: address order places a function between two matched pairs,
   * evidence of its own that neighbours changed by a new version do not weaken.
   */
  trustRounds: readonly string[];
}

/**
 * The thresholds the matcher uses. On the five pairs of bench/diff.ts that are not patches the
 * check withdrew 23 wrong pairs and 16 right ones (none on the patches); withdrawing pairs of
 * address order as well took back 10 right ones on Lua 5.3 → 5.4 alone.
 */
export const CONSISTENCY_DEFAULTS: ConsistencyOptions = {
  minAgree: 0.45,
  trustSimilarity: 0.9,
  trustRounds: ["sequence", "sequence:similarity", "wrappers"],
};

/**
 * The Dice coefficient of the matched callers and callees of `a[i]` and `b[j]`: twice the number
 * of `a[i]`'s matched callers (callees) whose partners are callers (callees) of `b[j]`, over how
 * many matched callers and callees both have; undefined when neither has any.
 */
export function agreement(s: MatchState, i: number, j: number): number | undefined {
  let agree = 0;
  let n = 0;
  for (const role of ["callers", "callees"] as const) {
    const around = new Set(s.graphB[role][j]);
    for (const k of s.graphA[role][i]!) {
      const p = s.partnerA[k]!;
      if (p === -1) continue;
      n++;
      if (around.has(p)) agree++;
    }
    for (const k of around) if (s.partnerB[k] !== -1) n++;
  }
  return n === 0 ? undefined : (2 * agree) / n;
}

/**
 * Withdraws the pairs less similar than `trustSimilarity` whose agreement is under `minAgree`
 * (as measured with every other pair in place). Returns the withdrawn pairs.
 */
export function withdrawContradicted(s: MatchState, opts: ConsistencyOptions): Match[] {
  const out = s.matches.filter((m) => {
    if (m.similarity >= opts.trustSimilarity || opts.trustRounds.includes(m.round)) return false;
    const g = agreement(s, m.a, m.b);
    return g !== undefined && g < opts.minAgree;
  });
  s.withdraw(new Set(out));
  return out;
}
