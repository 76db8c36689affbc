/**
 * Function-pointer tables: a function reached only through a table (libfuse's `do_*` request
 * handlers in `fuse_ll_ops`, its `fuse_path_ops`) has no caller to place it and often a body
 * rewritten between versions, but sits at the same place of the same table in both. A table is a
 * run of data slots holding function starts; a table of `a` lines up with one of `b` when the
 * pairs already made sit at one same distance apart in both, and then an unmatched function of
 * `a` pairs with the unmatched function at its slot's counterpart.
 */
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** A data slot and the function start it holds. */
export type FunctionPointer = readonly [slot: number, target: number];

/** Thresholds of {@link tableRound}. */
export interface TableOptions {
  round: string;
  /** Largest step between two slots of one table, in bytes (entries with names between). */
  maxGap: number;
  /** Least matched pairs that must sit at the same distance for two tables to line up. */
  minVotes: number;
  /** Least similarity of a pair made at a table's place. */
  minSim: number;
}

/** The thresholds the matcher uses (measured on bench/diff.ts: docs/MEASUREMENTS.md, session 23). */
export const TABLE_DEFAULTS: TableOptions = {
  round: "tables",
  maxGap: 32,
  minVotes: 3,
  minSim: 0.3,
};

/** One side's slots: which table each is in, and the function index it holds. */
interface Slots {
  /** slot → function index. */
  fn: Map<number, number>;
  /** slot → table number. */
  table: Map<number, number>;
  /** function index → its slots. */
  slotsOf: Map<number, number[]>;
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
 * Pairs the unmatched functions that sit at the same place of two tables lined up by the pairs
 * already made: a table of `a` lines up with one of `b` at a distance (b's slot minus a's) when
 * at least `minVotes` pairs of functions held once on each side sit that far apart there, no
 * other distance or table has a vote, and no slot of `a` holding a matched function faces a slot
 * of `b` holding another matched function. A function two lined-up slots would pair differently,
 * or whose partner-to-be another function wants too, is left alone. Returns the pairs made.
 */
export function tableRound(
  s: MatchState,
  pointers: { a: readonly FunctionPointer[]; b: readonly FunctionPointer[] } | undefined,
  opts: TableOptions,
): number {
  if (!pointers || pointers.a.length === 0 || pointers.b.length === 0) return 0;
  const { partnerA, partnerB } = s;
  const A = slotsOf(pointers.a, new Map(s.a.map((f, k) => [f.start, k])), opts.maxGap);
  const B = slotsOf(pointers.b, new Map(s.b.map((f, k) => [f.start, k])), opts.maxGap);

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
  // Tables lined up one to one: a's table → [b's table, distance].
  const lined = new Map<number, [number, number]>();
  const takenB = new Map<number, number>();
  for (const [ta, v] of votes) {
    if (v.size !== 1) continue;
    const [key, n] = [...v][0]!;
    if (n < opts.minVotes) continue;
    const [tb, delta] = key.split(":").map(Number) as [number, number];
    lined.set(ta, [tb, delta]);
    takenB.set(tb, (takenB.get(tb) ?? 0) + 1);
  }
  for (const [ta, [tb]] of lined) if (takenB.get(tb)! > 1) lined.delete(ta);
  // A matched function facing another matched function contradicts the line-up.
  for (const [sa, i] of A.fn) {
    const line = lined.get(A.table.get(sa)!);
    if (!line || partnerA[i] === -1) continue;
    const sb = sa + line[1];
    const j = B.fn.get(sb);
    if (j === undefined || B.table.get(sb) !== line[0]) continue;
    if (partnerB[j] !== -1 && partnerA[i] !== j) lined.delete(A.table.get(sa)!);
  }

  const wantA = new Map<number, Set<number>>();
  const wantB = new Map<number, Set<number>>();
  for (const [sa, i] of A.fn) {
    const line = lined.get(A.table.get(sa)!);
    if (!line || partnerA[i] !== -1) continue;
    const sb = sa + line[1];
    const j = B.fn.get(sb);
    if (j === undefined || B.table.get(sb) !== line[0] || partnerB[j] !== -1) continue;
    wantA.set(i, (wantA.get(i) ?? new Set()).add(j));
    wantB.set(j, (wantB.get(j) ?? new Set()).add(i));
  }
  let made = 0;
  for (const [i, js] of wantA) {
    if (js.size !== 1) continue;
    const j = [...js][0]!;
    if (wantB.get(j)!.size !== 1) continue;
    if (similarity(s.a[i]!, s.b[j]!) < opts.minSim) continue;
    const before = s.matches.length;
    s.pair(i, j, opts.round);
    if (s.matches.length > before) made++;
  }
  return made;
}
