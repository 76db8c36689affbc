/**
 * Dead-code elimination: assignments to registers and temporaries nobody reads, phis nobody
 * reads, and stores to stack slots that are never read and whose address never escapes.
 * Calls, stores to memory and `__asm_` statements always stay.
 */

import { type IrFunction, type Stmt, varKey } from "../ir.ts";
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
    if (!removed) return cur;
  }
  return cur;
}
