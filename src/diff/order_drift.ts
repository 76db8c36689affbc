/**
 * How far a pair strays from the address order of its matched neighbours, measured against how
 * well the two binaries keep that order at all. Builds of one program from separate source files
 * keep each file's functions together and in order (Lua's lbaselib.c, lmathlib.c …), so a
 * partner hundreds of functions away from where the neighbours' partners sit is most likely a
 * look-alike from another file (Lua 5.2's luaB_type paired with 5.3's math_type). A single-file
 * program (SQLite's amalgamation) compiled by another compiler keeps little order: there the
 * measure of noise is large, and so is the distance it allows.
 */
import type { Match, MatchState } from "./match_state.ts";

/** Rounds whose pairs measure the noise: the exact keys, made without regard to position. */
const TRUSTED = new Set(["name", "bytes", "mnemonics", "strings"]);

/** A snapshot of the address order of both sides and of the pairs made so far. */
export class OrderDrift {
  readonly #s: MatchState;
  readonly #orderA: number[];
  readonly #rankA: Int32Array;
  readonly #rankB: Int32Array;
  /** Matched neighbours looked at on each side of a function. */
  readonly #k: number;
  /** The 90th percentile of the drift of trusted pairs; 0 when there are none. */
  readonly noise: number;
  /** Functions of `a` whose pairs are no witness of address order (see the constructor). */
  readonly #blind: ReadonlySet<number>;

  /**
   * `blind`: rounds (prefixes of the round names) whose pairs do not count as matched neighbours,
   * pairs made by something other than address order that can sit anywhere (a function-pointer
   * table's handlers: `tables.ts`).
   */
  constructor(s: MatchState, k = 4, blind: readonly string[] = []) {
    this.#s = s;
    this.#k = k;
    this.#blind = new Set(
      s.matches.filter((m) => blind.some((r) => m.round.startsWith(r))).map((m) => m.a),
    );
    this.#orderA = [...s.a.keys()].sort((x, y) => s.a[x]!.start - s.a[y]!.start);
    this.#rankA = ranks(this.#orderA);
    this.#rankB = ranks([...s.b.keys()].sort((x, y) => s.b[x]!.start - s.b[y]!.start));
    const ds = s.matches.filter((m) => TRUSTED.has(m.round)).map((m) => this.drift(m.a, m.b))
      .filter((d): d is number => d !== undefined)
      .sort((x, y) => x - y);
    this.noise = ds.length === 0 ? 0 : ds[Math.floor(ds.length * 0.9)]!;
  }

  /**
   * How many functions of `b` lie between `b[j]` and the median position of the partners of the
   * `k` nearest matched functions before and after `a[i]` in address order (`a[i]`'s own partner
   * left out); undefined when no function near `a[i]` is matched.
   */
  drift(i: number, j: number): number | undefined {
    const { partnerA } = this.#s;
    const near: number[] = [];
    const at = this.#rankA[i]!;
    for (const step of [-1, 1]) {
      let n = 0;
      for (let r = at + step; r >= 0 && r < this.#orderA.length && n < this.#k; r += step) {
        const p = partnerA[this.#orderA[r]!]!;
        if (p === -1 || this.#blind.has(this.#orderA[r]!)) continue;
        near.push(this.#rankB[p]!);
        n++;
      }
    }
    if (near.length === 0) return undefined;
    near.sort((x, y) => x - y);
    return Math.abs(this.#rankB[j]! - near[near.length >> 1]!);
  }

  /**
   * Whether `a[i]` ↔ `b[j]` strays further than `factor` times the noise (and at least `floor`
   * functions) from where its neighbours' partners are.
   */
  strays(i: number, j: number, factor: number, floor: number): boolean {
    const d = this.drift(i, j);
    return d !== undefined && d > Math.max(floor, factor * this.noise);
  }
}

/** Each index's position in `order` (a permutation of 0 … n-1). */
export function ranks(order: readonly number[]): Int32Array {
  const out = new Int32Array(order.length);
  order.forEach((x, r) => out[x] = r);
  return out;
}

/**
 * The pairs of `rounds` (prefixes of their round names) that stray from their neighbours'
 * address order as {@link OrderDrift.strays} tells, with every other pair in place (but those of
 * `blind`, which witness nothing of address order).
 */
export function strayPairs(
  s: MatchState,
  rounds: readonly string[],
  factor: number,
  floor: number,
  blind: readonly string[] = [],
): Set<Match> {
  const drift = new OrderDrift(s, 4, blind);
  return new Set(
    s.matches.filter((m) =>
      rounds.some((r) => m.round.startsWith(r)) && drift.strays(m.a, m.b, factor, floor)
    ),
  );
}
