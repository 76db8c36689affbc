/** Use counts and definition sites of SSA variables, the facts propagation and DCE share. */

import {
  type Expr,
  forEachChild,
  type IrFunction,
  someChild,
  stmtReads,
  termReads,
  varKey,
} from "../ir.ts";

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
  // One visitor for the whole function (the current site is `at`): this runs over the whole
  // function in every propagation round, and a closure per node was most of its cost.
  const visit = (e: Expr): void => {
    if (e.k === "reg" || e.k === "tmp" || e.k === "slot") {
      const k = varKey(e);
      see(k);
      if (at.index === -1) inPhi.add(k);
      return;
    }
    if (e.k === "addr") {
      see(varKey(e.slot));
      return;
    }
    forEachChild(e, visit);
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
  return e.k === "load" || e.k === "slot" || someChild(e, readsMemory);
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
