/**
 * Copy coalescing after SSA: the two sides of a copy `a = b` become one variable when they never
 * hold different live values at the same point (Chaitin's interference test over liveness), so
 * a loop counter's versions and the phi copies between them print as one `v1`.
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
  varKey,
} from "../ir.ts";

const isVar = (e: Expr): e is Var => e.k === "reg" || e.k === "tmp";

/** Whether `v` takes part (SSA registers and temporaries; entry values and slots do not). */
const coalescable = (v: Var) => v.k === "tmp" || (v.k === "reg" && (v.ver ?? 0) > 0);

function readsOf(s: Stmt | undefined, t?: IrBlock["term"]): string[] {
  const out: string[] = [];
  const visit = (e: Expr) => {
    if (isVar(e)) out.push(varKey(e));
    else forEachChild(e, visit);
  };
  if (s) stmtReads(s, visit);
  if (t) termReads(t, visit);
  return out;
}

/**
 * Coalesces copies of `fn` (out of SSA); gives up past `maxVars` variables. `check` runs inside
 * the loops whose cost grows with the live sets (the budget: it throws to stop).
 */
export function coalesce(
  fn: IrFunction,
  maxVars = 4000,
  check: () => unknown = () => {},
): IrFunction {
  const vars = new Map<string, Var>();
  // A call's result keeps its register (the printer finds the return value by it): it may
  // only be the name a class of copies takes, and one class holds at most one.
  const callDefs = new Set<string>();
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) {
      if (s.k === "call") {
        for (const d of s.defs) {
          if (coalescable(d)) {
            vars.set(varKey(d), d);
            callDefs.add(varKey(d));
          }
        }
        continue;
      }
      for (const d of stmtDefs(s)) if (coalescable(d)) vars.set(varKey(d), d);
    }
  }
  if (vars.size > maxVars || vars.size === 0) return fn;
  // Liveness, backwards to a fixpoint.
  const preds = predecessors(fn);
  const liveIn = new Map<number, Set<string>>();
  const liveOut = new Map<number, Set<string>>();
  const useDef = new Map<number, { use: Set<string>; def: Set<string> }>();
  for (const b of fn.blocks.values()) {
    const use = new Set<string>();
    const def = new Set<string>();
    for (const s of b.stmts) {
      for (const r of readsOf(s)) if (!def.has(r)) use.add(r);
      for (const d of stmtDefs(s)) def.add(varKey(d));
    }
    for (const r of readsOf(undefined, b.term)) if (!def.has(r)) use.add(r);
    useDef.set(b.start, { use, def });
    liveIn.set(b.start, new Set(use));
    liveOut.set(b.start, new Set());
  }
  const work = [...fn.blocks.keys()];
  const queued = new Set(work);
  while (work.length > 0) {
    const k = work.pop()!;
    queued.delete(k);
    check();
    const b = fn.blocks.get(k)!;
    const out = liveOut.get(k)!;
    for (const s of successors(b.term)) for (const v of liveIn.get(s) ?? []) out.add(v);
    const { use, def } = useDef.get(k)!;
    const inn = liveIn.get(k)!;
    let grew = false;
    for (const v of out) {
      if (!def.has(v) && !inn.has(v)) {
        inn.add(v);
        grew = true;
      }
    }
    void use;
    if (grew) {
      for (const p of preds.get(k) ?? []) {
        if (!queued.has(p)) {
          queued.add(p);
          work.push(p);
        }
      }
    }
  }
  // Interference.
  const edges = new Map<string, Set<string>>();
  const interfere = (a: string, b: string) => {
    if (a === b) return;
    (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
    (edges.get(b) ?? edges.set(b, new Set()).get(b)!).add(a);
  };
  const copies: [string, string][] = [];
  for (const b of fn.blocks.values()) {
    const live = new Set(liveOut.get(b.start)!);
    for (const r of readsOf(undefined, b.term)) live.add(r);
    for (let i = b.stmts.length - 1; i >= 0; i--) {
      check();
      const s = b.stmts[i]!;
      const copyOf = s.k === "set" && isVar(s.src) ? varKey(s.src) : undefined;
      for (const d of stmtDefs(s)) {
        const dk = varKey(d);
        if (copyOf && coalescable(d)) copies.push([dk, copyOf]);
        for (const l of live) if (l !== copyOf) interfere(dk, l);
        live.delete(dk);
      }
      for (const r of readsOf(s)) live.add(r);
    }
  }
  // Union-find over copy-related, non-interfering, same-size pairs.
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.has(r)) r = parent.get(r)!;
    return r;
  };
  const sizeOf = (k: string) => vars.get(k)?.size;
  for (const [a, b] of copies) {
    check();
    const va = vars.get(a);
    const vb = vars.get(b);
    if (!va || !vb || sizeOf(a) !== sizeOf(b)) continue;
    let ra = find(a);
    let rb = find(b);
    if (ra === rb || edges.get(ra)?.has(rb)) continue;
    if (callDefs.has(ra) && callDefs.has(rb)) continue;
    if (callDefs.has(rb)) [ra, rb] = [rb, ra];
    parent.set(rb, ra);
    const target = edges.get(ra) ?? edges.set(ra, new Set()).get(ra)!;
    for (const n of edges.get(rb) ?? []) {
      target.add(n);
      edges.get(n)?.add(ra);
    }
  }
  if (parent.size === 0) return fn;
  const rename = (e: Expr): Expr => {
    if (isVar(e)) {
      const r = find(varKey(e));
      return r === varKey(e) ? e : vars.get(r)!;
    }
    return mapChildren(e, rename);
  };
  const renameVar = (v: Var): Var => (isVar(v) ? rename(v) as Var : v);
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    const stmts: Stmt[] = [];
    for (const s0 of b.stmts) {
      let s = mapStmt(s0, rename);
      if (s.k === "set") s = { ...s, dst: renameVar(s.dst) };
      else if (s.k === "asm") s = { ...s, outs: s.outs.map(renameVar) };
      if (s.k === "set" && isVar(s.src) && varKey(s.src) === varKey(s.dst)) continue;
      stmts.push(s);
    }
    blocks.set(k, { ...b, stmts, term: mapTerm(b.term, rename) });
  }
  return { ...fn, blocks };
}
