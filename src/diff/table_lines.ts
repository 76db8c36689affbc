/**
 * How the function-pointer tables of two binaries line up, from the pairs already made: shared by
 * the tables round (`tables.ts`), which pairs free functions at facing slots, and the table check
 * (`table_check.ts`), which takes back pairs a table contradicts. A table is a run of data slots
 * holding function starts; a table of `a` lines up with one of `b` when the pairs already made sit
 * at one same distance apart in both.
 */
import type { MatchState } from "./match_state.ts";

/** A data slot and the function start it holds. */
export type FunctionPointer = readonly [slot: number, target: number];

/** Thresholds of {@link TableLines}. */
export interface LineOptions {
  /** Largest step between two slots of one table, in bytes (entries with names between). */
  maxGap: number;
  /** Least matched pairs that must sit at the same distance for two tables to line up. */
  minVotes: number;
  /** How many times more pairs must agree with a line-up than contradict it. */
  minLead: number;
}

/** One side's slots: which table each is in, and the function index it holds. */
export interface Slots {
  /** slot → function index, in slot order. */
  fn: Map<number, number>;
  /** slot → table number. */
  table: Map<number, number>;
  /** function index → its slots. */
  slotsOf: Map<number, number[]>;
}

/** Where a table of `a` lines up: the table of `b` and the distance (b's slot minus a's). */
export interface Line {
  tb: number;
  delta: number;
  agree: number;
  against: number;
}

function slotsOf(
  pointers: readonly FunctionPointer[],
  starts: ReadonlyMap<number, number>,
  maxGap: number,
): Slots {
  const fn = new Map<number, number>();
  const table = new Map<number, number>();
  const bySlot = new Map<number, number[]>();
  const sorted = [...pointers].filter(([, t]) => starts.has(t)).sort((x, y) => x[0] - y[0]);
  let n = 0;
  let prev = -Infinity;
  for (const [slot, target] of sorted) {
    if (slot - prev > maxGap) n++;
    prev = slot;
    const k = starts.get(target)!;
    fn.set(slot, k);
    table.set(slot, n);
    bySlot.set(k, [...(bySlot.get(k) ?? []), slot]);
  }
  return { fn, table, slotsOf: bySlot };
}

/**
 * The tables of both sides and their line-ups as the pairs of `s` stand when it is built: a table
 * of `a` lines up with one of `b` at a distance when at least `minVotes` pairs of functions held
 * once on each side sit that far apart there, `minLead` times more than the other votes and the
 * matched functions of `a` facing other matched functions there, and no other table of `a` lines
 * up with the same table of `b`.
 */
export class TableLines {
  readonly A: Slots;
  readonly B: Slots;
  /** Table of `a` → its line-up. */
  readonly lined = new Map<number, Line>();
  /** Table of `b` → the one table of `a` lined up with it, and the line-up. */
  readonly linedB = new Map<number, { ta: number; line: Line }>();
  /** The slots of `a` and of `b`, in address order. */
  readonly order: number[];
  readonly orderB: number[];
  readonly #s: MatchState;
  readonly #at: Map<number, number>;
  readonly #atB: Map<number, number>;

  constructor(
    s: MatchState,
    pointers: { a: readonly FunctionPointer[]; b: readonly FunctionPointer[] },
    opts: LineOptions,
  ) {
    this.#s = s;
    const { partnerA, partnerB } = s;
    const A = slotsOf(pointers.a, new Map(s.a.map((f, k) => [f.start, k])), opts.maxGap);
    const B = slotsOf(pointers.b, new Map(s.b.map((f, k) => [f.start, k])), opts.maxGap);
    this.A = A;
    this.B = B;
    this.order = [...A.fn.keys()];
    this.orderB = [...B.fn.keys()];
    this.#at = new Map(this.order.map((sa, k) => [sa, k]));
    this.#atB = new Map(this.orderB.map((sb, k) => [sb, k]));

    // Votes of the matched pairs held once on each side: table of a → (table of b, distance) → n.
    const votes = new Map<number, Map<string, number>>();
    for (const [i, sa] of A.slotsOf) {
      const j = partnerA[i]!;
      if (j === -1 || sa.length !== 1) continue;
      const sb = B.slotsOf.get(j);
      if (!sb || sb.length !== 1) continue;
      const ta = A.table.get(sa[0]!)!;
      const key = `${B.table.get(sb[0]!)!}:${sb[0]! - sa[0]!}`;
      const v = votes.get(ta) ?? new Map<string, number>();
      v.set(key, (v.get(key) ?? 0) + 1);
      votes.set(ta, v);
    }
    // Each table of a lines up at its most voted table and distance of b; the other votes, and
    // matched functions facing other matched functions there, count against it.
    const lined = this.lined;
    for (const [ta, v] of votes) {
      let best: [string, number] | undefined;
      let total = 0;
      for (const e of v) {
        total += e[1];
        if (!best || e[1] > best[1]) best = e;
      }
      const [key, agree] = best!;
      const [tb, delta] = key.split(":").map(Number) as [number, number];
      lined.set(ta, { tb, delta, agree, against: total - agree });
    }
    for (const [sa, i] of A.fn) {
      const line = lined.get(A.table.get(sa)!);
      if (!line || partnerA[i] === -1) continue;
      const j = B.fn.get(sa + line.delta);
      if (j === undefined || B.table.get(sa + line.delta) !== line.tb) continue;
      if (partnerB[j] !== -1 && partnerA[i] !== j && B.slotsOf.get(j)!.length === 1) line.against++;
    }
    const takenB = new Map<number, number>();
    for (const [ta, line] of lined) {
      if (line.agree < opts.minVotes || line.against * opts.minLead > line.agree) lined.delete(ta);
      else takenB.set(line.tb, (takenB.get(line.tb) ?? 0) + 1);
    }
    for (const [ta, line] of lined) if (takenB.get(line.tb)! > 1) lined.delete(ta);
    for (const [ta, line] of lined) this.linedB.set(line.tb, { ta, line });
  }

  /** The line-up of the table holding slot `sa` of `a`, if it lines up. */
  lineOf(sa: number): Line | undefined {
    return this.lined.get(this.A.table.get(sa)!);
  }

  /** The function of `b` at the counterpart of slot `sa` of `a`, if its table lines up there. */
  facing(sa: number): number | undefined {
    const line = this.lineOf(sa);
    if (!line || this.B.table.get(sa + line.delta) !== line.tb) return undefined;
    return this.B.fn.get(sa + line.delta);
  }

  /**
   * The nearest slot of `a`'s table from position `k` of {@link order} on (`step` ±1) holding a
   * matched function, as the pairs stand now; undefined when that function's partner does not
   * sit at the table's distance, ±Infinity at the table's end.
   */
  bound(k: number, step: number): number | undefined {
    const { partnerA } = this.#s;
    const ta = this.A.table.get(this.order[k]!)!;
    const line = this.lined.get(ta)!;
    for (let q = k + step; q >= 0 && q < this.order.length; q += step) {
      const sa = this.order[q]!;
      if (this.A.table.get(sa) !== ta) break;
      const i = this.A.fn.get(sa)!;
      if (partnerA[i] === -1) continue;
      const sb = sa + line.delta;
      return this.B.table.get(sb) === line.tb && this.B.fn.get(sb) === partnerA[i] ? sa : undefined;
    }
    return step * Infinity;
  }

  /** The position of slot `sa` in {@link order}. */
  positionOf(sa: number): number | undefined {
    return this.#at.get(sa);
  }

  /** The position of slot `sb` in {@link orderB}. */
  positionOfB(sb: number): number | undefined {
    return this.#atB.get(sb);
  }
}
