/**
 * Clear leads among the leftovers: once every other round has run, an unmatched function whose
 * most similar unmatched counterpart picks it back, ahead of both sides' runners-up by a clear
 * lead, is its partner — when nothing else speaks against it: no matched caller or callee of
 * either has its partner outside the other's ({@link neighboursAgree}), and the pair keeps to its
 * matched neighbours' address order ({@link OrderDrift}). The global similarity round asks for
 * more similarity (0.85) because it runs first, over every function, where a look-alike is
 * usually still free; at the end most look-alikes have their partners.
 */
import { neighboursAgree } from "./gaps.ts";
import type { MatchState } from "./match_state.ts";
import { bestMutual } from "./mutual.ts";
import { OrderDrift } from "./order_drift.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link mutualLeadRound}. */
export interface MutualLeadOptions {
  round: string;
  /** Least similarity of a pair. */
  minSim: number;
  /** How far a pair must lead both sides' runners-up. */
  lead: number;
  /** Least instructions on both sides: small bodies are too alike to lead by chance. */
  minInstructions: number;
  /** How far a pair may stray from its neighbours' address order ({@link OrderDrift.strays}). */
  drift: { factor: number; floor: number };
}

/**
 * The thresholds the matcher uses. Run last, on the 24 dumped pairs of bench/diff.ts, it made 19
 * right pairs and no wrong one (10 on SQLite gcc → clang, 3 on -O2 → -O3, 2 each on SQLCipher →
 * 3.40.1 and ngtcp2, 1 each on libfuse and zstd). The lead is the sharp threshold: 0.08 made 30
 * right pairs, 0.07 32 and a wrong one, 0.05 41 and 6 wrong ones (SQLCipher's look-alike
 * collation and result functions); 0.12 made 15, 0.15 7. The least similarity (0.45–0.55) and
 * size (6–10) changed nothing. Run inside the last fixpoint instead, its pairs anchored a wrong
 * `anchors` pair on SQLite -O2 → -O3 (`saveAllCursors`).
 */
export const MUTUAL_LEAD_DEFAULTS: MutualLeadOptions = {
  round: "similarity:lead",
  minSim: 0.5,
  lead: 0.1,
  minInstructions: 10,
  drift: { factor: 8, floor: 40 },
};

/** Pairs the unmatched functions that lead each other's candidates. Returns how many it made. */
export function mutualLeadRound(s: MatchState, opts: MutualLeadOptions): number {
  const is = [...s.a.keys()].filter((i) =>
    s.partnerA[i] === -1 && s.a[i]!.instructions >= opts.minInstructions
  );
  const js = [...s.b.keys()].filter((j) =>
    s.partnerB[j] === -1 && s.b[j]!.instructions >= opts.minInstructions
  );
  if (is.length === 0 || js.length === 0) return 0;
  const drift = new OrderDrift(s);
  const { factor, floor } = opts.drift;
  // Runners-up down to minSim - lead count: one closer than the lead is a rival.
  return bestMutual(
    s,
    is,
    js,
    opts.minSim - opts.lead,
    opts.round,
    opts.lead,
    (i, j) =>
      similarity(s.a[i]!, s.b[j]!) < opts.minSim || !neighboursAgree(s, i, j) ||
      drift.strays(i, j, factor, floor),
  );
}
