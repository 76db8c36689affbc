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
import { type FunctionPointer, type LineOptions, TableLines } from "./table_lines.ts";

export type { FunctionPointer } from "./table_lines.ts";

/** Thresholds of {@link tableRound}. */
export interface TableOptions extends LineOptions {
  round: string;
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
  const lines = new TableLines(s, pointers, opts);
  const { A, B, lined, order, orderB } = lines;

  // A table edited between the versions (Lua 5.3 dropped `bit32` from its list of libraries)
  // lines up on either side of the edit at different distances: a slot is trusted only when the
  // nearest matched slots before and after it in its table sit at its table's distance too. The
  // free slots between those two are where the edit may be: a pair among them must be the most
  // similar of its run on both sides (Lua 5.2's `bit32` faced 5.3's `math`, 5.2's own `math` one
  // slot further).
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
    const lo = lines.bound(k, -1);
    const hi = lines.bound(k, 1);
    if (lo === undefined || hi === undefined) continue;
    // A table is a run of `order` (slots sorted), so the free run is found by walking out from
    // the slot: filtering every slot of the binary for each one cost qemu's 14,000 functions
    // seconds.
    const runA = freeRun(order, k, lo, hi, (x) => A.table.get(x) === ta, A.fn, partnerA);
    const runB = freeRun(
      orderB,
      lines.positionOfB(sb)!,
      lo + line.delta,
      hi + line.delta,
      (x) => B.table.get(x) === line.tb,
      B.fn,
      partnerB,
    );
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

/**
 * The unmatched functions held by the slots of `order` strictly between `lo` and `hi` in the
 * table of position `k` (`inTable`), in slot order: the slots of one table are contiguous in
 * `order`, so this walks out from `k` both ways and stops at the bounds or the table's ends.
 */
function freeRun(
  order: readonly number[],
  k: number,
  lo: number,
  hi: number,
  inTable: (slot: number) => boolean,
  fn: ReadonlyMap<number, number>,
  partner: ArrayLike<number>,
): number[] {
  let first = k;
  while (first > 0 && order[first - 1]! > lo && inTable(order[first - 1]!)) first--;
  let last = k;
  while (last + 1 < order.length && order[last + 1]! < hi && inTable(order[last + 1]!)) last++;
  const run: number[] = [];
  for (let q = first; q <= last; q++) {
    const f = fn.get(order[q]!)!;
    if (partner[f] === -1) run.push(f);
  }
  return run;
}
