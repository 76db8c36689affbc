/**
 * Calling conventions at call sites and at the function's edges. Before SSA every call reads all
 * argument registers and defines every register the convention lets it change, and every return
 * reads the return register; after SSA the reads that carry no value set in this function are
 * dropped: a call keeps the argument registers up to the last one the function wrote, and the
 * function returns a value when some path sets the return register.
 */

import type { CallingConvention } from "../abi/conventions.ts";
import { type Expr, type IrBlock, type IrFunction, type Reg, type Stmt, varKey } from "../ir.ts";
import { countUses } from "./uses.ts";
import { stackOffset } from "./stack.ts";

/** What the pass knows about a callee: its argument count (and whether it is variadic). */
export interface CalleeInfo {
  args?: number;
  variadic?: boolean;
  returns?: boolean;
  /** Index of a printf-style format argument: its conversions give the variadic count. */
  format?: number;
}

/** What trimming asks about the program. */
export interface CallFacts {
  callee(target: Expr): CalleeInfo | undefined;
  /** Arguments a format string at `address` consumes, when a string is there. */
  formatArgs(address: number): number | undefined;
  /** The function's own address: a recursive call passes as many arguments as it takes. */
  self?: number;
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

interface Def {
  kind: "set" | "phi" | "call";
  block: number;
  index: number;
  src?: Expr;
  target?: Expr;
}

/** Where and how each SSA register is defined. */
function definitions(fn: IrFunction): Map<string, Def> {
  const defs = new Map<string, Def>();
  for (const b of fn.blocks.values()) {
    for (const p of b.phis) defs.set(varKey(p.dst), { kind: "phi", block: b.start, index: -1 });
    b.stmts.forEach((s, index) => {
      if (s.k === "set") {
        defs.set(varKey(s.dst), { kind: "set", block: b.start, index, src: s.src });
      }
      if (s.k === "call") {
        for (const d of s.defs) {
          defs.set(varKey(d), { kind: "call", block: b.start, index, target: s.target });
        }
      }
    });
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
  facts: CallFacts,
): IrFunction {
  const defs = definitions(fn);
  // An argument register counts when this block set it since the previous call: registers set
  // elsewhere are more often scratch values than arguments.
  // Or when the value set is read by nothing but calls, in this argument position (a compiler
  // hoists `mov edi, esi` out of switch cases).
  const uses = countUses(fn);
  const argUses = new Map<string, number>();
  const countArgs = (args: Expr[]) =>
    args.slice(0, cc.args.length).forEach((a, i) => {
      if (a.k === "reg" && a.name === cc.args[i]) {
        argUses.set(varKey(a), (argUses.get(varKey(a)) ?? 0) + 1);
      }
    });
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) if (s.k === "call") countArgs(s.args);
    if (b.term.k === "tail") countArgs(b.term.args);
  }
  // The function's own register parameters: argument registers read on entry other than to be
  // passed on.
  let ownParams = 0;
  cc.args.forEach((r, i) => {
    const key = `${r}.0`;
    if ((uses.count.get(key) ?? 0) > (argUses.get(key) ?? 0)) ownParams = i + 1;
  });
  const calleeInfo = (target: Expr): CalleeInfo | undefined => {
    const info = facts.callee(target);
    if (info) return info;
    if (target.k === "const" && facts.self !== undefined && Number(target.value) === facts.self) {
      return { args: ownParams };
    }
    return undefined;
  };
  const setHere = (e: Expr, block: number, after: number, before: number) => {
    if (e.k !== "reg" || !e.ver) return false;
    const d = defs.get(varKey(e));
    if (d?.kind !== "set") return false;
    if (d.block === block && d.index > after && d.index < before) return true;
    return (argUses.get(varKey(e)) ?? 0) === (uses.count.get(varKey(e)) ?? 0);
  };
  const constantOf = (e: Expr): number | undefined => {
    if (e.k === "const") return Number(e.value);
    const d = e.k === "reg" ? defs.get(varKey(e)) : undefined;
    return d?.src?.k === "const" ? Number(d.src.value) : undefined;
  };
  const trim = (args: Expr[], target: Expr, block: number, after: number, before: number) => {
    const regs = args.slice(0, cc.args.length);
    const sp = args[cc.args.length];
    const info = calleeInfo(target);
    let n = 0;
    regs.forEach((a, i) => {
      if (setHere(a, block, after, before)) n = i + 1;
    });
    if (info?.args !== undefined) {
      n = info.variadic ? Math.max(n, info.args) : info.args;
      const f = info.format;
      const fmt = f !== undefined && regs[f] ? constantOf(regs[f]!) : undefined;
      const count = fmt !== undefined ? facts.formatArgs(fmt) : undefined;
      if (info.variadic && f !== undefined && count !== undefined) n = info.args + count;
    }
    n = Math.min(n, regs.length);
    return sp ? [...regs.slice(0, n), sp] : regs.slice(0, n);
  };
  // A value set on some path (not only left behind by a call) is a return value; so is a call's
  // when the callee is known to return one.
  let returns = false;
  for (const b of fn.blocks.values()) {
    const v = b.term.k === "ret" ? b.term.value : undefined;
    if (!v) continue;
    const d = v.k === "reg" ? defs.get(varKey(v)) : undefined;
    if (v.k !== "reg" || (v.ver !== 0 && d?.kind !== "call")) returns = true;
    else if (d?.kind === "call" && d.target && facts.callee(d.target)?.returns) returns = true;
  }
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    let lastCall = -1;
    const stmts = b.stmts.map((s, i): Stmt => {
      if (s.k !== "call") return s;
      const out = { ...s, args: trim(s.args, s.target, k, lastCall, i) };
      lastCall = i;
      return out;
    });
    let term = b.term;
    if (term.k === "ret" && !returns) term = { k: "ret", at: term.at };
    if (term.k === "tail") {
      const { value: _v, ...rest } = term;
      term = {
        ...rest,
        args: trim(term.args, term.target, k, lastCall, Infinity),
        ...(returns || facts.callee(term.target)?.returns ? { value: _v! } : {}),
      };
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

/**
 * Stack arguments (cdecl and the other 32-bit conventions): the stores a block makes at the
 * stack pointer of a call, `[sp]`, `[sp+4]`, …, since the previous call, become the call's
 * arguments. How many: the callee's prototype or summary, else the run of stores found. Runs
 * after propagation, while the call's last argument still marks its stack pointer.
 */
export function stackArguments(
  fn: IrFunction,
  cc: CallingConvention,
  facts: CallFacts,
): IrFunction {
  const sp = fn.arch.sp;
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    const removed = new Set<number>();
    let prevCall = -1;
    const replaced = new Map<number, Stmt>();
    b.stmts.forEach((s, i) => {
      if (s.k !== "call") return;
      const from = prevCall;
      prevCall = i;
      const marker = s.args[s.args.length - 1];
      const base = marker ? stackOffset(marker, sp) : undefined;
      if (base === undefined) return;
      const stores = new Map<number, number>();
      for (let j = i - 1; j > from; j--) {
        const st = b.stmts[j]!;
        if (st.k !== "store") continue;
        const o = stackOffset(st.addr, sp);
        if (o === undefined || o < base || (o - base) % cc.slot !== 0) continue;
        if (!stores.has(o)) stores.set(o, j);
      }
      const info = facts.callee(s.target);
      let want = info?.args;
      if (info?.variadic) want = undefined;
      const args: Expr[] = [];
      for (let n = 0; want === undefined ? n < 16 : n < want; n++) {
        const j = stores.get(base + n * cc.slot);
        if (j === undefined) break;
        const st = b.stmts[j]!;
        if (st.k !== "store") break;
        args.push(st.value);
        removed.add(j);
      }
      replaced.set(i, { ...s, args: [...s.args.slice(0, -1), ...args, marker!] });
    });
    if (replaced.size === 0) {
      blocks.set(k, b);
      continue;
    }
    const stmts = b.stmts.flatMap((s, i) => removed.has(i) ? [] : [replaced.get(i) ?? s]);
    blocks.set(k, { ...b, stmts });
  }
  return { ...fn, blocks };
}
