/**
 * Out of SSA: each phi gets a variable of its own, assigned at the end of every predecessor and
 * copied into the phi's result at the head of its block (Sreedhar et al.'s method I, which is
 * correct with critical edges and swaps); copies whose two sides never hold different values at
 * once are merged afterwards by the namer.
 */

import type { IrBlock, IrFunction, Stmt, Tmp } from "../ir.ts";
import { predecessors } from "../ir.ts";

/** Replaces phis by copies. `nextTmp` is the first unused temporary id. */
export function leaveSsa(fn: IrFunction, nextTmp: number): IrFunction {
  const preds = predecessors(fn);
  const tail = new Map<number, Stmt[]>();
  const head = new Map<number, Stmt[]>();
  let id = nextTmp;
  for (const b of fn.blocks.values()) {
    const ps = preds.get(b.start) ?? [];
    for (const phi of b.phis) {
      const t: Tmp = { k: "tmp", id: id++, size: phi.dst.size };
      ps.forEach((p, i) => {
        const arg = phi.args[i];
        if (!arg) return;
        const list = tail.get(p) ?? [];
        list.push({ k: "set", dst: t, src: arg, at: fn.blocks.get(p)?.term.at ?? b.start });
        tail.set(p, list);
      });
      const list = head.get(b.start) ?? [];
      list.push({ k: "set", dst: phi.dst, src: t, at: b.start });
      head.set(b.start, list);
    }
  }
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    blocks.set(k, {
      ...b,
      phis: [],
      stmts: [...(head.get(k) ?? []), ...b.stmts, ...(tail.get(k) ?? [])],
    });
  }
  return { ...fn, blocks };
}
