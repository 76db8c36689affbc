/**
 * The swap check: two pairs made the wrong way round across each other, (a₁, b₁) and (a₂, b₂)
 * where a matched caller or callee of a₁ has its partner next to b₂ instead of b₁. zstd 1.5.0's
 * `ZSTD_createDStream_advanced` had the mnemonics of 1.5.4's `ZSTD_createDCtx_advanced` (unique
 * on both sides, so taken as certain), and the call graph then paired the other two; the one
 * caller of `…DStream_advanced`, a tail jump, was matched and called the other partner. Equal
 * shapes among look-alike siblings say less than who calls them, when the similarity the swap
 * gives up is small.
 */
import type { Match, MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link swapCheck}. */
export interface SwapOptions {
  round: string;
  /**
   * The most the two pairs' similarities may lose, summed, for the swap to be made. On
   * bench/diff.ts five swaps gained call-graph agreement over every pair; the two that left no
   * neighbour disagreeing were right (zstd's twins, losing 0.19; SQLite -O3's `decimalSumStep`
   * and `decimalSumInverse`, 0.03). Swaps that would have broken right pairs (equal bodies
   * around SQLite's hubs) lost 0.22 or more.
   */
  maxSimilarityLoss: number;
}

/** The defaults: see {@link SwapOptions.maxSimilarityLoss}. */
export const SWAP_DEFAULTS: SwapOptions = { round: "swaps", maxSimilarityLoss: 0.2 };

/** Matched callers and callees of `a[i]` whose partners are (`agree`) or are not next to `b[j]`. */
function agreement(s: MatchState, i: number, j: number): { agree: number; disagree: number } {
  let agree = 0;
  let disagree = 0;
  for (const role of ["callers", "callees"] as const) {
    const near = new Set(s.graphB[role][j]!);
    for (const k of s.graphA[role][i]!) {
      const p = s.partnerA[k]!;
      if (p === -1) continue;
      if (near.has(p)) agree++;
      else disagree++;
    }
  }
  return { agree, disagree };
}

/** How the call graph reads the two pairs (i, j) and (i2, j2) as they stand. */
function agreementOf(s: MatchState, i: number, j: number, i2: number, j2: number) {
  const x = agreement(s, i, j);
  const y = agreement(s, i2, j2);
  return { agree: x.agree + y.agree, disagree: x.disagree + y.disagree };
}

/**
 * Swaps the partners of two pairs when a matched neighbour of one side places each where the
 * other is: swapped, more of their matched callers and callees agree and none disagrees, and
 * the similarities lose at most `maxSimilarityLoss`. Each pair takes part in one swap at most, the clearest gain
 * first. Returns the pairs taken apart (never made again); the swapped ones are paired as
 * `round`.
 */
export function swapCheck(s: MatchState, opts: SwapOptions): Match[] {
  const byA = new Map(s.matches.map((m) => [m.a, m]));
  const found: { m: Match; n: Match; gain: number }[] = [];
  const seen = new Set<string>();
  for (const m of s.matches) {
    for (const role of ["callers", "callees"] as const) {
      const back = role === "callers" ? "callees" : "callers";
      for (const c of s.graphA[role][m.a]!) {
        const cp = s.partnerA[c]!;
        if (cp === -1 || s.graphB[back][cp]!.includes(m.b)) continue;
        for (const j2 of s.graphB[back][cp]!) {
          const n = byA.get(s.partnerB[j2]!);
          // The other pair must not be confirmed by the same neighbour already.
          if (!n || n === m || s.graphA[back][c]!.includes(n.a)) continue;
          const key = m.a < n.a ? `${m.a}:${n.a}` : `${n.a}:${m.a}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const before = agreementOf(s, m.a, m.b, n.a, n.b);
          s.partnerA[m.a] = n.b;
          s.partnerA[n.a] = m.b;
          s.partnerB[m.b] = n.a;
          s.partnerB[n.b] = m.a;
          const after = agreementOf(s, m.a, n.b, n.a, m.b);
          s.partnerA[m.a] = m.b;
          s.partnerA[n.a] = n.b;
          s.partnerB[m.b] = m.a;
          s.partnerB[n.b] = n.a;
          if (after.agree <= before.agree || after.disagree > 0) continue;
          const loss = m.similarity + n.similarity -
            similarity(s.a[m.a]!, s.b[n.b]!) - similarity(s.a[n.a]!, s.b[m.b]!);
          if (loss > opts.maxSimilarityLoss) continue;
          found.push({ m, n, gain: after.agree - before.agree });
        }
      }
    }
  }
  found.sort((x, y) => y.gain - x.gain);
  const used = new Set<Match>();
  const gone: Match[] = [];
  const swaps: [number, number][] = [];
  for (const { m, n } of found) {
    if (used.has(m) || used.has(n)) continue;
    used.add(m);
    used.add(n);
    gone.push(m, n);
    swaps.push([m.a, n.b], [n.a, m.b]);
  }
  s.withdraw(new Set(gone));
  for (const [i, j] of swaps) s.pair(i, j, opts.round);
  return gone;
}
