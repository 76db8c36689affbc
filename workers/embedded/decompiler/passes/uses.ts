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
  const visit = (e: Expr, s: UseSite) => {
    if (e.k === "reg" || e.k === "tmp" || e.k === "slot") {
      const k = varKey(e);
      count.set(k, (count.get(k) ?? 0) + 1);
      site.set(k, s);
      if (s.index === -1) inPhi.add(k);
      return;
    }
    if (e.k === "addr") {
      const k = varKey(e.slot);
      count.set(k, (count.get(k) ?? 0) + 1);
      site.set(k, s);
      return;
    }
    forEachChild(e, (c) => visit(c, s));
  };
  for (const b of fn.blocks.values()) {
    for (const p of b.phis) for (const a of p.args) visit(a, { block: b.start, index: -1 });
    b.stmts.forEach((s, i) => stmtReads(s, (e) => visit(e, { block: b.start, index: i })));
    termReads(b.term, (e) => visit(e, { block: b.start, index: Infinity }));
  }
  return { count, site, inPhi };
}

/** Whether `e` reads memory or a stack slot (whose value a store or call may change). */
export function readsMemory(e: Expr): boolean {
  if (e.k === "load" || e.k === "slot") return true;
  let found = false;
  forEachChild(e, (c) => {
    if (!found && readsMemory(c)) found = true;
  });
  return found;
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
