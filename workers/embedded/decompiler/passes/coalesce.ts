/**
 * Copy coalescing after SSA: the two sides of a copy `a = b` become one variable when they never
 * hold different live values at the same point (Chaitin's interference test over liveness), so
 * a loop counter's versions and the phi copies between them print as one `v1`.
 *
 * Only the variables of copies can merge, so liveness and interference are computed for those
 * alone (numbered, as bit sets): the other variables cannot change the answer, and functions
 * with thousands of temporaries but few copies stay cheap.
 */

import {
  type Expr,
  forEachChild,
  type IrBlock,
  type IrFunction,
  mapChildren,
  mapStmt,
  mapTerm,
  predecessors,
  type Stmt,
  stmtDefs,
  stmtReads,
  successors,
  termReads,
  type Var,
} from "../ir.ts";

const isVar = (e: Expr): e is Var => e.k === "reg" || e.k === "tmp";

/** Whether `v` takes part (SSA registers and temporaries; entry values and slots do not). */
const coalescable = (v: Var) => v.k === "tmp" || (v.k === "reg" && (v.ver ?? 0) > 0);

/** Registers (by name and version) and temporaries (by id) numbered 0, 1, … without strings. */
class VarIds {
  readonly vars: Var[] = [];
  readonly #tmps = new Map<number, number>();
  readonly #regs = new Map<string, Map<number | undefined, number>>();

  get(v: Var): number | undefined {
    if (v.k === "tmp") return this.#tmps.get(v.id);
    if (v.k === "reg") return this.#regs.get(v.name)?.get(v.ver);
    return undefined;
  }

  /** The number of `v`, given the next one when it has none (the first `v` seen is kept). */
  add(v: Var): number {
    const known = this.get(v);
    if (known !== undefined) return known;
    const id = this.vars.length;
    this.vars.push(v);
    if (v.k === "tmp") this.#tmps.set(v.id, id);
    else if (v.k === "reg") {
      let byVer = this.#regs.get(v.name);
      if (!byVer) this.#regs.set(v.name, byVer = new Map());
      byVer.set(v.ver, id);
    }
    return id;
  }
}

/** Calls `f` on every register and temporary `e` reads. */
function eachVarRead(e: Expr, f: (v: Var) => void): void {
  if (isVar(e)) f(e);
  else forEachChild(e, (c) => eachVarRead(c, f));
}

/**
 * Coalesces copies of `fn` (out of SSA); gives up past `maxVars` variables. `check` runs inside
 * the loops whose cost grows with the function (the budget: it throws to stop).
 */
export function coalesce(
  fn: IrFunction,
  maxVars = 4000,
  check: () => unknown = () => {},
): IrFunction {
  const ids = new VarIds();
  // A call's result keeps its register (the printer finds the return value by it): it may
  // only be the name a class of copies takes, and one class holds at most one.
  const callDef: boolean[] = [];
  const define = (d: Var, call: boolean) => {
    const id = ids.add(d);
    // The last definition seen gives the variable its size.
    ids.vars[id] = d;
    if (call) callDef[id] = true;
  };
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) {
      if (s.k === "call") {
        for (const d of s.defs) if (coalescable(d)) define(d, true);
        continue;
      }
      for (const d of stmtDefs(s)) if (coalescable(d)) define(d, false);
    }
  }
  const nVars = ids.vars.length;
  if (nVars > maxVars || nVars === 0) return fn;
  // The copies between variables of one size, in the order they are tried (blocks in order,
  // statements from the last), and their variables numbered densely for the bit sets.
  const dense = new Int32Array(nVars).fill(-1);
  const members: number[] = [];
  const copies: [number, number][] = [];
  for (const b of fn.blocks.values()) {
    for (let i = b.stmts.length - 1; i >= 0; i--) {
      const s = b.stmts[i]!;
      if (s.k !== "set" || !isVar(s.src) || !coalescable(s.dst)) continue;
      const a = ids.get(s.dst);
      const c = ids.get(s.src);
      if (a === undefined || c === undefined || ids.vars[a]!.size !== ids.vars[c]!.size) continue;
      for (const v of [a, c]) {
        if (dense[v] === -1) {
          dense[v] = members.length;
          members.push(v);
        }
      }
      copies.push([a, c]);
    }
  }
  if (copies.length === 0) return fn;
  const n = members.length;
  const words = (n + 31) >>> 5;
  const indexOf = (v: Var): number => {
    const id = ids.get(v);
    return id === undefined ? -1 : dense[id]!;
  };
  // Liveness of the copies' variables, backwards to a fixpoint.
  const preds = predecessors(fn);
  const keys = [...fn.blocks.keys()];
  const slot = new Map<number, number>(keys.map((k, i) => [k, i]));
  const liveIn = new Uint32Array(keys.length * words);
  const liveOut = new Uint32Array(keys.length * words);
  const defs = new Uint32Array(keys.length * words);
  const setBit = (bits: Uint32Array, base: number, i: number) => {
    bits[base + (i >>> 5)]! |= 1 << (i & 31);
  };
  const hasBit = (bits: Uint32Array, base: number, i: number) =>
    (bits[base + (i >>> 5)]! & (1 << (i & 31))) !== 0;
  keys.forEach((k, bi) => {
    const b = fn.blocks.get(k)!;
    const base = bi * words;
    const read = (v: Var) => {
      const i = indexOf(v);
      if (i >= 0 && !hasBit(defs, base, i)) setBit(liveIn, base, i);
    };
    for (const s of b.stmts) {
      stmtReads(s, (e) => eachVarRead(e, read));
      for (const d of stmtDefs(s)) {
        const i = indexOf(d);
        if (i >= 0) setBit(defs, base, i);
      }
    }
    termReads(b.term, (e) => eachVarRead(e, read));
  });
  const work = keys.map((_, i) => i);
  const queued = new Uint8Array(keys.length).fill(1);
  while (work.length > 0) {
    const bi = work.pop()!;
    queued[bi] = 0;
    check();
    const base = bi * words;
    for (const s of successors(fn.blocks.get(keys[bi]!)!.term)) {
      const si = slot.get(s);
      if (si === undefined) continue;
      for (let w = 0; w < words; w++) liveOut[base + w]! |= liveIn[si * words + w]!;
    }
    let grew = false;
    for (let w = 0; w < words; w++) {
      const add = liveOut[base + w]! & ~defs[base + w]! & ~liveIn[base + w]!;
      if (add !== 0) {
        liveIn[base + w]! |= add;
        grew = true;
      }
    }
    if (!grew) continue;
    for (const p of preds.get(keys[bi]!) ?? []) {
      const pi = slot.get(p)!;
      if (!queued[pi]) {
        queued[pi] = 1;
        work.push(pi);
      }
    }
  }
  // Interference: a definition against everything live after it (but the value it copies).
  const edges: Set<number>[] = members.map(() => new Set());
  const live = new Uint32Array(words);
  const addLive = (v: Var) => {
    const i = indexOf(v);
    if (i >= 0) live[i >>> 5]! |= 1 << (i & 31);
  };
  keys.forEach((k, bi) => {
    const b = fn.blocks.get(k)!;
    live.set(liveOut.subarray(bi * words, bi * words + words));
    termReads(b.term, (e) => eachVarRead(e, addLive));
    for (let i = b.stmts.length - 1; i >= 0; i--) {
      check();
      const s = b.stmts[i]!;
      const copyOf = s.k === "set" && isVar(s.src) ? indexOf(s.src) : -1;
      for (const d of stmtDefs(s)) {
        const di = indexOf(d);
        if (di < 0) continue;
        for (let w = 0; w < words; w++) {
          let bits = live[w]!;
          while (bits !== 0) {
            const low = bits & -bits;
            const l = (w << 5) + (31 - Math.clz32(low));
            bits ^= low;
            if (l !== copyOf && l !== di) {
              edges[di]!.add(l);
              edges[l]!.add(di);
            }
          }
        }
        live[di >>> 5]! &= ~(1 << (di & 31));
      }
      stmtReads(s, (e) => eachVarRead(e, addLive));
    }
  });
  // Union-find over the copies whose sides do not interfere.
  const parent = new Int32Array(n).fill(-1);
  const find = (x: number): number => {
    let r = x;
    while (parent[r] !== -1) r = parent[r]!;
    return r;
  };
  const isCall = (i: number) => callDef[members[i]!] === true;
  let merged = false;
  for (const [a, c] of copies) {
    check();
    let ra = find(dense[a]!);
    let rb = find(dense[c]!);
    if (ra === rb || edges[ra]!.has(rb)) continue;
    if (isCall(ra) && isCall(rb)) continue;
    if (isCall(rb)) [ra, rb] = [rb, ra];
    parent[rb] = ra;
    merged = true;
    const target = edges[ra]!;
    for (const m of edges[rb]!) {
      target.add(m);
      edges[m]!.add(ra);
    }
  }
  if (!merged) return fn;
  const rename = (e: Expr): Expr => {
    if (isVar(e)) {
      const i = indexOf(e);
      if (i < 0) return e;
      const r = find(i);
      return r === i ? e : ids.vars[members[r]!]!;
    }
    return mapChildren(e, rename);
  };
  const renameVar = (v: Var): Var => (isVar(v) ? rename(v) as Var : v);
  const same = (a: Var, b: Var) =>
    a.k === "tmp" ? b.k === "tmp" && a.id === b.id : a.k === "reg" && b.k === "reg" &&
      a.name === b.name && a.ver === b.ver;
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    const stmts: Stmt[] = [];
    for (const s0 of b.stmts) {
      let s = mapStmt(s0, rename);
      if (s.k === "set") s = { ...s, dst: renameVar(s.dst) };
      else if (s.k === "asm") s = { ...s, outs: s.outs.map(renameVar) };
      if (s.k === "set" && isVar(s.src) && same(s.src, s.dst)) continue;
      stmts.push(s);
    }
    blocks.set(k, { ...b, stmts, term: mapTerm(b.term, rename) });
  }
  return { ...fn, blocks };
}
