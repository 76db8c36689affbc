/**
 * Calling conventions at call sites and at the function's edges. Before SSA every call reads all
 * argument registers and defines every register the convention lets it change, and every return
 * reads the return register; after SSA the reads that carry no value set in this function are
 * dropped: a call keeps the argument registers up to the last one the function wrote, and the
 * function returns a value when some path sets the return register.
 */

import type { CallingConvention } from "../abi/conventions.ts";
import {
  type BinOp,
  constant,
  type Expr,
  type IrBlock,
  type IrFunction,
  joinHalves,
  namedRegisters,
  type Reg,
  type Stmt,
  varKey,
} from "../ir.ts";
import { countUses, type Uses } from "./uses.ts";
import { isFloatResult } from "../float.ts";
import { stackOffset } from "./stack.ts";
import { simplify } from "./simplify.ts";

/** What the pass knows about a callee: its argument count (and whether it is variadic). */
export interface CalleeInfo {
  /** Integer (and pointer) arguments. */
  args?: number;
  /** Floating-point arguments. */
  floatArgs?: number;
  /** Whether the return value is floating point. */
  floatReturn?: boolean;
  variadic?: boolean;
  returns?: boolean;
  /** Index of a printf-style format argument: its conversions give the variadic count. */
  format?: number;
  /** Whether it takes the address of its large result in the convention's indirectResult. */
  indirectResult?: boolean;
  /** Whether it returns a double-width integer in the convention's `retHigh` pair (`edx:eax`). */
  wideReturn?: boolean;
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
  // xmm registers are 8-byte halves in the IR; st0 an x87 extended value.
  size: name.startsWith("xmm") ? 8 : name === "st0" ? 10 : ptr,
});

/** The statement before a return that marks the float return register's value there. */
const FLOAT_RET = "__float_return";
/** The statement before a return that marks the high return register's value (`edx`). */
const HIGH_RET = "__high_return";

/**
 * Before SSA: calls read every argument register (integer ones, then float ones, then the
 * stack pointer) and define every clobbered one; returns read the return register, and a marker
 * before each return reads the float return register, for {@link trimCalls} to choose.
 */
export function prepareCalls(
  fn: IrFunction,
  cc: CallingConvention,
  wideCall?: (target: Expr) => boolean,
): IrFunction {
  const ptr = fn.arch.ptr;
  // Vector and x87 registers the function never names cannot carry a value into or out of a
  // call here: leaving them out keeps SSA small (there are 32 xmm halves and they are rare).
  const named = namedRegisters(fn);
  const rare = (r: string) =>
    /^(xmm|st)/.test(r) && r !== cc.floatRet && !named.read.has(r) && !named.written.has(r);
  const floatArgs = (cc.floatArgs ?? []).filter((r) => !rare(r));
  const indirect = cc.indirectResult ? [cc.indirectResult] : [];
  const args = [...cc.args, ...floatArgs, ...indirect].map((r) => regOf(r, ptr));
  const clobbers = cc.clobbers.filter((r) => !rare(r)).map((r) => regOf(r, ptr));
  const sp = regOf(fn.arch.sp, ptr);
  const blocks = new Map<number, IrBlock>();
  const high = cc.retHigh;
  for (const [k, b] of fn.blocks) {
    const stmts = b.stmts.flatMap((s): Stmt[] => {
      if (s.k !== "call") return [s];
      const call: Stmt = { ...s, args: [...args, sp], defs: clobbers };
      if (!high || !wideCall?.(s.target)) return [call];
      // A callee returning `long long` in edx:eax: the call defines the pair, the halves are
      // read from it.
      const pair: Reg = { k: "reg", name: high.pair, size: ptr * 2 };
      const lo: Expr = { k: "trunc", a: pair, size: ptr };
      const hi: Expr = {
        k: "trunc",
        a: {
          k: "bin",
          op: "shr",
          a: pair,
          b: { k: "const", value: BigInt(ptr * 8), size: 1 },
          size: ptr * 2,
        },
        size: ptr,
      };
      return [
        { ...call, defs: [...clobbers, pair] },
        { k: "set", dst: regOf(cc.ret, ptr), src: lo, at: s.at },
        { k: "set", dst: regOf(high.reg, ptr), src: hi, at: s.at },
      ];
    });
    let term = b.term;
    if (term.k === "ret") {
      term = { ...term, value: regOf(cc.ret, ptr) };
      if (high) {
        stmts.push({
          k: "asm",
          name: HIGH_RET,
          args: [regOf(high.reg, ptr)],
          outs: [],
          at: term.at,
        });
      }
      if (cc.floatRet) {
        stmts.push({
          k: "asm",
          name: FLOAT_RET,
          args: [regOf(cc.floatRet, ptr)],
          outs: [],
          at: term.at,
        });
      }
    }
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
        // One record for all the registers a call defines (a dozen or more per call).
        const def: Def = { kind: "call", block: b.start, index, target: s.target };
        for (const d of s.defs) defs.set(varKey(d), def);
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
    // The float argument registers the function names (prepareCalls leaves the others out),
    // then the stack pointer, last.
    const sp = args.length > cc.args.length ? args[args.length - 1] : undefined;
    const named = new Map(
      args.slice(cc.args.length, -1).flatMap((a) => a.k === "reg" ? [[a.name, a] as const] : []),
    );
    const floatRegs: Expr[] = [];
    for (const r of cc.floatArgs ?? []) {
      const a = named.get(r);
      if (!a) break;
      floatRegs.push(a);
    }
    const info = calleeInfo(target);
    let n = 0;
    regs.forEach((a, i) => {
      if (setHere(a, block, after, before)) n = i + 1;
    });
    let f = 0;
    floatRegs.forEach((a, i) => {
      if (setHere(a, block, after, before)) f = i + 1;
    });
    if (info?.args !== undefined && !info.variadic) f = info.floatArgs ?? 0;
    f = Math.min(f, floatRegs.length);
    const floats = floatRegs.slice(0, f);
    if (info?.args !== undefined) {
      n = info.variadic ? Math.max(n, info.args) : info.args;
      const f = info.format;
      const fmt = f !== undefined && regs[f] ? constantOf(regs[f]!) : undefined;
      const count = fmt !== undefined ? facts.formatArgs(fmt) : undefined;
      if (info.variadic && f !== undefined && count !== undefined) n = info.args + count;
    }
    n = Math.min(n, regs.length);
    if (cc.positional) {
      // One position per argument: an integer register or the float one of its position.
      const out: Expr[] = [];
      for (let i = 0; i < Math.max(n, f); i++) {
        const float = i < f && (i >= n || !setHere(regs[i]!, block, after, before));
        out.push(float ? floats[i]! : regs[i]!);
      }
      return sp ? [...out, sp] : out;
    }
    // The address of a large result the callee writes (AAPCS64's x8), first.
    const hidden = info?.indirectResult && cc.indirectResult
      ? named.get(cc.indirectResult)
      : undefined;
    const kept = [...(hidden ? [hidden] : []), ...regs.slice(0, n), ...floats];
    return sp ? [...kept, sp] : kept;
  };
  // A value set on some path (not only left behind by a call) is a return value; so is a call's
  // when the callee is known to return one.
  const returnsValue = (v: Expr | undefined, float: boolean) => {
    if (!v) return false;
    const d = v.k === "reg" ? defs.get(varKey(v)) : undefined;
    if (v.k !== "reg" || (v.ver !== 0 && d?.kind !== "call")) return true;
    const info = d?.kind === "call" && d.target ? facts.callee(d.target) : undefined;
    return info?.returns === true && (info.floatReturn ?? false) === float;
  };
  const floatRet = (b: IrBlock): Expr | undefined => {
    const s = b.stmts.at(-1);
    return s?.k === "asm" && s.name === FLOAT_RET ? s.args[0] : undefined;
  };
  const rets = [...fn.blocks.values()].filter((b) => b.term.k === "ret");
  const intSet = rets.some((b) => returnsValue((b.term as { value?: Expr }).value, false));
  const floatSet = rets.some((b) => returnsValue(floatRet(b), true));
  let returns = intSet;
  let returnsFloat = false;
  if (floatSet) {
    // Both registers set: the one whose values are computed for the return (read by nothing
    // but phis and returns) is the return value; when that does not decide, float arithmetic
    // reaching the float register does.
    const returned = (float: boolean) => (target: Expr) => {
      const info = facts.callee(target);
      return info?.returns === true && (info.floatReturn ?? false) === float;
    };
    const int = returnShape(
      fn,
      defs,
      uses,
      rets.map((b) => (b.term as { value?: Expr }).value),
      returned(false),
    );
    const float = returnShape(fn, defs, uses, rets.map(floatRet), returned(true));
    // Entry values and other calls' leftovers in the float register are no return value.
    returnsFloat = float.sets > 0 &&
      (!intSet || int.sets === 0 || (float.dedicated && !int.dedicated) ||
        (float.dedicated === int.dedicated && float.arithmetic));
    returns = !returnsFloat;
  }
  // A double-width return (`long long` in edx:eax) when the high register's values reaching
  // the returns are set here (or returned so by a callee) and either computed for the return
  // alone or carried from the low half (`add eax, …; adc edx, …` accumulating in a loop). A
  // value the function also uses for something else is a scratch value left behind.
  const highRet = (b: IrBlock): Expr | undefined => {
    const s = b.stmts.slice(-2).find((x) => x.k === "asm" && x.name === HIGH_RET);
    return s?.k === "asm" ? s.args[0] : undefined;
  };
  let wide = false;
  if (cc.retHigh && returns) {
    const high = returnShape(
      fn,
      defs,
      uses,
      rets.map(highRet),
      (target) => facts.callee(target)?.wideReturn === true,
    );
    wide = high.sets > 0 && (high.dedicated || high.carries);
  }
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of fn.blocks) {
    let lastCall = -1;
    const fret = floatRet(b);
    const hret = highRet(b);
    const markers = (fret ? 1 : 0) + (hret ? 1 : 0);
    const stmts = b.stmts.slice(0, b.stmts.length - markers).map((s, i): Stmt => {
      if (s.k !== "call") return s;
      const out = { ...s, args: trim(s.args, s.target, k, lastCall, i) };
      lastCall = i;
      return out;
    });
    let term = b.term;
    if (term.k === "ret" && returnsFloat && fret) term = { k: "ret", value: fret, at: term.at };
    else if (term.k === "ret" && !returns) term = { k: "ret", at: term.at };
    else if (term.k === "ret" && wide && hret && term.value) {
      term = { k: "ret", value: joinHalves(hret, term.value), at: term.at };
    }
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

/**
 * How the values reaching returns (through phis) were made: `sets` values set in the function
 * or returned by a callee known to return that kind (not entry values or leftovers), `dedicated` when each is read only by phis and returns,
 * `arithmetic` when one is a float operation.
 */
function returnShape(
  fn: IrFunction,
  defs: Map<string, Def>,
  uses: Uses,
  values: (Expr | undefined)[],
  returnedBy: (target: Expr) => boolean,
): { dedicated: boolean; arithmetic: boolean; sets: number; carries: boolean } {
  const phiArgs = new Map<string, Expr[]>();
  for (const b of fn.blocks.values()) for (const p of b.phis) phiArgs.set(varKey(p.dst), p.args);
  // The phis that merge return values; a read by one of them (or by a return) is benign, a read
  // by a loop's phi is not (the value goes on to be used in the loop).
  const merging = new Set<string>();
  const collect = (e: Expr | undefined): void => {
    if (e?.k !== "reg" || merging.has(varKey(e)) || !phiArgs.has(varKey(e))) return;
    merging.add(varKey(e));
    phiArgs.get(varKey(e))!.forEach(collect);
  };
  values.forEach(collect);
  const benign = new Map<string, number>();
  const note = (e: Expr) => {
    if (e.k === "reg") benign.set(varKey(e), (benign.get(varKey(e)) ?? 0) + 1);
  };
  for (const b of fn.blocks.values()) {
    for (const p of b.phis) if (merging.has(varKey(p.dst))) p.args.forEach(note);
    if (b.term.k === "ret" && b.term.value) note(b.term.value);
    for (const last of b.stmts.slice(-2)) {
      if (last.k === "asm" && (last.name === FLOAT_RET || last.name === HIGH_RET)) {
        last.args.forEach(note);
      }
    }
  }
  let dedicated = true;
  let arithmetic = false;
  let carries = false;
  let sets = 0;
  const seen = new Set<string>();
  const walk = (e: Expr | undefined) => {
    if (!e || e.k !== "reg" || seen.has(varKey(e))) return;
    const k = varKey(e);
    seen.add(k);
    const d = defs.get(k);
    if (d?.kind === "call" && d.target && returnedBy(d.target)) sets++;
    if (d?.kind === "call" || (d === undefined && e.ver === 0)) return;
    if ((uses.count.get(k) ?? 0) > (benign.get(k) ?? 0)) dedicated = false;
    const args = phiArgs.get(k);
    if (args) return args.forEach(walk);
    if (d?.kind !== "set") return;
    sets++;
    // Through copies (`xmm0 = t5`) to the operation that made the value.
    let src = d.src;
    for (let i = 0; i < 8 && src && (src.k === "tmp" || src.k === "reg"); i++) {
      src = defs.get(varKey(src))?.src;
    }
    if (src && isFloatResult(src)) arithmetic = true;
    // Through copies and negations (`neg eax; adc edx, 0; neg edx` negates a pair) to an
    // `adc`/`sbb`.
    for (let i = 0; i < 8 && src && !carries; i++) {
      if (withCarry(src)) carries = true;
      else if (src.k === "un") src = src.a;
      else if (src.k === "tmp" || src.k === "reg") src = defs.get(varKey(src))?.src;
      else break;
    }
  };
  values.forEach(walk);
  return { dedicated, arithmetic, sets, carries };
}

/** `x + y + carry` or `x - y - borrow` (adc, sbb): a high half computed from a low one's carry. */
function withCarry(e: Expr): boolean {
  return e.k === "bin" && (e.op === "add" || e.op === "sub") &&
    (e.b.k === "ext" && !e.b.signed && e.b.a.size === 1);
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
 * after propagation, while the call's last argument still marks its stack pointer. Under a
 * convention with argument registers (AAPCS64), only the arguments a known callee takes beyond
 * its registers: the ninth integer argument on is stored at `[sp]`, `[sp+8]`, ….
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
    const replaced = new Map<number, Stmt>();
    // The arguments of the call at `i` (or of the tail call, at the block's end) whose stack
    // pointer, `marker`, is `skip` bytes above its first argument.
    const collect = (i: number, from: number, target: Expr, marker: Expr, skip: number) => {
      const at0 = stackOffset(marker, sp);
      if (at0 === undefined) return undefined;
      const base = at0 + skip;
      const stores = new Map<number, number>();
      for (let j = i - 1; j > from; j--) {
        const st = b.stmts[j]!;
        if (st.k !== "store") continue;
        const o = stackOffset(st.addr, sp);
        if (o === undefined || o < base || (o - base) % cc.slot !== 0) continue;
        if (!stores.has(o)) stores.set(o, j);
      }
      const info = facts.callee(target);
      let want = info?.args;
      // Without float argument registers (cdecl) a `double` is a stack argument too.
      if (want !== undefined && (cc.floatArgs ?? []).length === 0) want += info?.floatArgs ?? 0;
      if (info?.variadic) want = undefined;
      if (cc.args.length > 0) {
        if (want === undefined || want <= cc.args.length) return undefined;
        want -= cc.args.length;
      }
      // A tail call's stores are to the function's own incoming arguments: only a known count.
      if (skip > 0 && want === undefined) return undefined;
      const args: Expr[] = [];
      let at = base;
      // A tail call passes on an incoming argument it does not change where it found it (clang
      // -O2's `jmp sqrt`): where every argument is a double, each unwritten one is read there.
      const spReg = marker.k === "bin" ? marker.a : marker;
      const inPlace = skip > 0 && info?.args === 0 ? 8 : 0;
      for (let n = 0; want === undefined ? n < 16 : n < want; n++) {
        const j = stores.get(at);
        if (j === undefined && inPlace > 0) {
          const addr: Expr = {
            k: "bin",
            op: "add",
            a: spReg,
            b: constant(at, cc.slot),
            size: cc.slot,
          };
          args.push({ k: "load", addr, size: inPlace });
          at += inPlace;
          continue;
        }
        if (j === undefined) break;
        const st = b.stmts[j]!;
        if (st.k !== "store") break;
        args.push(st.value);
        removed.add(j);
        // A double on the x86-32 stack (`fstp qword [esp]`) is one argument in two slots.
        at += Math.max(1, Math.ceil(st.size / cc.slot)) * cc.slot;
      }
      return args;
    };
    let prevCall = -1;
    b.stmts.forEach((s, i) => {
      if (s.k !== "call") return;
      const from = prevCall;
      prevCall = i;
      const marker = s.args[s.args.length - 1];
      const args = marker ? collect(i, from, s.target, marker, 0) : undefined;
      if (args) replaced.set(i, { ...s, args: [...s.args.slice(0, -1), ...args, marker!] });
    });
    let term = b.term;
    const tailMarker = term.k === "tail" ? term.args[term.args.length - 1] : undefined;
    if (term.k === "tail" && tailMarker && cc.args.length === 0) {
      // At a tail jump the stack pointer is the entry's: the return address, then arguments.
      const args = collect(b.stmts.length, prevCall, term.target, tailMarker, cc.stackArgs);
      if (args && args.length > 0) {
        term = { ...term, args: [...term.args.slice(0, -1), ...args, tailMarker] };
      }
    }
    if (replaced.size === 0 && term === b.term) {
      blocks.set(k, b);
      continue;
    }
    const stmts = b.stmts.flatMap((s, i) => removed.has(i) ? [] : [replaced.get(i) ?? s]);
    blocks.set(k, { ...b, stmts, term });
  }
  return { ...fn, blocks };
}

/** What a runtime helper computes (see abi/runtime_helpers.ts). */
export type HelperOp = BinOp | "sdivmod" | "udivmod";

/**
 * Calls of the runtime's double-width division helpers (`__udivdi3(a_lo, a_hi, b_lo, b_hi)` on
 * x86-32, recognised by `helperOp`) become the operator: the call's pair (`edx_eax`) is set to
 * `a / b` on the joined halves. Runs after {@link stackArguments} gave the calls their four
 * stack words (and before the stack marker is dropped: it is the last argument). The other
 * registers the call would change keep no value a program may read; they are set to 0 so that
 * every SSA name keeps its definition.
 */
export function helperOperators(
  fn: IrFunction,
  cc: CallingConvention,
  helperOp: (target: Expr) => HelperOp | undefined,
): IrFunction {
  const pairName = cc.retHigh?.pair;
  if (pairName === undefined) return fn;
  const blocks = new Map<number, IrBlock>();
  let changed = false;
  for (const [k, b] of fn.blocks) {
    const stmts = b.stmts.flatMap((s): Stmt[] => {
      if (s.k !== "call") return [s];
      const op = helperOp(s.target);
      const pair = s.defs.find((d) => d.name === pairName);
      const words = s.args.slice(0, -1);
      const divmod = op === "sdivmod" || op === "udivmod";
      if (
        !op || !pair || words.length !== (divmod ? 5 : 4) ||
        words.some((w) => w.size !== pair.size / 2)
      ) return [s];
      changed = true;
      const [alo, ahi, blo, bhi, rem] = words as [Expr, Expr, Expr, Expr, Expr?];
      const a = joinHalves(ahi, alo);
      const b = joinHalves(bhi, blo);
      const size = pair.size;
      const div: BinOp = op === "sdivmod" ? "sdiv" : op === "udivmod" ? "udiv" : op;
      // `__divmoddi4(a, b, &r)`: the quotient, and the remainder stored through the pointer, a
      // word at a time as the caller reads it back (a local's halves are two stack slots).
      const r: Expr = { k: "bin", op: op === "sdivmod" ? "srem" : "urem", a, b, size };
      const half = size / 2;
      const word = (value: Expr, offset: number): Stmt => ({
        k: "store",
        // Folded (`esp - 0x14 + 4` is `esp - 0x10`): the frame pass names stack slots by offset.
        addr: offset === 0 ? rem! : simplify({
          k: "bin",
          op: "add",
          a: rem!,
          b: { k: "const", value: BigInt(offset), size: rem!.size },
          size: rem!.size,
        }),
        value,
        size: half,
        at: s.at,
      });
      const remainder: Stmt[] = rem
        ? [
          word({ k: "trunc", a: r, size: half }, 0),
          word({
            k: "trunc",
            a: {
              k: "bin",
              op: "shr",
              a: r,
              b: { k: "const", value: BigInt(half * 8), size: 1 },
              size,
            },
            size: half,
          }, half),
        ]
        : [];
      return [
        ...remainder,
        { k: "set", dst: pair, src: { k: "bin", op: div, a, b, size }, at: s.at },
        ...s.defs.filter((d) => d !== pair).map((d): Stmt => ({
          k: "set",
          dst: d,
          src: { k: "const", value: 0n, size: d.size },
          at: s.at,
        })),
      ];
    });
    blocks.set(k, changed ? { ...b, stmts } : b);
  }
  return changed ? { ...fn, blocks } : fn;
}
