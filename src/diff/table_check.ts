/**
 * The table check: a pair whose function sits in a lined-up function-pointer table facing a free
 * function, while its partner sits outside the run around that slot (the slots between the
 * nearest ones whose functions are paired at the table's distance, where an edit of the table
 * can fall), is contradicted by the table: it is taken back, and when the slot is alone in its
 * run the function facing it takes the place. An optimiser that inlines a helper into a thin
 * wrapper reached through a table (SQLite -O3 inlining `posixUnlock` into the VFS method
 * `unixUnlock`, Lua's `g_iofile` into `io_output`) leaves the wrapper's new body like the helper's
 * old one, and the position rounds pair the old helper with it while the old wrapper, holding the
 * slot, stands free; a version that moves a handler's body into a new helper (libfuse 3's
 * `fuse_lib_readdir` calling `fuse_readdir_common`) does the same the other way round.
 */
import type { Match, MatchState } from "./match_state.ts";
import { type FunctionPointer, type LineOptions, TableLines } from "./table_lines.ts";

/** Thresholds of {@link tableCheck}: how tables line up, and the round of the pairs it makes. */
export interface TableCheckOptions extends LineOptions {
  round: string;
}

/**
 * The thresholds the matcher uses: the tables round's line-up (`TABLE_DEFAULTS`), but slots up to
 * 80 bytes apart count as one table (32 in the round): a table's entries can be structs holding
 * several pointers and other fields (SQLite's `FuncDef`, 72 bytes: each window function's entry
 * would be a table of its own, too small to line up), and an entry whose pointer is no function
 * start widens the gap. On the 22 dumped pairs of bench/diff.ts (docs/MEASUREMENTS.md,
 * session 24), run right after the tables round, it took 16 wrong pairs away and added 16 right
 * ones, on 8 pairs, and lost no right one (with 32 bytes 13 and 15; with 128, 5 right pairs were
 * lost and 4 wrong ones made on the Lua pairs, whose adjacent library tables then merge).
 * Contradicting a pair whose partner sits in the same run took back hiredis's right
 * `freeReplyObject` and Lua 5.2 → 5.3's `luaopen_math` (each table edited around them: 5.3 dropped
 * `bit32` and added `utf8` after `math`).
 */
export const TABLE_CHECK_DEFAULTS: TableCheckOptions = {
  round: "tables:check",
  maxGap: 80,
  minVotes: 3,
  minLead: 2,
};

/**
 * The run of slot `sa` of `a`: the slots of its lined-up table between the nearest ones before and
 * after it whose functions are paired at the table's distance, on both sides (where an edit of the
 * table can fall), and whether `sa` is alone in it; undefined when a nearest matched slot's
 * partner sits elsewhere.
 */
function runOf(lines: TableLines, sa: number) {
  const k = lines.positionOf(sa);
  const line = lines.lineOf(sa);
  if (k === undefined || !line) return undefined;
  const lo = lines.bound(k, -1);
  const hi = lines.bound(k, 1);
  if (lo === undefined || hi === undefined) return undefined;
  const ta = lines.A.table.get(sa);
  const inA = (x: number) => x > lo && x < hi && lines.A.table.get(x) === ta;
  const inB = (x: number) =>
    x > lo + line.delta && x < hi + line.delta && lines.B.table.get(x) === line.tb;
  return { inA, inB, alone: lo === lines.order[k - 1] && hi === lines.order[k + 1] };
}

/** Whether some slot of `f` (in `slots`) is in the run. */
function within(slots: readonly number[] | undefined, inRun: (x: number) => boolean): boolean {
  return (slots ?? []).some(inRun);
}

/**
 * Takes back (and bans) every pair that a lined-up table contradicts (see the module comment)
 * and no slot of either function confirms, then pairs each freed function with the function the
 * table places there when exactly one is placed and it is still free. Returns the pairs taken
 * back.
 */
export function tableCheck(
  s: MatchState,
  pointers: { a: readonly FunctionPointer[]; b: readonly FunctionPointer[] } | undefined,
  opts: TableCheckOptions,
): Match[] {
  if (!pointers || pointers.a.length === 0 || pointers.b.length === 0) return [];
  const lines = new TableLines(s, pointers, opts);
  const { A, B } = lines;
  const { partnerA, partnerB } = s;
  const out: Match[] = [];
  const moves: [number, number][] = [];
  for (const m of s.matches) {
    let confirmed = false;
    let contradicted = false;
    const placed: [number, number][] = [];
    // Slots of a[m.a]: the function facing each.
    for (const sa of A.slotsOf.get(m.a) ?? []) {
      const j = lines.facing(sa);
      if (j === undefined) continue;
      if (j === m.b) confirmed = true;
      if (j === m.b || partnerB[j] !== -1) continue;
      const run = runOf(lines, sa);
      if (!run || within(B.slotsOf.get(m.b), run.inB)) continue;
      contradicted = true;
      if (run.alone) placed.push([m.a, j]);
    }
    // Slots of b[m.b]: the function of a facing each.
    for (const sb of B.slotsOf.get(m.b) ?? []) {
      const line = lines.linedB.get(B.table.get(sb)!)?.line;
      if (!line) continue;
      const sa = sb - line.delta;
      const i = A.fn.get(sa);
      if (i === undefined || lines.lineOf(sa) !== line) continue;
      if (i === m.a) confirmed = true;
      if (i === m.a || partnerA[i] !== -1) continue;
      const run = runOf(lines, sa);
      if (!run || within(A.slotsOf.get(m.a), run.inA)) continue;
      contradicted = true;
      if (run.alone) placed.push([i, m.b]);
    }
    if (confirmed || !contradicted) continue;
    out.push(m);
    if (placed.length === 1) moves.push(placed[0]!);
  }
  s.withdraw(new Set(out));
  // A function the table places at two freed slots is left alone.
  const count = (xs: number[]) => xs.reduce((c, x) => c.set(x, (c.get(x) ?? 0) + 1), new Map());
  const byA = count(moves.map(([i]) => i));
  const byB = count(moves.map(([, j]) => j));
  for (const [i, j] of moves) {
    if (byA.get(i) !== 1 || byB.get(j) !== 1) continue;
    if (partnerA[i] !== -1 || partnerB[j] !== -1) continue;
    s.pair(i, j, opts.round);
  }
  return out;
}
