/**
 * Small bodies paired by their exact bytes, once the call graph and address order have placed
 * what they could. Equal bytes unique on both sides are not an identity when the body is a few
 * instructions: Debian's Expat 2.5.0 moves every field of its parser by 0x10, so each
 * 4-instruction handler setter of 2.4.6 (`test rdi; je; mov [rdi+off], rsi; ret`) has exactly the
 * bytes of 2.5.0's setter of the handler two fields earlier, and nothing calls them. Such a pair
 * needs a second witness: its matched callers and callees, or its place in address order
 * between matched neighbours.
 */
import { agreement } from "./consistency.ts";
import type { FunctionFeatures } from "./features.ts";
import { groupBy, type MatchState } from "./match_state.ts";
import { ranks } from "./order_drift.ts";

/**
 * Fewest instructions for equal bytes unique on both sides to count as certain before anything
 * else has matched: smaller bodies are shapes more than identities, paired by their bytes later
 * and only with a second witness ({@link smallBytesRound}).
 */
export const MIN_CERTAIN_INSTRUCTIONS = 6;

/** Thresholds of {@link smallBytesRound}. */
export interface SmallBytesOptions {
  round: string;
  /** Least call-graph {@link agreement} that vouches for a pair on its own. */
  minAgree: number;
  /**
   * How many functions a nearest matched neighbour's partner may be off the pair's own distance
   * and still place it: one function added or removed between them.
   */
  slack: number;
}

/**
 * The thresholds the matcher uses. On bench/diff.ts's Debian Expat pair the wrong setter pairs
 * have no matched caller or callee and sit two functions off their neighbours' partners; one
 * off let one more right pair through on zstd 1.5.0 → 1.5.4 and no wrong one.
 */
export const SMALL_BYTES_DEFAULTS: SmallBytesOptions = {
  round: "bytes:small",
  minAgree: 0.5,
  slack: 1,
};

/**
 * Pairs the unmatched functions whose `key` (undefined for bodies that are not small) is unique
 * on each side, counted over every function and not just the free ones, when their matched
 * callers and callees agree by `minAgree` or a nearest matched neighbour in address order places
 * them (within `slack`). Neighbours are those matched before the round. Returns how many it made.
 */
export function smallBytesRound(
  s: MatchState,
  key: (f: FunctionFeatures) => string | undefined,
  opts: SmallBytesOptions,
): number {
  const place = new AddressPlace(s);
  const left = groupBy([...s.a.keys()], (i) => key(s.a[i]!));
  const right = groupBy([...s.b.keys()], (j) => key(s.b[j]!));
  const chosen: [number, number][] = [];
  for (const [k, ia] of left) {
    const jb = right.get(k);
    if (ia.length !== 1 || jb?.length !== 1) continue;
    const i = ia[0]!;
    const j = jb[0]!;
    if (s.partnerA[i] !== -1 || s.partnerB[j] !== -1) continue;
    if ((agreement(s, i, j) ?? 0) >= opts.minAgree || place.near(i, j, opts.slack)) {
      chosen.push([i, j]);
    }
  }
  for (const [i, j] of chosen) s.pair(i, j, opts.round);
  return chosen.length;
}

/** Address order of both sides, against the pairs made so far. */
class AddressPlace {
  readonly #s: MatchState;
  readonly #orderA: number[];
  readonly #rankA: Int32Array;
  readonly #rankB: Int32Array;

  constructor(s: MatchState) {
    this.#s = s;
    this.#orderA = [...s.a.keys()].sort((x, y) => s.a[x]!.start - s.a[y]!.start);
    this.#rankA = ranks(this.#orderA);
    this.#rankB = ranks([...s.b.keys()].sort((x, y) => s.b[x]!.start - s.b[y]!.start));
  }

  /**
   * Whether the nearest matched function before `a[i]` in address order or the nearest after it
   * has its partner as many functions from `b[j]` as it is from `a[i]`, give or take `slack` (a
   * function added or removed on one side of the pair leaves the other side's neighbour in
   * place).
   */
  near(i: number, j: number, slack: number): boolean {
    const at = this.#rankA[i]!;
    for (const step of [-1, 1]) {
      for (let r = at + step; r >= 0 && r < this.#orderA.length; r += step) {
        const p = this.#s.partnerA[this.#orderA[r]!]!;
        if (p === -1) continue;
        if (Math.abs(this.#rankB[p]! - this.#rankB[j]! - (r - at)) <= slack) return true;
        break;
      }
    }
    return false;
  }
}
