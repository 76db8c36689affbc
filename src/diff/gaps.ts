/**
 * Address order without similarity: between two consecutive matched pairs that keep their order,
 * a gap holding the same number of unmatched functions on both sides holds them at the same
 * places, one for one, however much their bodies changed (a release that rewrote a function in
 * place, templates whose inlining changed, twins of equal code told apart by where they sit). The
 * place is the evidence; what could make it wrong is a function removed and another added in the
 * same gap, and those show in the call graph. A pair is made when nothing there speaks against it
 * (every matched caller and callee of either function has its partner among the other's), or when
 * the call graph leans its way and the bodies are somewhat alike (a shared matched neighbour, and
 * one side only gained or lost calls; in a gap whose every place is so backed, however little
 * alike) — never for a function called on one side only, nor for code with an unmatched twin
 * outside the gap (the place would pick one of several copies) unless every copy on both sides
 * sits at a place of its own ({@link twinsByPlace}).
 *
 * "In order" is the longest run of matched pairs increasing on both sides ({@link inOrder}): one
 * function moved far ahead must not hide every gap up to its new place.
 */
import type { FunctionFeatures } from "./features.ts";
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link gapRound}. */
export interface GapOptions {
  round: string;
  /** Longest gap filled. */
  maxGap: number;
  /** Least similarity of a pair made on {@link leansOn}'s evidence rather than agreement. */
  minLeaning: number;
}

/**
 * The thresholds the matcher uses. On bench/diff.ts, of the pairs of the equal gaps left at this
 * point, every wrong one (24 over the Lua pairs, in gaps of one or two functions) had a matched
 * neighbour whose partner was not the other's neighbour and, with one exception at similarity
 * 0.23, neither side free of such contradictions; similarity alone told them apart less well
 * (wrong pairs at 0.02–0.46, right ones at 0.04–1). A floor of 0.3 for leaning pairs made two
 * wrong pairs (Lua 5.2 → 5.3, 5.3 → 5.4). With the longest in-order run as the backbone the round
 * made 86 right pairs and 2 wrong ones: SQLCipher's `sqlite3ExprCacheStore` (called, gone in
 * 3.40) at the place of the callback `exprRefToSrcList`, and at -O3 one of seven one-`ret`
 * functions laid out elsewhere; the two exclusions above leave 74 right pairs and no wrong one
 * (ten `ret` twins of SQLite and Lua 5.3's `lua_rawgetp`, which gained callers, left out).
 * Below the floor a leaning place still pairs when its gap holds two places or more and every one
 * of them agrees or leans: zstd 1.5.0 → 1.5.4 gained 12 right pairs (its `ZSTD_compressBlock_*`
 * entry points, rewritten from 1.5.0's fully inlined bodies into calls of new search functions)
 * and nothing changed on the other pairs; leaning places at any similarity, without the whole
 * gap's backing, made 3 wrong pairs on the Lua pairs. Twins each at a place of its own, in
 * different gaps ({@link twinsByPlace}), added 3 right pairs on curl (its IMAP, POP3 and SMTP
 * `…cancel_auth` callbacks) and 5 on zstd, and no wrong one.
 */
export const GAP_DEFAULTS: GapOptions = {
  round: "gaps",
  maxGap: 32,
  minLeaning: 0.4,
};

/** A function's code: its masked bytes and length. Equal codes are twins. */
export const codeKey = (f: FunctionFeatures) => `${f.bytes_hash}:${f.instructions}`;

/**
 * Both sides' functions in address order, and the matched pairs that keep to it
 * ({@link inOrder}): each as its positions in `orderA` and `orderB`, in order.
 */
export function orderedPairs(s: MatchState) {
  const orderA = [...s.a.keys()].sort((x, y) => s.a[x]!.start - s.a[y]!.start);
  const orderB = [...s.b.keys()].sort((x, y) => s.b[x]!.start - s.b[y]!.start);
  const rankB = new Int32Array(s.b.length);
  orderB.forEach((j, r) => rankB[j] = r);
  const kept = inOrder(orderA.map((i) => s.partnerA[i] === -1 ? -1 : rankB[s.partnerA[i]!]!));
  return { orderA, orderB, kept };
}

/** How many unmatched functions of each side have each code ({@link codeKey}). */
export function freeCodes(s: MatchState) {
  const count = (fs: readonly FunctionFeatures[], partner: Int32Array) => {
    const n = new Map<string, number>();
    fs.forEach((f, k) => {
      if (partner[k] === -1) n.set(codeKey(f), (n.get(codeKey(f)) ?? 0) + 1);
    });
    return n;
  };
  return { codesA: count(s.a, s.partnerA), codesB: count(s.b, s.partnerB) };
}

/**
 * Whether every matched caller and callee of `a[i]` has its partner among `b[j]`'s callers and
 * callees (the same direction), and every matched one of `b[j]` among `a[i]`'s.
 */
export function neighboursAgree(s: MatchState, i: number, j: number): boolean {
  const within = (
    from: readonly number[],
    partner: Int32Array,
    to: readonly number[],
  ) => from.every((k) => partner[k] === -1 || to.includes(partner[k]!));
  return within(s.graphA.callers[i]!, s.partnerA, s.graphB.callers[j]!) &&
    within(s.graphA.callees[i]!, s.partnerA, s.graphB.callees[j]!) &&
    within(s.graphB.callers[j]!, s.partnerB, s.graphA.callers[i]!) &&
    within(s.graphB.callees[j]!, s.partnerB, s.graphA.callees[i]!);
}

/**
 * Whether `a[i]` and `b[j]` share a matched neighbour and every matched caller and callee of one
 * of them has its partner among the other's: the other gained or lost calls, no more.
 */
export function leansOn(s: MatchState, i: number, j: number): boolean {
  let common = 0;
  let againstA = 0;
  let againstB = 0;
  for (const dir of ["callers", "callees"] as const) {
    const ofA = s.graphA[dir][i]!;
    const ofB = s.graphB[dir][j]!;
    for (const k of ofA) {
      if (s.partnerA[k] === -1) continue;
      if (ofB.includes(s.partnerA[k]!)) common++;
      else againstA++;
    }
    for (const k of ofB) if (s.partnerB[k] !== -1 && !ofA.includes(s.partnerB[k]!)) againstB++;
  }
  return common > 0 && (againstA === 0 || againstB === 0);
}

/**
 * Pairs the functions of equal gaps between consecutive in-order matched pairs, place by place,
 * where their matched neighbours agree ({@link neighboursAgree}). Returns how many pairs it made.
 */
export function gapRound(s: MatchState, opts: GapOptions): number {
  const { orderA, orderB, kept } = orderedPairs(s);
  // Gaps are read off before any pair is made: a pair made here must not bound another gap.
  const gaps: { fromA: number; fromB: number; length: number }[] = [];
  for (let k = 1; k < kept.length; k++) {
    const [pa, pb] = kept[k - 1]!;
    const [ra, rb] = kept[k]!;
    const length = ra - pa - 1;
    // Only a gap between two matched pairs in order says where its functions went.
    if (length > 0 && length <= opts.maxGap && rb - pb - 1 === length) {
      gaps.push({ fromA: pa + 1, fromB: pb + 1, length });
    }
  }
  // Unmatched functions of each code: twins of a pair outside its gap leave its place a guess.
  const { codesA, codesB } = freeCodes(s);
  // A pair out of order inside a gap: its places do not correspond one to one.
  const usable = gaps.filter(({ fromA, fromB, length }) =>
    orderA.slice(fromA, fromA + length).every((i) => s.partnerA[i] === -1) &&
    orderB.slice(fromB, fromB + length).every((j) => s.partnerB[j] === -1)
  );
  const placed = twinsByPlace(
    s,
    usable.flatMap(({ fromA, fromB, length }) =>
      orderA.slice(fromA, fromA + length).map((i, k) => [i, orderB[fromB + k]!] as [number, number])
    ),
  );
  const pairs: [number, number][] = [];
  for (const { fromA, fromB, length } of usable) {
    const is = orderA.slice(fromA, fromA + length);
    const js = orderB.slice(fromB, fromB + length);
    const twinsOutside = (fs: readonly FunctionFeatures[], ks: number[], k: number, n: number) =>
      ks.filter((x) => codeKey(fs[x]!) === codeKey(fs[k]!)).length < n;
    const verdicts = is.map((i, k) => {
      const j = js[k]!;
      if (
        ((twinsOutside(s.a, is, i, codesA.get(codeKey(s.a[i]!))!) ||
          twinsOutside(s.b, js, j, codesB.get(codeKey(s.b[j]!))!)) && !placed.has(i)) ||
        // Called on one side only: a callback in place of a helper (or the other way round).
        (s.graphA.callers[i]!.length > 0) !== (s.graphB.callers[j]!.length > 0)
      ) return "against";
      if (neighboursAgree(s, i, j)) return "agree";
      if (!leansOn(s, i, j)) return "against";
      return similarity(s.a[i]!, s.b[j]!) >= opts.minLeaning ? "leans" : "leansUnlike";
    });
    // A gap of several places, each of them backed by the call graph, backs its places whose
    // bodies changed most as well: each place is a witness for the others.
    const whole = length >= 2 && verdicts.every((v) => v !== "against");
    verdicts.forEach((v, k) => {
      if (v === "agree" || v === "leans" || (v === "leansUnlike" && whole)) {
        pairs.push([is[k]!, js[k]!]);
      }
    });
  }
  // Judged on the pairs made before this round only: one made here is no witness for another.
  // A pair the consistency check withdrew stays unmade.
  let made = 0;
  for (const [i, j] of pairs) {
    s.pair(i, j, opts.round);
    if (s.partnerA[i] === j) made++;
  }
  return made;
}

/**
 * The places (`a[i]`, `b[j]`) of `places` whose twins are all placed: every unmatched function of
 * `a[i]`'s code and every one of `b[j]`'s code sits at a place. Then each copy has a place of its
 * own and none is left to guess (zstd's look-alike template instances, each in its own gap, whose
 * copies are not copies of the same code in the other release).
 */
export function twinsByPlace(s: MatchState, places: readonly [number, number][]): Set<number> {
  const freeByCode = (fs: readonly FunctionFeatures[], partner: Int32Array) => {
    const out = new Map<string, number[]>();
    fs.forEach((f, k) => {
      if (partner[k] !== -1) return;
      const list = out.get(codeKey(f));
      if (list) list.push(k);
      else out.set(codeKey(f), [k]);
    });
    return out;
  };
  const byCodeA = freeByCode(s.a, s.partnerA);
  const byCodeB = freeByCode(s.b, s.partnerB);
  const placedA = new Set(places.map(([i]) => i));
  const placedB = new Set(places.map(([, j]) => j));
  const out = new Set<number>();
  for (const [i, j] of places) {
    if (
      byCodeA.get(codeKey(s.a[i]!))!.every((x) => placedA.has(x)) &&
      byCodeB.get(codeKey(s.b[j]!))!.every((y) => placedB.has(y))
    ) out.add(i);
  }
  return out;
}

/**
 * The matched pairs that keep their order, as [rank in a, rank in b]: the longest run of pairs
 * increasing on both sides (`rankB[ra]` is the rank in b of the partner of a's `ra`-th function,
 * -1 when it has none). A pair out of order, one function moved far ahead, is left out rather
 * than hiding every pair after it up to its place.
 */
export function inOrder(rankB: readonly number[]): [number, number][] {
  // Patience sorting: tails[l] is the index in rankB of the least tail of a run of length l + 1.
  const tails: number[] = [];
  const before = new Int32Array(rankB.length).fill(-1);
  rankB.forEach((rb, ra) => {
    if (rb === -1) return;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (rankB[tails[mid]!]! < rb) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) before[ra] = tails[lo - 1]!;
    tails[lo] = ra;
  });
  const out: [number, number][] = [];
  for (let ra = tails.at(-1) ?? -1; ra !== -1; ra = before[ra]!) out.push([ra, rankB[ra]!]);
  return out.reverse();
}
