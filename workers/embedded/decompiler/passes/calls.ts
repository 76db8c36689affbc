/**
 * Calling conventions at call sites and at the function's edges. Before SSA every call reads all
 * argument registers and defines every register the convention lets it change, and every return
 * reads the return register; after SSA the reads that carry no value set in this function are
 * dropped: a call keeps the argument registers up to the last one the function wrote, and the
 * function returns a value when some path sets the return register.
 */

import type { CallingConvention } from "../abi/conventions.ts";
import { type Expr, type IrBlock, type IrFunction, type Reg, type Stmt, varKey } from "../ir.ts";

/** What the pass knows about a callee: its argument count (and whether it is variadic). */
export interface CalleeInfo {
  args?: number;
  variadic?: boolean;
  returns?: boolean;
}

const regOf = (name: string, ptr: number): Reg => ({
  k: "reg",
  name,
  size: name.startsWith("xmm") ? 16 : ptr,
});

/** Before SSA: calls read every argument register and define every clobbered one. */
export function prepareCalls(fn: IrFunction, cc: CallingConvention): IrFunction {
  const ptr = fn.arch.ptr;
  const args = cc.args.map((r) => regOf(r, ptr));
  const sp = regOf(fn.arch.sp, ptr);
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    const stmts = b.stmts.map((s): Stmt =>
      s.k === "call"
        ? { ...s, args: [...args, sp], defs: cc.clobbers.map((r) => regOf(r, ptr)) }
        : s
    );
    let term = b.term;
    if (term.k === "ret") term = { ...term, value: regOf(cc.ret, ptr) };
    if (term.k === "tail") term = { ...term, args: [...args, sp], value: regOf(cc.ret, ptr) };
    blocks.set(k, { ...b, stmts, term });
  }
  return { ...fn, blocks };
}

/** The kind of definition of each SSA register: set by a statement, a phi, or a call. */
function definitions(fn: IrFunction): Map<string, "set" | "phi" | "call"> {
  const defs = new Map<string, "set" | "phi" | "call">();
  for (const b of fn.blocks.values()) {
    for (const p of b.phis) defs.set(varKey(p.dst), "phi");
    for (const s of b.stmts) {
      if (s.k === "set") defs.set(varKey(s.dst), "set");
      if (s.k === "call") { for (const d of s.defs) defs.set(varKey(d), "call"); }
    }
  }
  return defs;
}

/**
 * After SSA, before propagation: trims call arguments and return values. `callee(target)` gives
 * what is known of a callee (a prototype); the stack pointer argument stays last for the
 * stack-argument pass.
 */
export function trimCalls(
  fn: IrFunction,
  cc: CallingConvention,
  callee: (target: Expr) => CalleeInfo | undefined,
): IrFunction {
  const defs = definitions(fn);
  const written = (e: Expr) =>
    e.k === "reg" && e.ver !== undefined && e.ver > 0 && defs.get(varKey(e)) !== "call";
  const trim = (args: Expr[], target: Expr): Expr[] => {
    const regs = args.slice(0, cc.args.length);
    const sp = args[cc.args.length];
    const info = callee(target);
    let n = 0;
    regs.forEach((a, i) => {
      if (written(a)) n = i + 1;
    });
    if (info?.args !== undefined) n = info.variadic ? Math.max(n, info.args) : info.args;
    n = Math.min(n, regs.length);
    return sp ? [...regs.slice(0, n), sp] : regs.slice(0, n);
  };
  const blocks = new Map<number, IrBlock>();
  // A value set on some path (not only left behind by a call) is a return value.
  let returns = false;
  for (const b of fn.blocks.values()) {
    const v = b.term.k === "ret" ? b.term.value : undefined;
    if (v && (v.k !== "reg" || (v.ver !== 0 && defs.get(varKey(v)) !== "call"))) returns = true;
  }
  for (const [k, b] of fn.blocks) {
    const stmts = b.stmts.map((s): Stmt =>
      s.k === "call" ? { ...s, args: trim(s.args, s.target) } : s
    );
    let term = b.term;
    if (term.k === "ret" && !returns) term = { k: "ret", at: term.at };
    if (term.k === "tail") {
      const { value: _v, ...rest } = term;
      term = { ...rest, args: trim(term.args, term.target), ...(returns ? { value: _v! } : {}) };
    }
    blocks.set(k, { ...b, stmts, term });
  }
  return { ...fn, blocks };
}

/** After the stack pass: drops the stack-pointer marker argument of calls. */
export function dropStackMarker(fn: IrFunction, cc: CallingConvention): IrFunction {
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    const stmts = b.stmts.map((s): Stmt =>
      s.k === "call" ? { ...s, args: s.args.slice(0, Math.max(0, s.args.length - 1)) } : s
    );
    let term = b.term;
    if (term.k === "tail") {
      term = { ...term, args: term.args.slice(0, Math.max(0, term.args.length - 1)) };
    }
    blocks.set(k, { ...b, stmts, term });
  }
  void cc;
  return { ...fn, blocks };
}
