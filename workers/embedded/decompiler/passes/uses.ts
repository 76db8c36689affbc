/** Use counts and definition sites of SSA variables, the facts propagation and DCE share. */

import { type Expr, forEachChild, type IrFunction, stmtReads, termReads, varKey } from "../ir.ts";

/** Where a variable is read: block, and statement index (`-1` phi, `Infinity` terminator). */
export interface UseSite {
  block: number;
  index: number;
}

/** Use counts by {@link varKey}, and each variable's last use site. */
export interface Uses {
  count: Map<string, number>;
  site: Map<string, UseSite>;
  /** Variables read by phis. */
  inPhi: Set<string>;
}

/** Counts every read of every register, temporary and slot in `fn`. */
export function countUses(fn: IrFunction): Uses {
  const count = new Map<string, number>();
  const site = new Map<string, UseSite>();
  const inPhi = new Set<string>();
  // The site of the expressions being visited (one object per statement, kept by `site`).
  let at: UseSite = { block: 0, index: 0 };
  const see = (k: string) => {
    count.set(k, (count.get(k) ?? 0) + 1);
    site.set(k, at);
  };
  // Explicit recursion over {@link forEachChild}'s children: this runs over the whole function
  // in every propagation round, and a closure per node was most of its cost.
  const visit = (e: Expr): void => {
    switch (e.k) {
      case "reg":
      case "tmp":
      case "slot": {
        const k = varKey(e);
        see(k);
        if (at.index === -1) inPhi.add(k);
        return;
      }
      case "addr":
        see(varKey(e.slot));
        return;
      case "load":
        visit(e.addr);
        return;
      case "bin":
        visit(e.a);
        visit(e.b);
        return;
      case "un":
      case "ext":
      case "trunc":
        visit(e.a);
        return;
      case "select":
        visit(e.c);
        visit(e.t);
        visit(e.f);
        return;
      case "intr":
        for (const a of e.args) visit(a);
        return;
    }
  };
  for (const b of fn.blocks.values()) {
    if (b.phis.length > 0) {
      at = { block: b.start, index: -1 };
      for (const p of b.phis) for (const a of p.args) visit(a);
    }
    for (let i = 0; i < b.stmts.length; i++) {
      at = { block: b.start, index: i };
      stmtReads(b.stmts[i]!, visit);
    }
    at = { block: b.start, index: Infinity };
    termReads(b.term, visit);
  }
  return { count, site, inPhi };
}

/** Whether `e` reads memory or a stack slot (whose value a store or call may change). */
export function readsMemory(e: Expr): boolean {
  switch (e.k) {
    case "load":
    case "slot":
      return true;
    case "bin":
      return readsMemory(e.a) || readsMemory(e.b);
    case "un":
    case "ext":
    case "trunc":
      return readsMemory(e.a);
    case "select":
      return readsMemory(e.c) || readsMemory(e.t) || readsMemory(e.f);
    case "intr":
      return e.args.some(readsMemory);
    default:
      return false;
  }
}

/** Number of nodes in `e`. */
export function exprSize(e: Expr): number {
  let n = 1;
  forEachChild(e, (c) => (n += exprSize(c)));
  return n;
}

/** Whether `e` has more than `limit` nodes (counting stops there). */
export function exprLarger(e: Expr, limit: number): boolean {
  let n = 0;
  const visit = (x: Expr): void => {
    if (++n > limit) return;
    forEachChild(x, visit);
  };
  visit(e);
  return n > limit;
}
