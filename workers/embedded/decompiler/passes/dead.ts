/**
 * Dead-code elimination: assignments to registers and temporaries nobody reads, phis nobody
 * reads (also in cycles of phis), and stores to stack slots that are never read and whose address
 * never escapes.
 * Calls, stores to memory and `__asm_` statements always stay.
 */

import {
  type Expr,
  forEachChild,
  type IrBlock,
  type IrFunction,
  type Phi,
  type Stmt,
  stmtReads,
  termReads,
  varKey,
} from "../ir.ts";

/**
 * Removes dead definitions: live is what statements with effects and terminators read, and what
 * live definitions read (one marking from those roots, then one sweep). This removes at once
 * what dropping unread definitions round after round would, and the definitions read only by
 * each other (a loop phi that feeds itself and nothing else).
 */
export function eliminateDeadCode(fn: IrFunction): IrFunction {
  // The values each variable is set from: one expression (most), or a phi's several.
  const sources = new Map<string, Expr | Expr[]>();
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
    const got = sources.get(k);
    if (got === undefined) sources.set(k, e);
    else if (Array.isArray(got)) got.push(e);
    else sources.set(k, [got, e]);
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
    const got = sources.get(k);
    if (got === undefined) continue;
    if (Array.isArray(got)) { for (const e of got) mark(e); }
    else mark(got);
  }
  const liveStmt = (s: Stmt) => s.k !== "set" || live.has(varKey(s.dst));
  const livePhi = (p: Phi) => live.has(varKey(p.dst));
  let blocks: Map<number, IrBlock> | undefined;
  for (const [k, b] of fn.blocks) {
    // Most blocks lose nothing: they are kept as they are, without copying.
    if (b.stmts.every(liveStmt) && b.phis.every(livePhi)) continue;
    blocks ??= new Map(fn.blocks);
    blocks.set(k, { ...b, stmts: b.stmts.filter(liveStmt), phis: b.phis.filter(livePhi) });
  }
  return blocks ? { ...fn, blocks } : fn;
}
