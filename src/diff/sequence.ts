/**
 * Matching by address order: compilers and linkers keep the functions of a source file in the
 * order they were written, so a gap of unmatched functions between two matched pairs that hold
 * the same number of functions on both sides usually holds the same functions, in order.
 */
import type { FunctionFeatures } from "./features.ts";
import type { MatchState } from "./match_state.ts";
import { bestMutual } from "./mutual.ts";
import { similarity } from "./similarity.ts";
import { MIN_CERTAIN_INSTRUCTIONS } from "./small_bytes.ts";

/** Thresholds of {@link sequenceRound}. */
export interface SequenceOptions {
  round: string;
  /** Least similarity of a pair inside a gap of one function on each side. */
  minSingle: number;
  /** Least similarity of each pair inside a longer gap. */
  minRun: number;
  /** Longest gap filled in order. */
  maxGap: number;
  /** Least similarity of a pair found by similarity inside a gap (of any lengths). */
  minLocal: number;
  /** Longest gap searched by similarity. */
  maxLocalGap: number;
}

/** The thresholds the matcher uses. */
export const SEQUENCE_DEFAULTS: SequenceOptions = {
  round: "sequence",
  minSingle: 0.5,
  minRun: 0.6,
  maxGap: 8,
  minLocal: 0.6,
  maxLocalGap: 24,
};

/**
 * Fills gaps of equal length between consecutive matched pairs that are in the same order on
 * both sides. Returns how many pairs it made.
 */
export function sequenceRound(s: MatchState, opts: SequenceOptions): number {
  const orderA = [...s.a.keys()].sort((x, y) => s.a[x]!.start - s.a[y]!.start);
  const orderB = [...s.b.keys()].sort((x, y) => s.b[x]!.start - s.b[y]!.start);
  const rankB = new Int32Array(s.b.length);
  orderB.forEach((j, r) => rankB[j] = r);
  let made = 0;
  let prevA = -1;
  let prevB = -1;
  // Matched positions of a in order, with a sentinel at the end of both lists.
  for (let ra = 0; ra <= orderA.length; ra++) {
    const i = orderA[ra];
    const rb = i === undefined ? orderB.length : s.partnerA[i] === -1 ? -1 : rankB[s.partnerA[i]!]!;
    if (rb === -1) continue;
    const gapA = ra - prevA - 1;
    const gapB = rb - prevB - 1;
    let filled = false;
    // Only a gap between two matched pairs says where its functions went; before the first or
    // after the last, order alone would be a guess.
    const bounded = prevA !== -1 && i !== undefined && rb > prevB;
    const inGapA = orderA.slice(prevA + 1, ra);
    const inGapB = orderB.slice(prevB + 1, rb);
    if (
      bounded && gapA === gapB && gapA > 0 && gapA <= opts.maxGap &&
      (sameCode(s, inGapA, inGapB) || (!hasTwins(s.a, inGapA) && !hasTwins(s.b, inGapB)))
    ) {
      const min = gapA === 1 ? opts.minSingle : opts.minRun;
      const pairs: [number, number][] = [];
      for (let k = 1; k <= gapA; k++) {
        const x = orderA[prevA + k]!;
        const y = orderB[prevB + k]!;
        if (s.partnerA[x] !== -1 || s.partnerB[y] !== -1 || similarity(s.a[x]!, s.b[y]!) < min) {
          pairs.length = 0;
          break;
        }
        pairs.push([x, y]);
      }
      for (const [x, y] of pairs) {
        s.pair(x, y, opts.round);
        made++;
      }
      filled = pairs.length > 0;
    }
    if (
      !filled && bounded && gapA > 0 && gapB > 0 && gapA <= opts.maxLocalGap &&
      gapB <= opts.maxLocalGap
    ) {
      // Unequal gaps (a function inlined, split or added on one side): the same functions are
      // still most likely in there, and similarity need only be clear among a few.
      made += bestMutual(
        s,
        inGapA,
        inGapB,
        opts.minLocal,
        `${opts.round}:similarity`,
        0.05,
        (x, y) => unlikeTiny(s.a[x]!, s.b[y]!),
      );
    }
    // A pair out of order (moved code) does not end a gap: keep the last in-order pair.
    if (rb > prevB) {
      prevA = ra;
      prevB = rb;
    }
  }
  return made;
}

const codeKey = (f: FunctionFeatures) => `${f.bytes_hash}:${f.instructions}`;

/**
 * Whether the gap holds the same code in the same order on both sides: then twins (two copies of
 * one function) are told apart by their places between the same neighbours.
 */
function sameCode(s: MatchState, is: number[], js: number[]): boolean {
  return is.every((i, k) => codeKey(s.a[i]!) === codeKey(s.b[js[k]!]!));
}

/** Whether two of `fs[ks]` have the same code: then which is which is a guess. */
function hasTwins(fs: readonly FunctionFeatures[], ks: number[]): boolean {
  const seen = new Set<string>();
  for (const k of ks) {
    const key = codeKey(fs[k]!);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/**
 * Two tiny bodies of the same length with different mnemonics: different code, however similar
 * their shapes (one block, no edges, a few bytes: most of {@link similarity}'s weight agrees for
 * any two such bodies). An unequal gap searched by similarity paired curl 7.86's two-instruction
 * `curl_version_info` with 7.88's new two-instruction `Curl_conn_may_http3` (0.80; the true
 * partner grew to 34 instructions) and zstd 1.5.0's `HUF_compress` with 1.5.4's
 * `HUF_minTableLog` (three each, 0.64). On bench/diff.ts every right pair of tiny bodies that
 * search made either kept its mnemonics or changed length (Lua 5.2 → 5.3's `f_call`, 4 → 3
 * instructions, 0.74): refusing every tiny pair of different mnemonics lost that one.
 */
function unlikeTiny(x: FunctionFeatures, y: FunctionFeatures): boolean {
  return x.instructions < MIN_CERTAIN_INSTRUCTIONS && x.instructions === y.instructions &&
    x.mnem_hash !== y.mnem_hash;
}
