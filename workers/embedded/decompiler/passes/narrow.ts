/**
 * Narrowing: a register value read only through a truncation to one width (`(uint32_t)rax`)
 * is that width — x86-64 code writes 32-bit registers with an implicit zero extension and reads
 * them back as 32 bits, and C wants a 32-bit variable there, not a 64-bit one cast at every use.
 */

import { type Expr, forEachChild, type IrFunction, mapChildren, type Reg, varKey } from "../ir.ts";
import { substitute } from "../ssa.ts";
import { simplify } from "./simplify.ts";

/** Narrows SSA registers (and entry values) read only through one truncation width. */
export function narrow(fn: IrFunction): IrFunction {
  const widths = new Map<string, number>();
  const blocked = new Set<string>();
  const see = (e: Expr, parent: Expr | undefined) => {
    if (e.k === "reg" && e.ver !== undefined) {
      const k = varKey(e);
      if (parent?.k === "trunc" && parent.size < e.size) {
        const w = widths.get(k);
        if (w === undefined) widths.set(k, parent.size);
        else if (w !== parent.size) blocked.add(k);
      } else blocked.add(k);
      return;
    }
    forEachChild(e, (c) => see(c, e));
  };
  for (const b of fn.blocks.values()) {
    for (const p of b.phis) {
      blocked.add(varKey(p.dst));
      for (const a of p.args) if (a.k === "reg") blocked.add(varKey(a));
    }
    for (const s of b.stmts) {
      const visit = (e: Expr) => see(e, undefined);
      if (s.k === "set") visit(s.src);
      else if (s.k === "store") {
        visit(s.addr);
        visit(s.value);
      } else if (s.k === "call") {
        visit(s.target);
        s.args.forEach(visit);
        for (const d of s.defs) blocked.add(varKey(d));
      } else s.args.forEach(visit);
    }
    const t = b.term;
    const visit = (e: Expr) => see(e, undefined);
    if (t.k === "branch") visit(t.cond);
    else if (t.k === "switch") visit(t.value);
    else if (t.k === "ijump") visit(t.target);
    else if (t.k === "ret" && t.value) visit(t.value);
    else if (t.k === "tail") {
      visit(t.target);
      t.args.forEach(visit);
      if (t.value) visit(t.value);
    }
  }
  const narrowed = new Map<string, number>();
  for (const [k, w] of widths) if (!blocked.has(k)) narrowed.set(k, w);
  if (narrowed.size === 0) return fn;
  const out = substitute(fn, (e) => {
    if (e.k === "trunc" && e.a.k === "reg" && narrowed.get(varKey(e.a)) === e.size) {
      return { ...e.a, size: e.size } as Reg;
    }
    return undefined;
  });
  for (const b of out.blocks.values()) {
    b.stmts = b.stmts.map((s) => {
      if (s.k !== "set" || s.dst.k !== "reg") return s;
      const w = narrowed.get(varKey(s.dst));
      if (w === undefined) return s;
      return {
        ...s,
        dst: { ...s.dst, size: w },
        src: simplify({ k: "trunc", a: s.src, size: w }),
      };
    });
  }
  void mapChildren;
  return out;
}
