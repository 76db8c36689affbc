/**
 * Sole callers: when a matched function has one caller on each side, both unmatched, the two
 * callers are the same function (libfuse's `fuse_lib_fallocate`, the only caller of
 * `fuse_fs_fallocate` in both releases). Position matching misses such a pair when the caller's
 * other callees are hubs it does not count (the request helpers every `fuse_lib_*` calls), which
 * leaves the one callee that only this function calls as a single anchor among many look-alikes.
 */
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link soleCallerRound}. */
export interface SoleCallerOptions {
  round: string;
  /** Least similarity of the two callers. */
  minSim: number;
}

/**
 * The thresholds the matcher uses. On the dumped pairs of bench/diff.ts 0.5 made 2 right pairs
 * and no wrong one (libfuse's `fuse_lib_fallocate`, SQLite gcc → clang's `analysisLoader`); 0.4
 * made 6 more right ones and a wrong one (Lua -O2 → -O3's `auxupvalue`, which -O3 inlined into
 * one of its two callers, paired with the other) and cost Lua 5.2 → 5.3 a right pair later on.
 */
export const SOLE_CALLER_DEFAULTS: SoleCallerOptions = { round: "sole_callers", minSim: 0.5 };

/**
 * Pairs the sole callers of each matched pair when both are unmatched and alike enough; a caller
 * two pairs would pair differently is left alone. Returns how many pairs it made.
 */
export function soleCallerRound(s: MatchState, opts: SoleCallerOptions): number {
  const { graphA, graphB, partnerA, partnerB } = s;
  const wantA = new Map<number, number>();
  const wantB = new Map<number, number>();
  const clashA = new Set<number>();
  const clashB = new Set<number>();
  for (const m of s.matches) {
    const ca = graphA.callers[m.a]!;
    const cb = graphB.callers[m.b]!;
    if (ca.length !== 1 || cb.length !== 1) continue;
    const i = ca[0]!;
    const j = cb[0]!;
    if (i === m.a || j === m.b || partnerA[i] !== -1 || partnerB[j] !== -1) continue;
    if ((wantA.get(i) ?? j) !== j || (wantB.get(j) ?? i) !== i) {
      clashA.add(i);
      clashB.add(j);
      continue;
    }
    wantA.set(i, j);
    wantB.set(j, i);
  }
  let made = 0;
  for (const [i, j] of wantA) {
    if (clashA.has(i) || clashB.has(j) || wantB.get(j) !== i) continue;
    if (similarity(s.a[i]!, s.b[j]!) < opts.minSim) continue;
    const before = s.matches.length;
    s.pair(i, j, opts.round);
    if (s.matches.length > before) made++;
  }
  return made;
}
