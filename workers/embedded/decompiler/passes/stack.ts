/**
 * Stack frames: after propagation every stack address reads `sp₀ + c` (sp₀ = the stack pointer on
 * entry). Loads and stores at such addresses become stack-slot variables when the slot is only
 * ever accessed whole at one offset; a slot whose address escapes (passed to a call, indexed)
 * or that is accessed in overlapping pieces stays memory, reached through its address
 * (`&local_18` then prints as an array).
 */

import { constant, type Expr, type IrFunction, mapChildren, type Slot, type Stmt } from "../ir.ts";
import { substitute } from "../ssa.ts";

/** `c` when `e` is `sp₀ + c` (or `sp₀`). */
export function stackOffset(e: Expr, sp: string): number | undefined {
  if (e.k === "reg" && e.name === sp && e.ver === 0) return 0;
  if (
    e.k === "bin" && e.op === "add" && e.a.k === "reg" && e.a.name === sp && e.a.ver === 0 &&
    e.b.k === "const"
  ) {
    return Number(BigInt.asIntN(e.size * 8, e.b.value));
  }
  return undefined;
}

/** The frame the pass found: slot offsets that are variables, and the memory regions. */
export interface Frame {
  /** Offsets of slots that became variables, with their size. */
  scalars: Map<number, number>;
  /** Offsets of slots that stay memory (arrays), with their size in bytes. */
  arrays: Map<number, number>;
}

/** Rewrites stack accesses of `fn` into slots; returns the new function and its frame. */
export function recoverFrame(fn: IrFunction): { fn: IrFunction; frame: Frame } {
  const sp = fn.arch.sp;
  const accesses = new Map<number, Set<number>>();
  const escaped = new Set<number>();
  const note = (off: number, size: number) => {
    let s = accesses.get(off);
    if (!s) accesses.set(off, s = new Set());
    s.add(size);
  };
  const scan = (e: Expr, asAddress: boolean) => {
    if (e.k === "load") {
      const off = stackOffset(e.addr, sp);
      if (off !== undefined) {
        note(off, e.size);
        return;
      }
      scan(e.addr, true);
      return;
    }
    const off = stackOffset(e, sp);
    if (off !== undefined) {
      if (off !== 0 || asAddress) escaped.add(off);
      return;
    }
    mapChildren(e, (c) => {
      scan(c, e.k === "bin");
      return c;
    });
  };
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) {
      if (s.k === "store") {
        const off = stackOffset(s.addr, sp);
        if (off !== undefined) note(off, s.size);
        else scan(s.addr, true);
        scan(s.value, false);
      } else if (s.k === "set") {
        if (!(s.dst.k === "reg" && s.dst.name === sp)) scan(s.src, false);
      } else if (s.k === "call") {
        s.args.forEach((a) => scan(a, false));
        scan(s.target, false);
      } else if (s.k === "asm") s.args.forEach((a) => scan(a, false));
    }
    for (const p of b.phis) {
      if (!(p.dst.k === "reg" && p.dst.name === sp)) p.args.forEach((a) => scan(a, false));
    }
    if (b.term.k === "branch") scan(b.term.cond, false);
    if (b.term.k === "ret" && b.term.value) scan(b.term.value, false);
    if (b.term.k === "tail") b.term.args.forEach((a) => scan(a, false));
  }
  // Offsets 0.. hold the return address and the caller's frame: a slot ends where the next
  // begins.
  const offsets = [...new Set([...accesses.keys(), ...escaped])].sort((a, b) => a - b);
  const scalars = new Map<number, number>();
  const arrays = new Map<number, number>();
  for (let i = 0; i < offsets.length; i++) {
    const off = offsets[i]!;
    const next = offsets[i + 1];
    const sizes = accesses.get(off) ?? new Set<number>();
    const widest = Math.max(0, ...sizes);
    const room = next === undefined ? Infinity : next - off;
    if (!escaped.has(off) && sizes.size === 1 && widest <= room) scalars.set(off, widest);
    else {
      const end = next ?? (off < 0 ? 0 : off + Math.max(widest, 8));
      arrays.set(off, Math.max(end - off, widest, 1));
    }
  }
  const slotOf = (off: number, size: number): Slot => ({ k: "slot", offset: off, size });
  // The array holding `off`, and the distance into it.
  const arrayAt = (off: number): [number, number] | undefined => {
    for (const [start, size] of arrays) {
      if (off >= start && off < start + size) return [start, off - start];
    }
    return undefined;
  };
  const ptr = fn.arch.ptr;
  const addrOf = (off: number): Expr | undefined => {
    const a = arrayAt(off);
    if (!a) return undefined;
    const base: Expr = { k: "addr", slot: slotOf(a[0], arrays.get(a[0])!), size: ptr };
    return a[1] === 0 ? base : { k: "bin", op: "add", a: base, b: constant(a[1], ptr), size: ptr };
  };
  const rewrite = (e: Expr): Expr | undefined => {
    if (e.k === "load") {
      const off = stackOffset(e.addr, sp);
      if (off !== undefined && scalars.get(off) === e.size) return slotOf(off, e.size);
      if (off !== undefined) {
        const a = addrOf(off);
        if (a) return { ...e, addr: a };
      }
      return undefined;
    }
    const off = stackOffset(e, sp);
    if (off !== undefined && off !== 0) return addrOf(off);
    return undefined;
  };
  const out = substitute(fn, rewrite);
  for (const b of out.blocks.values()) {
    b.stmts = b.stmts.map((s): Stmt => {
      if (s.k !== "store") return s;
      const off = stackOffset(s.addr, sp);
      if (off !== undefined && scalars.get(off) === s.size) {
        return { k: "set", dst: slotOf(off, s.size), src: s.value, at: s.at };
      }
      return s;
    });
  }
  return { fn: out, frame: { scalars, arrays } };
}
