/**
 * Dead-code elimination: assignments to registers and temporaries nobody reads, phis nobody
 * reads (also in cycles of phis), and stores to stack slots that are never read and whose address
 * never escapes.
 * Calls, stores to memory and `__asm_` statements always stay.
 */

import { type Expr, forEachChild, type IrFunction, stmtReads, termReads, varKey } from "../ir.ts";

/**
 * Removes dead definitions: live is what statements with effects and terminators read, and what
 * live definitions read (one marking from those roots, then one sweep). This removes at once
 * what dropping unread definitions round after round would, and the definitions read only by
 * each other (a loop phi that feeds itself and nothing else).
 */
export function eliminateDeadCode(fn: IrFunction): IrFunction {
  const sources = new Map<string, Expr[]>();
  const live = new Set<string>();
  const work: string[] = [];
  const mark = (e: Expr): void => {
    if (e.k === "reg" || e.k === "tmp" || e.k === "slot" || e.k === "addr") {
      const k = varKey(e.k === "addr" ? e.slot : e);
      if (!live.has(k)) {
        live.add(k);
        work.push(k);
      }
      return;
    }
    forEachChild(e, mark);
  };
  const add = (k: string, e: Expr) => {
    const list = sources.get(k);
    if (list) list.push(e);
    else sources.set(k, [e]);
  };
  for (const b of fn.blocks.values()) {
    for (const p of b.phis) for (const a of p.args) add(varKey(p.dst), a);
    for (const s of b.stmts) {
      if (s.k === "set") add(varKey(s.dst), s.src);
      else stmtReads(s, mark);
    }
    termReads(b.term, mark);
  }
  for (let k = work.pop(); k !== undefined; k = work.pop()) {
    for (const e of sources.get(k) ?? []) mark(e);
  }
  let removed = false;
  const blocks = new Map(fn.blocks);
  for (const [k, b] of fn.blocks) {
    const stmts = b.stmts.filter((s) => s.k !== "set" || live.has(varKey(s.dst)));
    const phis = b.phis.filter((p) => live.has(varKey(p.dst)));
    if (stmts.length !== b.stmts.length || phis.length !== b.phis.length) {
      removed = true;
      blocks.set(k, { ...b, stmts, phis });
    }
  }
  return removed ? { ...fn, blocks } : fn;
}
