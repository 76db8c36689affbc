/**
 * Switch cases are not functions. A function whose only caller is reached late (through a
 * table of function pointers) is explored after the data-pointer phase has already offered its
 * jump table's entries as function starts: Lua's interpreter on ARM, whose computed-goto table
 * `disptab` is a run of relocated code addresses in `.data.rel.ro`. Once the jump is resolved,
 * those weakly found starts between the function's entry and the next well-founded start are
 * its cases, and so are the starts that only its cases reach by jumps.
 */

import type { FunctionSeed } from "./_build.ts";
import type { SwitchTable, Trace } from "./_explore.ts";
import type { FunctionSource } from "./types.ts";

/** Sources that a case block can be mistaken for: nothing but a pointer, a jump or a pattern. */
const WEAK: ReadonlySet<FunctionSource> = new Set(["tail_jump", "data_pointer", "prologue", "gap"]);

/** What {@link claimCases} works on: the discovery's state and how to change it. */
export interface ClaimState {
  seeds: Map<number, FunctionSeed>;
  traces: ReadonlyMap<number, Trace>;
  /** Every indirect jump resolved so far (undefined where it was not). */
  switches: ReadonlyMap<number, SwitchTable | undefined>;
  /** Explores a function again and records its trace. */
  run(s: FunctionSeed): Trace;
  /** Removes a function start (its trace too). */
  drop(start: number): void;
}

function upperStart(sorted: readonly number[], a: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Drops weakly found function starts that are cases of a resolved switch, or that only a
 * switch's function jumps to inside its own extent, and explores those functions again.
 * Returns the functions explored again.
 */
export function claimCases(st: ClaimState): Set<number> {
  const all = [...st.seeds.keys()].sort((x, y) => x - y);
  const strong = all.filter((a) => !WEAK.has(st.seeds.get(a)!.source));
  /** The first well-founded start after `g`: no case lies beyond it. */
  const limitOf = (g: number) => strong[upperStart(strong, g)] ?? Infinity;
  /** The function whose trace holds `addr` (the nearest starts at or below it). */
  const ownerOf = (addr: number): number | undefined => {
    for (let i = upperStart(all, addr) - 1, n = 0; i >= 0 && n < 8; i--, n++) {
      if (st.traces.get(all[i]!)?.insns.has(addr) === true) return all[i]!;
    }
    return undefined;
  };
  const weakInside = (g: number, a: number) =>
    a > g && a < limitOf(g) && st.seeds.has(a) && WEAK.has(st.seeds.get(a)!.source);
  const owners = new Set<number>();
  const dropped = new Set<number>();
  /** Weak starts in `g`'s region (up to `hi`), kept sorted for range queries. */
  const weak = all.filter((a) => WEAK.has(st.seeds.get(a)!.source));
  const claim = (g: number, sw: SwitchTable) => {
    // A table read while its entries looked like code may have run on into the next table:
    // only a bounded one, or one its index's mask caps, says where the function's cases are.
    if (sw.bounded === false && sw.capped !== true) return;
    const limit = limitOf(g);
    let top = -1;
    for (const to of sw.targets) {
      if (to > g && to < limit) top = Math.max(top, to);
      // An unbounded table's entries past the function are not its cases.
      else if (sw.bounded === false) break;
    }
    if (top < 0) return;
    // Every weak start from the entry to the last case: the cases themselves, and the starts
    // that exploring cases as functions offered (their jumps to other cases, gaps among them).
    for (let i = upperStart(weak, g); i < weak.length && weak[i]! <= top; i++) {
      if (dropped.has(weak[i]!)) continue;
      dropped.add(weak[i]!);
      owners.add(g);
    }
  };
  const resolved: [number, SwitchTable][] = [];
  for (const [jump, sw] of st.switches) {
    const g = sw === undefined ? undefined : ownerOf(jump);
    if (g !== undefined) resolved.push([g, sw!]);
  }
  // Well-founded functions first: a weakly found one may itself be a case of another (each of
  // Lua's opcode handlers ends in a dispatch through the same table).
  for (const [g, sw] of resolved) if (!WEAK.has(st.seeds.get(g)!.source)) claim(g, sw);
  for (const [g, sw] of resolved) if (!dropped.has(g)) claim(g, sw);
  // Starts that only the dropped starts jumped to were offered by cases explored as functions:
  // without those, they are the switch function's code as well.
  const jumpers = new Map<number, number[]>();
  for (const [from, t] of st.traces) {
    for (const e of t.edges) {
      if (e.kind !== "tail" || e.to === from) continue;
      const list = jumpers.get(e.to);
      if (list === undefined) jumpers.set(e.to, [from]);
      else list.push(from);
    }
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const g of owners) {
      const limit = limitOf(g);
      for (let i = upperStart(weak, g); i < weak.length && weak[i]! < limit; i++) {
        const a = weak[i]!;
        const by = jumpers.get(a);
        if (dropped.has(a) || by === undefined || !by.every((f) => dropped.has(f))) continue;
        dropped.add(a);
        grew = true;
      }
    }
  }
  const rerun = new Set<number>();
  let todo = owners;
  for (let round = 0; round < 8 && todo.size > 0; round++) {
    for (const a of dropped) if (st.seeds.has(a)) st.drop(a);
    const next = new Set<number>();
    for (const g of todo) {
      const s = st.seeds.get(g);
      if (s === undefined) continue;
      const t = st.run(s);
      rerun.add(g);
      const last = t.insns.array.reduce((m, a) => Math.max(m, a), g);
      // A start its cases jump to, before the function's last instruction, is its code too.
      for (const e of t.edges) {
        if (e.kind === "tail" && e.to < last && weakInside(g, e.to) && !dropped.has(e.to)) {
          dropped.add(e.to);
          next.add(g);
        }
      }
    }
    todo = next;
  }
  return rerun;
}
