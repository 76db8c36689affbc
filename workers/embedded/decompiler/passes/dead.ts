/**
 * Dead-code elimination: assignments to registers and temporaries nobody reads, phis nobody
 * reads (also in cycles of phis), and stores to stack slots that are never read and whose address
 * never escapes.
 * Calls, stores to memory and `__asm_` statements always stay.
 */

import {
  type Expr,
  forEachChild,
  type IrFunction,
  type Stmt,
  stmtReads,
  termReads,
  varKey,
} from "../ir.ts";
import { countUses } from "./uses.ts";

/** Removes dead definitions until none is left. */
export function eliminateDeadCode(fn: IrFunction): IrFunction {
  let cur = fn;
  for (let round = 0; round < 1000; round++) {
    const uses = countUses(cur);
    const live = (key: string) => (uses.count.get(key) ?? 0) > 0;
    let removed = false;
    const blocks = new Map(cur.blocks);
    for (const [k, b] of cur.blocks) {
      const stmts: Stmt[] = b.stmts.filter((s) => {
        if (s.k !== "set") return true;
        if (live(varKey(s.dst))) return true;
        removed = true;
        return false;
      });
      const phis = b.phis.filter((p) => {
        if (live(varKey(p.dst))) return true;
        removed = true;
        return false;
      });
      if (stmts.length !== b.stmts.length || phis.length !== b.phis.length) {
        blocks.set(k, { ...b, stmts, phis });
      }
    }
    cur = { ...cur, blocks };
    if (!removed) return deadCycles(cur);
  }
  return cur;
}

/**
 * Definitions read only by each other (a loop phi that feeds itself and nothing else): live is
 * what statements with effects and terminators read, and what live definitions read.
 */
function deadCycles(fn: IrFunction): IrFunction {
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
