/**
 * The edges of unequal gaps: between two consecutive matched pairs in address order, a gap that
 * holds more functions on one side than on the other (a release added or dropped some) still
 * starts and ends with the functions that followed and preceded the same two neighbours, unless
 * the change sits right there. The first functions of the two sides' gap pair when they are each
 * other's most similar function of the gap by a margin, no other function of the gap shares a
 * matched neighbour with either without contradiction, and the call graph does not speak against
 * them; the same for the last functions. An insertion at the edge shows as a rival more alike
 * than the edge's own partner, or backed by the call graph as well (zstd 1.5.4's
 * `…SplitLitBuffer_bmi2`, added before the `…Long_bmi2` it resembles, calls the same helpers).
 *
 * The round never walks inwards: a pair it made bounds no gap for it (run to a fixpoint with the
 * gaps round, walking inwards paired SQLCipher's `cacheEntryClear`, gone in 3.40, with 3.40's new
 * `setDoNotMergeFlagOnCopy` at the next place).
 */
import { codeKey, freeCodes, leansOn, neighboursAgree, orderedPairs } from "./gaps.ts";
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link gapEdgeRound}. */
export interface GapEdgeOptions {
  round: string;
  /** Longest gap (on either side) whose edges are paired. */
  maxGap: number;
  /** Least similarity of an edge pair whose matched neighbours all agree. */
  minSim: number;
  /** Least similarity of an edge pair that only leans on its neighbours ({@link leansOn}). */
  minLeaning: number;
  /** How much more similar the edge pair must be than any rival within the gap. */
  margin: number;
}

/**
 * The thresholds the matcher uses. On the 24 dumped pairs of bench/diff.ts they made 7 right
 * pairs, and through them one more, and no wrong one (hiredis's `createNilObject`, libfuse's
 * `iconv_opt_proc`, Lua 5.1 → 5.2's `luaD_reallocstack`, zstd's `ZSTD_litLengthPrice`, two of
 * SQLCipher → 3.40.1's and ngtcp2's `ngtcp2_conn_set_local_transport_params_versioned`), at
 * similarity 0.48–1; walking inwards from its own pairs made 2 right pairs and 2 wrong ones more.
 */
export const GAP_EDGE_DEFAULTS: GapEdgeOptions = {
  round: "gaps:edges",
  maxGap: 32,
  minSim: 0.3,
  minLeaning: 0.5,
  margin: 0.05,
};

/** Whether `a[i]` and `b[j]` share a matched neighbour and none of theirs speaks against them. */
function backed(s: MatchState, i: number, j: number): boolean {
  if (!neighboursAgree(s, i, j)) return false;
  for (const dir of ["callers", "callees"] as const) {
    for (const k of s.graphA[dir][i]!) {
      if (s.partnerA[k] !== -1 && s.graphB[dir][j]!.includes(s.partnerA[k]!)) return true;
    }
  }
  return false;
}

/**
 * Pairs the first and the last functions of the unequal gaps between consecutive in-order matched
 * pairs, where they hold as edges. Returns how many pairs it made.
 */
export function gapEdgeRound(s: MatchState, opts: GapEdgeOptions): number {
  const { orderA, orderB, kept } = orderedPairs(s);
  // Twins anywhere leave an edge a guess between copies.
  const { codesA, codesB } = freeCodes(s);
  // A pair of this round bounds no gap: the edge behind it is no edge of the release's layout.
  const ours = new Set(s.matches.filter((m) => m.round === opts.round).map((m) => m.a));
  const pairs: [number, number][] = [];
  for (let k = 1; k < kept.length; k++) {
    const [pa, pb] = kept[k - 1]!;
    const [ra, rb] = kept[k]!;
    const atA = orderA[pa]!;
    const toA = orderA[ra]!;
    const is = orderA.slice(pa + 1, ra);
    const js = orderB.slice(pb + 1, rb);
    if (is.length === 0 || js.length === 0 || is.length === js.length) continue;
    if (Math.max(is.length, js.length) > opts.maxGap) continue;
    // A pair out of order inside the gap: its places do not correspond.
    if (is.some((i) => s.partnerA[i] !== -1) || js.some((j) => s.partnerB[j] !== -1)) continue;
    const sim = is.map((i) => js.map((j) => similarity(s.a[i]!, s.b[j]!)));
    const edge = (x: number, y: number) => {
      const i = is[x]!;
      const j = js[y]!;
      if (codesA.get(codeKey(s.a[i]!))! > 1 || codesB.get(codeKey(s.b[j]!))! > 1) return false;
      if ((s.graphA.callers[i]!.length > 0) !== (s.graphB.callers[j]!.length > 0)) return false;
      const own = sim[x]![y]!;
      const agree = neighboursAgree(s, i, j);
      if (own < (agree ? opts.minSim : opts.minLeaning)) return false;
      if (!agree && !leansOn(s, i, j)) return false;
      for (let yy = lo.b; yy <= hi.b; yy++) {
        if (yy === y) continue;
        if (sim[x]![yy]! > own - opts.margin || backed(s, i, js[yy]!)) return false;
      }
      for (let xx = lo.a; xx <= hi.a; xx++) {
        if (xx === x) continue;
        if (sim[xx]![y]! > own - opts.margin || backed(s, is[xx]!, j)) return false;
      }
      return true;
    };
    const lo = { a: 0, b: 0 };
    const hi = { a: is.length - 1, b: js.length - 1 };
    if (!ours.has(atA) && edge(lo.a, lo.b)) {
      pairs.push([is[lo.a]!, js[lo.b]!]);
      lo.a++;
      lo.b++;
    }
    if (!ours.has(toA) && lo.a <= hi.a && lo.b <= hi.b && edge(hi.a, hi.b)) {
      pairs.push([is[hi.a]!, js[hi.b]!]);
    }
  }
  let made = 0;
  for (const [i, j] of pairs) {
    s.pair(i, j, opts.round);
    if (s.partnerA[i] === j) made++;
  }
  return made;
}
