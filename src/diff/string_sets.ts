/**
 * Matching by referenced strings when the sets are alike but not equal: a new version adds a
 * message or drops one, another compiler inlines a helper that brings its own, and the exact-key
 * round (equal string sets) misses the pair. The set that overlaps most, on both sides and by a
 * margin, is the candidate; since strings follow inlined code, the pair must also be plausible
 * as a whole (similar enough) and in place (its matched callers and callees mostly correspond).
 */
import { agreement } from "./consistency.ts";
import type { MatchState } from "./match_state.ts";
import { MutualBest } from "./mutual.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link stringSetRound}. */
export interface StringSetOptions {
  round: string;
  /** Least Jaccard index of the two string sets. */
  minJaccard: number;
  /** How far the best set must lead the runner-up on both sides. */
  margin: number;
  /** Least similarity of the pair. */
  minSimilarity: number;
  /** Least {@link agreement} of its matched callers and callees (none at all is not enough). */
  minAgree: number;
  /** Strings that more functions than this reference on one side ("%s") are not looked up. */
  maxSharing: number;
}

/**
 * The thresholds the matcher uses. Measured on bench/diff.ts as a last round (nothing spread from
 * its pairs): without the similarity floor the round made wrong pairs of 0.29 to 0.38
 * similarity on every Lua pair (a helper inlined into its one caller, whose strings it brought
 * along); without the agreement floor, 8 wrong pairs more. Where it runs, beside the global
 * similarity round and spread through the call graph like its pairs, it added 2 right pairs on Lua
 * 5.3 → 5.4, 58 on SQLite gcc → clang and 23 on -O2 → -O3, with 2 wrong ones on each SQLite pair.
 */
export const STRING_SET_DEFAULTS: StringSetOptions = {
  round: "string_sets",
  minJaccard: 0.5,
  margin: 0.05,
  minSimilarity: 0.4,
  minAgree: 0.5,
  maxSharing: 64,
};

/**
 * Pairs the unmatched functions whose string sets overlap each other best (the Jaccard index,
 * mutual, clear by a margin) when the pair also passes the similarity and agreement floors.
 * Returns how many pairs it made.
 */
export function stringSetRound(s: MatchState, opts: StringSetOptions): number {
  const byString = new Map<string, number[]>();
  for (let j = 0; j < s.b.length; j++) {
    if (s.partnerB[j] !== -1) continue;
    for (const t of s.b[j]!.strings) {
      const js = byString.get(t);
      if (js) js.push(j);
      else byString.set(t, [j]);
    }
  }
  const sharedA = new Map<string, number>();
  for (let i = 0; i < s.a.length; i++) {
    if (s.partnerA[i] !== -1) continue;
    for (const t of s.a[i]!.strings) sharedA.set(t, (sharedA.get(t) ?? 0) + 1);
  }
  const best = new MutualBest();
  for (let i = 0; i < s.a.length; i++) {
    const fa = s.a[i]!;
    if (s.partnerA[i] !== -1 || fa.strings.length === 0) continue;
    const common = new Map<number, number>();
    for (const t of fa.strings) {
      const js = byString.get(t);
      if (!js || js.length > opts.maxSharing || sharedA.get(t)! > opts.maxSharing) continue;
      for (const j of js) common.set(j, (common.get(j) ?? 0) + 1);
    }
    for (const [j, n] of common) {
      const jaccard = n / (fa.strings.length + s.b[j]!.strings.length - n);
      if (jaccard >= opts.minJaccard) best.offer(i, j, jaccard);
    }
  }
  let made = 0;
  for (const [i, j] of best.chosen(opts.margin)) {
    if (similarity(s.a[i]!, s.b[j]!) < opts.minSimilarity) continue;
    if ((agreement(s, i, j) ?? 0) < opts.minAgree) continue;
    // A function nothing calls (an entry point, a callback) against one that is called: the
    // strings of an inlined helper moved into its caller, not the same function.
    if ((s.graphA.callers[i]!.length === 0) !== (s.graphB.callers[j]!.length === 0)) continue;
    s.pair(i, j, opts.round);
    made++;
  }
  return made;
}
