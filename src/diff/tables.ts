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
  /**
   * How many times more pairs must agree with a line-up than contradict it: a wrong pair
   * (libfuse's byte-identical `do_unlink` and `do_rmdir` paired the wrong way round) or an edit
   * (hiredis 1.0 added `createDoubleObject` and `createBoolObject` to its reply functions) must not
   * hide a table; the slots around each pair are checked on their own.
   */
  minLead: number;
  /** Least similarity of a pair made at a table's place. */
  minSim: number;
}

/**
 * The thresholds the matcher uses. On the dumped pairs of bench/diff.ts (docs/MEASUREMENTS.md,
 * session 23) the round, run after the unique bytes, added 71 right pairs (net) over libfuse 2 → 3,
 * hiredis, Lua 5.1 → 5.2 and 5.2 → 5.3, curl and SQLCipher → SQLite 3.40 and no wrong one; run
 * before the consistency check it built on pairs that check later took back (Lua 5.2's `bit32`
 * paired with 5.3's `math`, next to 5.2's `math` wrongly paired with 5.3's `utf8`). A lead of
 * 10 instead of 2 lost hiredis's two; 1 gained one more on Lua. Its least similar right pairs
 * were 0.40–0.47 similar (libfuse's `fuse_lib_destroy`, Lua's `luaB_ipairs`).
 */
export const TABLE_DEFAULTS: TableOptions = {
  round: "tables",
  maxGap: 32,
  minVotes: 3,
  minLead: 2,
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
  // Each table of a lines up at its most voted table and distance of b; the other votes, and
  // matched functions facing other matched functions there, count against it.
  const lined = new Map<number, { tb: number; delta: number; agree: number; against: number }>();
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

  // A table edited between the versions (Lua 5.3 dropped `bit32` from its list of libraries)
  // lines up on either side of the edit at different distances: a slot is trusted only when the
  // nearest matched slots before and after it in its table sit at its table's distance too. The
  // free slots between those two are where the edit may be: a pair among them must be the most
  // similar of its run on both sides (Lua 5.2's `bit32` faced 5.3's `math`, 5.2's own `math` one
  // slot further).
  const order = [...A.fn.keys()];
  const orderB = [...B.fn.keys()];
  /** The nearest matched slot of `a` from position k on, in its table, or undefined when its
   * partner does not sit at the table's distance; the table's end is ±Infinity. */
  const bound = (k: number, step: number, ta: number, line: { tb: number; delta: number }) => {
    for (let q = k + step; q >= 0 && q < order.length; q += step) {
      const sa = order[q]!;
      if (A.table.get(sa) !== ta) break;
      const i = A.fn.get(sa)!;
      if (partnerA[i] === -1) continue;
      const sb = sa + line.delta;
      return B.table.get(sb) === line.tb && B.fn.get(sb) === partnerA[i] ? sa : undefined;
    }
    return step * Infinity;
  };
  const wantA = new Map<number, Set<number>>();
  const wantB = new Map<number, Set<number>>();
  for (const [k, sa] of order.entries()) {
    const i = A.fn.get(sa)!;
    const ta = A.table.get(sa)!;
    const line = lined.get(ta);
    if (!line || partnerA[i] !== -1) continue;
    const sb = sa + line.delta;
    const j = B.fn.get(sb);
    if (j === undefined || B.table.get(sb) !== line.tb || partnerB[j] !== -1) continue;
    const lo = bound(k, -1, ta, line);
    const hi = bound(k, 1, ta, line);
    if (lo === undefined || hi === undefined) continue;
    const runA = order.filter((x) =>
      x > lo && x < hi && A.table.get(x) === ta && partnerA[A.fn.get(x)!] === -1
    ).map((x) => A.fn.get(x)!);
    const runB = orderB.filter((x) =>
      x > lo + line.delta && x < hi + line.delta && B.table.get(x) === line.tb &&
      partnerB[B.fn.get(x)!] === -1
    ).map((x) => B.fn.get(x)!);
    const sim = similarity(s.a[i]!, s.b[j]!);
    if (runB.some((y) => y !== j && similarity(s.a[i]!, s.b[y]!) >= sim)) continue;
    if (runA.some((x) => x !== i && similarity(s.a[x]!, s.b[j]!) >= sim)) continue;
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
