/**
 * Matching by position in the call graph: an unmatched function whose matched callers and
 * callees are the partners of another unmatched function's matched callers and callees is most
 * likely that function, however differently the compiler laid out its body. The strongest
 * evidence across compilers and optimisation levels, where the bodies share little else.
 */
import type { Match, MatchState } from "./match_state.ts";
import { MutualBest } from "./mutual.ts";
import { OrderDrift, ranks } from "./order_drift.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link anchorRound}. */
export interface AnchorOptions {
  round: string;
  /** Least combined score (anchor overlap and similarity) for a pair. */
  minScore: number;
  /** How far the best candidate must lead the runner-up on both sides. */
  margin: number;
  /** Least number of matched neighbours a pair shares (default 1; 2 between tiny functions). */
  minCommon?: number;
  /** Whether a pair that keeps the address order between matched neighbours scores more. */
  order?: boolean;
  /**
   * Pairs are not made that stray from their matched neighbours' address order by more than
   * `factor` times the order noise of the two binaries, and more than `floor` functions
   * ({@link OrderDrift}).
   */
  drift?: { factor: number; floor: number };
}

/**
 * The thresholds the matcher uses: at 0.72 anchor pairs were as precise as the exact rounds' on
 * every pair of bench/diff.ts (lower scores traded precision for recall).
 */
export const ANCHOR_DEFAULTS: AnchorOptions = { round: "anchors", minScore: 0.72, margin: 0.1 };

/**
 * A second, weaker pass of precise matching, once similarity and string sets have nothing left
 * to add: a lower score for a much clearer lead, and three shared matched neighbours. On the
 * pairs of bench/diff.ts it raised recall on every pair that is not a patch (Lua 5.3 → 5.4
 * 0.936 → 0.947, SQLite gcc → clang 0.551 → 0.608) and F1 with it, at some precision (Lua
 * 5.3 → 5.4 0.984 → 0.980; 49 right pairs and 14 wrong over the Lua pairs). Two neighbours
 * instead of three lowered F1 on Lua 5.1 → 5.2; requiring address order kept precision but gave
 * back most of the recall. A pair is not made that strays more than 40 functions (or 8 times the
 * binaries' order noise) from its neighbours' partners: on the Lua pairs the wrong pairs of the
 * round strayed 84–333 functions (look-alikes from another source file), the right ones at most
 * 26; SQLite's pairs, with much more order noise, were untouched.
 */
export const ANCHOR_WEAK: AnchorOptions = {
  round: "anchors:weak",
  minScore: 0.55,
  margin: 0.25,
  minCommon: 3,
  drift: { factor: 8, floor: 40 },
};

/**
 * The last round of `broad` matching: position in the call graph with less evidence — two
 * shared matched neighbours, no address order (another compiler lays functions out its own
 * way). On bench/diff.ts it raised recall on every pair (SQLite gcc → clang 0.49 → 0.63) and
 * F1 with it, at some precision (0.952 → 0.938 there), hence not the default.
 */
export const ANCHOR_BROAD: AnchorOptions = {
  round: "anchors:broad",
  minScore: 0.5,
  margin: 0.1,
  minCommon: 2,
  order: false,
};

// A hub (an error routine with hundreds of callers) says little about which caller is which, and
// listing all its callers as candidates of everything that calls it would be quadratic.
const MAX_FANOUT = 64;

/** The partners in `b` of the matched callers and callees of `a[i]`. */
function anchorsOfA(s: MatchState, i: number): { callers: Set<number>; callees: Set<number> } {
  const callers = new Set<number>();
  const callees = new Set<number>();
  for (const k of s.graphA.callers[i]!) if (s.partnerA[k] !== -1) callers.add(s.partnerA[k]!);
  for (const k of s.graphA.callees[i]!) if (s.partnerA[k] !== -1) callees.add(s.partnerA[k]!);
  return { callers, callees };
}

/** How many of `b[j]`'s callers and callees are matched. */
function matchedNeighboursB(s: MatchState, j: number): number {
  let n = 0;
  for (const k of s.graphB.callers[j]!) if (s.partnerB[k] !== -1) n++;
  for (const k of s.graphB.callees[j]!) if (s.partnerB[k] !== -1) n++;
  return n;
}

/**
 * Anchor overlap of `a[i]` with each unmatched candidate in `b` that shares a matched neighbour:
 * the number of shared anchors and their Dice coefficient.
 */
export function anchorCandidates(
  s: MatchState,
  i: number,
  only?: ReadonlySet<number>,
): Map<number, { common: number; dice: number }> {
  const { callers, callees } = anchorsOfA(s, i);
  const n = callers.size + callees.size;
  const common = new Map<number, number>();
  const count = (j: number) => {
    if (s.partnerB[j] !== -1 || (only && !only.has(j))) return;
    common.set(j, (common.get(j) ?? 0) + 1);
  };
  // A candidate calls the partners of a's callees and is called by the partners of a's callers.
  for (const p of callees) {
    const js = s.graphB.callers[p]!;
    if (js.length <= MAX_FANOUT || only) { for (const j of js) count(j); }
  }
  for (const p of callers) {
    const js = s.graphB.callees[p]!;
    if (js.length <= MAX_FANOUT || only) { for (const j of js) count(j); }
  }
  const out = new Map<number, { common: number; dice: number }>();
  for (const [j, c] of common) {
    out.set(j, { common: c, dice: (2 * c) / (n + matchedNeighboursB(s, j)) });
  }
  return out;
}

/**
 * How alike the numbers of callers and callees of `a[i]` and `b[j]` are: a function that lost
 * its only caller to inlining (or gained callees by absorbing one) reads as unlike.
 */
export function degreeLikeness(s: MatchState, i: number, j: number): number {
  const r = (x: number, y: number) => (Math.min(x, y) + 1) / (Math.max(x, y) + 1);
  return r(s.graphA.callers[i]!.length, s.graphB.callers[j]!.length) *
    r(s.graphA.callees[i]!.length, s.graphB.callees[j]!.length);
}

/**
 * The score of `a[i]` ↔ `b[j]` by call-graph position: anchors weigh most; similarity and
 * caller/callee counts tell neighbours apart, and a candidate that keeps the address order
 * between matched neighbours (`between`) gets a bonus.
 */
export function anchorScore(
  s: MatchState,
  i: number,
  j: number,
  dice: number,
  between: boolean,
): number {
  return 0.45 * dice + 0.35 * similarity(s.a[i]!, s.b[j]!) + 0.2 * degreeLikeness(s, i, j) +
    (between ? 0.2 : 0);
}

/**
 * One pass of call-graph position matching over the unmatched functions of `a`: each pair is
 * scored by anchor overlap and similarity; a pair is made when each side is the other's best
 * candidate by a clear margin. Returns how many pairs it made.
 */
export function anchorRound(s: MatchState, opts: AnchorOptions): number {
  const order = new AddressOrder(s);
  const best = new MutualBest();
  for (let i = 0; i < s.a.length; i++) {
    if (s.partnerA[i] !== -1) continue;
    const between = order.between(i);
    for (const [j, { common, dice }] of anchorCandidates(s, i)) {
      // One shared anchor between two tiny functions is a coincidence more often than not.
      if (common < 2 && Math.min(s.a[i]!.instructions, s.b[j]!.instructions) < 10) continue;
      if (common < (opts.minCommon ?? 1)) continue;
      const score = anchorScore(s, i, j, dice, opts.order !== false && between(j));
      if (score >= opts.minScore) best.offer(i, j, score);
    }
  }
  if (!opts.drift) return best.pairInto(s, opts.margin, opts.round);
  const { factor, floor } = opts.drift;
  const drift = new OrderDrift(s);
  let made = 0;
  for (const [i, j] of best.chosen(opts.margin)) {
    if (drift.strays(i, j, factor, floor)) continue;
    s.pair(i, j, opts.round);
    made++;
  }
  return made;
}

/**
 * The pairs made by call-graph position (rounds whose name starts with one of `rounds`) that an
 * unmatched candidate of `a[i]`, sharing at least two matched neighbours, now outscores by more
 * than `margin`, with every other pair in place: the anchors that placed the pair were too few
 * when it was made (Lua 5.1's luaB_dofile went to 5.2's luaB_loadfile while luaB_dofile, placed
 * better once its neighbours were matched, stayed free). On bench/diff.ts, with a margin of 0.1,
 * every pair taken back was wrong. With `reverseMargin`, also the pairs that an unmatched
 * candidate of `b[j]` in `a` outscores by more than that (Lua 5.2's lua_replace went to 5.3's
 * lua_copy while 5.2's lua_copy stayed free), both scored without the address-order bonus: with
 * 0.1 on bench/diff.ts, Lua 5.2 → 5.3 gained 2 right pairs and lost a wrong one, SQLite -O2 →
 * -O3 lost a wrong one and gcc → clang gained 2 right ones and lost 2 wrong ones (with 0.15 -O2
 * → -O3 lost a right one; with 0.2 and 0.3 SQLite stayed as it was).
 */
export function outscoredPairs(
  s: MatchState,
  margin: number,
  rounds: readonly string[],
  reverseMargin?: number,
): Set<Match> {
  const out = new Set<Match>();
  // The nearest matched functions around a[i] never include a[i] itself: one snapshot serves
  // every pair.
  const order = new AddressOrder(s);
  for (const m of [...s.matches]) {
    if (!rounds.some((r) => m.round.startsWith(r))) continue;
    // Scored as if the pair were not made, the way the round saw it.
    s.partnerA[m.a] = -1;
    s.partnerB[m.b] = -1;
    const between = order.between(m.a);
    const cands = anchorCandidates(s, m.a);
    const own = cands.get(m.b);
    const mine = own ? anchorScore(s, m.a, m.b, own.dice, between(m.b)) : 0;
    s.partnerA[m.a] = m.b;
    s.partnerB[m.b] = m.a;
    let beaten = false;
    for (const [j, c] of cands) {
      if (j === m.b || c.common < 2) continue;
      if (anchorScore(s, m.a, j, c.dice, between(j)) > mine + margin) {
        beaten = true;
        break;
      }
    }
    if (!beaten && reverseMargin !== undefined) {
      // The other way round: an unmatched function of `a` placed better as b[m.b]'s partner.
      // Without the address-order bonus on either side: the snapshot's order around a[k] holds
      // this very pair, and would place b[m.b] nowhere but next to a[m.a].
      s.partnerA[m.a] = -1;
      s.partnerB[m.b] = -1;
      const plain = own ? anchorScore(s, m.a, m.b, own.dice, false) : 0;
      for (const k of freeAroundB(s, m.b)) {
        if (k === m.a) continue;
        const c = anchorCandidates(s, k).get(m.b);
        if (!c || c.common < 2) continue;
        if (anchorScore(s, k, m.b, c.dice, false) > plain + reverseMargin) {
          beaten = true;
          break;
        }
      }
      s.partnerA[m.a] = m.b;
      s.partnerB[m.b] = m.a;
    }
    if (beaten) out.add(m);
  }
  return out;
}

/**
 * The unmatched functions of `a` next to the partners of `b[j]`'s matched callers and callees:
 * where `b[j]`'s candidates by call-graph position are.
 */
export function freeAroundB(s: MatchState, j: number): Set<number> {
  const around = new Set<number>();
  for (const role of ["callers", "callees"] as const) {
    for (const q of s.graphB[role][j]!) {
      const p = s.partnerB[q]!;
      if (p === -1) continue;
      for (const k of s.graphA.callers[p]!) if (s.partnerA[k] === -1) around.add(k);
      for (const k of s.graphA.callees[p]!) if (s.partnerA[k] === -1) around.add(k);
    }
  }
  return around;
}

/**
 * Breaks a tie between functions that share a key on both sides (identical duplicates): `is[k]`
 * is paired with the one `js` whose matched callers and callees correspond best to its own, when
 * each is the other's strictly best. Returns how many pairs it made.
 */
export function breakTie(s: MatchState, is: number[], js: number[], round: string): number {
  const within = new Set(js);
  const best = new MutualBest();
  for (const i of is) {
    for (const [j, { dice }] of anchorCandidates(s, i, within)) best.offer(i, j, dice);
  }
  // Any lead will do, but it must be a lead on both sides: an equal runner-up is a tie.
  return best.pairInto(s, Number.EPSILON, round);
}

/**
 * Where each function sits in address order, to tell whether a pair keeps the order. A snapshot:
 * built in linear time when a round starts, it does not see pairs made after that.
 */
export class AddressOrder {
  readonly #rankA: Int32Array;
  readonly #rankB: Int32Array;
  /** By rank in a: the rank in b of the partner of the nearest matched function before / after. */
  readonly #lo: Int32Array;
  readonly #hi: Int32Array;

  constructor(s: MatchState) {
    const orderA = [...s.a.keys()].sort((x, y) => s.a[x]!.start - s.a[y]!.start);
    this.#rankA = ranks(orderA);
    this.#rankB = ranks([...s.b.keys()].sort((x, y) => s.b[x]!.start - s.b[y]!.start));
    const n = orderA.length;
    this.#lo = new Int32Array(n);
    this.#hi = new Int32Array(n);
    let last = -1;
    for (let r = 0; r < n; r++) {
      this.#lo[r] = last;
      const p = s.partnerA[orderA[r]!]!;
      if (p !== -1) last = this.#rankB[p]!;
    }
    last = s.b.length;
    for (let r = n - 1; r >= 0; r--) {
      this.#hi[r] = last;
      const p = s.partnerA[orderA[r]!]!;
      if (p !== -1) last = this.#rankB[p]!;
    }
  }

  /**
   * A test of whether `b[j]` lies between the partners of the nearest matched functions before
   * and after `a[i]` (either end open when there is none).
   */
  between(i: number): (j: number) => boolean {
    const lo = this.#lo[this.#rankA[i]!]!;
    const hi = this.#hi[this.#rankA[i]!]!;
    return (j) => this.#rankB[j]! > lo && this.#rankB[j]! < hi;
  }
}

/**
 * Pairs `a[i]` and `b[j]` when each is the other's only unmatched candidate by call-graph
 * position (the only one sharing a matched caller or callee, even one) and their score reaches
 * `minScore`: nothing else is placed there on either side, however small or rewritten the two
 * are (a 2-instruction `lua_version` against 6, the signal handler `laction` recompiled). On
 * bench/diff.ts, with 0.65 after the weaker position pass: 5 right pairs and no wrong one over the
 * Lua pairs, 5 right and 1 wrong on SQLite. Returns how many pairs it made.
 */
export function soleCandidateRound(s: MatchState, minScore: number, round: string): number {
  const order = new AddressOrder(s);
  const only = new Map<number, { j: number; score: number }>();
  const seenB = new Map<number, number>();
  for (let i = 0; i < s.a.length; i++) {
    if (s.partnerA[i] !== -1) continue;
    const cands = anchorCandidates(s, i);
    for (const j of cands.keys()) seenB.set(j, (seenB.get(j) ?? 0) + 1);
    if (cands.size !== 1) continue;
    for (const [j, { dice }] of cands) {
      only.set(i, { j, score: anchorScore(s, i, j, dice, order.between(i)(j)) });
    }
  }
  let made = 0;
  for (const [i, { j, score }] of only) {
    if (score < minScore || seenB.get(j) !== 1) continue;
    s.pair(i, j, round);
    made++;
  }
  return made;
}
