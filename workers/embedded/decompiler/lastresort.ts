/**
 * The last-resort tier: when the full pipeline and the simplified tier have both used the
 * function's budget, the lifted IR itself is printed as C — the instructions' statements in
 * block order, registers as variables named as the machine's (`rax`, `x0`), memory through the
 * stack pointer as it is (`*(uint64_t *)(rsp + 8)`), every block labelled and every edge a
 * `goto`. No SSA, no propagation, no frame, no structuring: each step is one pass over the
 * statements, so it finishes in time linear in the function whatever the load.
 *
 * What it adds to the lifted IR is a stack for the stack pointer to point into on entry, and
 * what the calling convention says without data flow:
 * a call passes the callee's declared (or already summarised) argument registers, else all of the
 * convention's, and sets the return register; a return returns the return register unless the
 * function's declaration says `void`; the parameters are the convention's argument registers up
 * to the last one the function reads anywhere. The C is longer and lower-level than the other
 * tiers', and the result says so ({@link Decompiled.degraded}).
 */

import type { Built } from "./build.ts";
import { defaultConvention } from "./abi/conventions.ts";
import type { CallingConvention } from "./abi/conventions.ts";
import { isFloatType, isVoid, type Prototype } from "./abi/prototype.ts";
import { caseIndex, type Decompiled, type DecompileInput, toGraph } from "./decompile.ts";
import {
  type Expr,
  forEachChild,
  type IrBlock,
  type IrFunction,
  mapChildren,
  namedRegisters,
  predecessors,
  type Reg,
  type Stmt,
  stmtDefs,
  stmtReads,
  termReads,
  type Var,
} from "./ir.ts";
import { normalize } from "./ssa.ts";
import { gotoOnly } from "./structure/structure.ts";
import { type CType, uintType } from "./types.ts";

/** What the last-resort note says the output is. */
export const LAST_RESORT_NOTE = "the lifted instructions as C with registers as variables, no " +
  "data-flow analysis, control flow as gotos";

/** Bytes of the stack the last-resort C gives the machine code (its frame and its pushes). */
const STACK = 0x10000;

/** The last-resort tier's output for `input.fn` from its lifted form; `why` opens the note. */
export function lastResort(input: DecompileInput, built: Built, why: string): Decompiled {
  const arch = input.arch ?? (input.bits === 32 ? "x86" : "x86_64");
  const cc = defaultConvention(arch, input.format);
  let ir = normalize(built.fn);
  const ptr = ir.arch.ptr;
  const reg = (name: string): Reg => ({ k: "reg", name, size: ptr });
  const named = namedRegisters(ir);
  const floats = floatRegisters(cc, named);
  const freg = (name: string): Reg => ({ k: "reg", name, size: FLOAT_REG });
  const protoOf = (target: Expr): Prototype | undefined => {
    const at = target.k === "const"
      ? target.value
      : target.k === "load" && target.addr.k === "const"
      ? target.addr.value
      : undefined;
    return at === undefined ? undefined : input.prototypeAt?.(Number(at));
  };
  const self = input.prototypeAt?.(input.fn.start);
  const selfSummary = self ? undefined : input.summaryAt?.(input.fn.start);
  const isSelf = (target: Expr) => target.k === "const" && Number(target.value) === input.fn.start;
  // What a callee takes and gives: its declaration, its summary if one was made already, else
  // all of the convention's argument registers (extra arguments are harmless in these ABIs) and
  // an integer result.
  const calleeOf = (target: Expr): { args: number; floats: number; float?: boolean } => {
    const p = protoOf(target);
    if (p) {
      const nf = p.params.filter((x) => isFloatType(x.type)).length;
      return p.variadic
        ? { args: cc.args.length, floats: floats.args.length }
        : { args: p.params.length - nf, floats: nf, float: isFloatType(p.ret) };
    }
    const s = target.k === "const" ? input.summaryAt?.(Number(target.value)) : undefined;
    if (s) return { args: s.params, floats: s.floatParams ?? 0, float: s.floatReturn === true };
    return { args: cc.args.length, floats: floats.args.length };
  };
  const returns = self ? !isVoid(self.ret) : selfSummary ? selfSummary.returns : true;
  // Whether the function returns its value in the float register: its declaration or summary,
  // else the register the paths to its returns wrote last.
  const floatReturn = floats.ret !== undefined && returns &&
    (self
      ? isFloatType(self.ret)
      : selfSummary
      ? selfSummary.floatReturn === true
      : returnsFloat(ir, cc.ret, floats.ret, (t) => isSelf(t) ? undefined : calleeOf(t).float));
  const callee = (target: Expr) =>
    isSelf(target) && !self && !selfSummary
      ? { args: cc.args.length, floats: floats.args.length, float: floatReturn }
      : calleeOf(target);
  const argsOf = (target: Expr): Expr[] => {
    const c = callee(target);
    return [
      ...cc.args.slice(0, c.args).map(reg),
      ...floats.args.slice(0, c.floats).map(freg),
    ];
  };
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of ir.blocks) {
    const stmts = b.stmts.map((s): Stmt =>
      s.k === "call"
        ? {
          ...s,
          args: argsOf(s.target),
          defs: [callee(s.target).float && floats.ret ? freg(floats.ret) : reg(cc.ret)],
        }
        : s
    );
    let term = b.term;
    if (term.k === "ret" && returns) {
      term = { ...term, value: floatReturn ? freg(floats.ret!) : reg(cc.ret) };
    }
    if (term.k === "tail") {
      term = {
        ...term,
        args: argsOf(term.target),
        ...(returns ? { value: floatReturn ? freg(floats.ret!) : reg(cc.ret) } : {}),
      };
    }
    if (term.k === "switch") term = switchTerm(b, term);
    blocks.set(k, { ...b, stmts, term });
  }
  // The stack pointer on entry points into a stack of the function's own (the C has no other
  // to give it): the pushes, spills and locals of the machine code then work as they read.
  const entry = blocks.get(ir.entry);
  if (entry) {
    const stack = { k: "slot", offset: -STACK, size: STACK } as const;
    const top: Expr = {
      k: "bin",
      op: "add",
      a: { k: "addr", slot: stack, size: ptr },
      b: { k: "const", value: BigInt(STACK - ptr), size: ptr },
      size: ptr,
    };
    blocks.set(ir.entry, {
      ...entry,
      stmts: [{ k: "set", dst: reg(ir.arch.sp), src: top, at: input.fn.start }, ...entry.stmts],
    });
  }
  ir = { ...ir, blocks };
  // Each register is one variable of its widest use (writes of its low part keep the rest, as
  // the lifter spells them out).
  const widest = new Map<string, number>();
  const seeVar = (v: Var) => {
    if (v.k === "reg") widest.set(v.name, Math.max(widest.get(v.name) ?? 0, v.size, ptr));
  };
  const seeExpr = (e: Expr): void => {
    if (e.k === "reg") seeVar(e);
    forEachChild(e, seeExpr);
  };
  for (const b of ir.blocks.values()) {
    for (const s of b.stmts) {
      stmtDefs(s).forEach(seeVar);
      stmtReads(s, seeExpr);
    }
    termReads(b.term, seeExpr);
  }
  const types = new Map<string, CType>();
  for (const [name, size] of widest) types.set(name, uintType(size));
  // The float argument and return registers are doubles: a double variable passes and returns
  // its 8 bytes unchanged (a float lives in the low 4), and the printer casts their bits where
  // integer operations read or write them.
  for (const name of [...floats.args, ...(floats.ret ? [floats.ret] : [])]) {
    if (widest.get(name) === FLOAT_REG) types.set(name, { size: FLOAT_REG, kind: "float" });
  }
  const read = (name: string) => widest.has(name);
  const last = cc.args.reduce((n, r, i) => read(r) ? i + 1 : n, 0);
  const selfFloats = self?.params.filter((p) => isFloatType(p.type)).length;
  const count = self
    ? Math.min(self.params.length - (selfFloats ?? 0), cc.args.length)
    : selfSummary
    ? Math.min(selfSummary.params, cc.args.length)
    : last;
  const floatCount = selfFloats ?? selfSummary?.floatParams ??
    floats.args.reduce((n, r, i) => named.read.has(r) ? i + 1 : n, 0);
  const params: Var[] = [
    ...cc.args.slice(0, count).map(reg),
    ...floats.args.slice(0, floatCount).map(freg),
  ];
  const structured = gotoOnly(
    toGraph(ir),
    (id) => (ir.blocks.get(id)?.stmts.length ?? 0) === 0,
  );
  return {
    ir,
    tree: structured.body,
    frame: { scalars: new Map(), arrays: new Map([[-STACK, STACK]]) },
    cc,
    types,
    params,
    returns,
    ...(floatReturn ? { floatReturn: FLOAT_REG } : {}),
    ...(self ? { prototype: self } : {}),
    instructions: built.instructions,
    unlifted: built.unlifted,
    gotos: structured.gotos,
    warnings: [...ir.warnings],
    stages: {},
    degraded: `${why}; ${LAST_RESORT_NOTE}`,
    lastResort: true,
  };
}

/** Bytes of a float argument register in the IR (the low half of an xmm or v register). */
const FLOAT_REG = 8;

/**
 * The float argument registers calls may pass (those up to the last one the function names: a
 * register it never touches carries nothing of its own) and the float return register, when the
 * convention passes floats in 8-byte register halves by kind (System V, AAPCS64). Microsoft x64
 * shares positions between the kinds and x86-32 returns in the x87 stack: neither is handled.
 */
function floatRegisters(
  cc: CallingConvention,
  named: { read: Set<string>; written: Set<string> },
): { args: string[]; ret?: string } {
  const all = cc.floatArgs ?? [];
  if (cc.positional || cc.floatRet === undefined || !all.includes(cc.floatRet)) return { args: [] };
  const has = (r: string) => named.read.has(r) || named.written.has(r);
  const last = all.reduce((n, r, i) => has(r) ? i + 1 : n, 0);
  return { args: all.slice(0, last), ret: cc.floatRet };
}

/** Blocks searched back from a return for the register written last. */
const RETURN_SEARCH = 16;

/**
 * Whether the function returns its value in `floatRet` rather than `ret`: of the two, the one
 * written last on the way to each return (back through the return's block and single
 * predecessors, a bounded walk). A call writes the float register when `floatResult` of its
 * target says so, the integer one when it says not; a call of unknown result ends the walk
 * undecided. More returns must decide for the float register than for the integer one.
 */
function returnsFloat(
  fn: IrFunction,
  ret: string,
  floatRet: string,
  floatResult: (target: Expr) => boolean | undefined,
): boolean {
  const preds = predecessors(fn);
  let float = 0;
  let int = 0;
  const lastWrite = (b: IrBlock): "float" | "int" | "unknown" | undefined => {
    for (let i = b.stmts.length - 1; i >= 0; i--) {
      const s = b.stmts[i]!;
      if (s.k === "call") {
        const r = floatResult(s.target);
        return r === undefined ? "unknown" : r ? "float" : "int";
      }
      for (const d of stmtDefs(s)) {
        if (d.k !== "reg") continue;
        if (d.name === floatRet) return "float";
        if (d.name === ret) return "int";
      }
    }
    return undefined;
  };
  for (const b of fn.blocks.values()) {
    if (b.term.k !== "ret") continue;
    let at: IrBlock | undefined = b;
    for (let step = 0; at && step < RETURN_SEARCH; step++) {
      const w = lastWrite(at);
      if (w === "float") float++;
      if (w === "int") int++;
      if (w !== undefined) break;
      const p: number[] = preds.get(at.start) ?? [];
      at = p.length === 1 ? fn.blocks.get(p[0]!) : undefined;
    }
  }
  return float > int;
}

type SwitchTerm = Extract<IrBlock["term"], { k: "switch" }>;

/**
 * A jump table's switch: on the case index when the block computes the target from one that
 * still holds at the jump (the block's statements substituted into the target, one pass); else
 * on the target address itself, one case per destination — exact, but reading the table where
 * the binary has it.
 */
function switchTerm(b: IrBlock, term: SwitchTerm): SwitchTerm {
  const env = new Map<string, Expr>();
  const written = new Set<string>();
  const keyOf = (v: Var) => v.k === "reg" ? v.name : v.k === "tmp" ? `t${v.id}` : undefined;
  const subst = (e: Expr): Expr => {
    if (e.k === "reg") {
      const f = env.get(e.name);
      return !f ? e : f.size === e.size ? f : { k: "trunc", a: f, size: e.size };
    }
    if (e.k === "tmp") return env.get(`t${e.id}`) ?? e;
    return mapChildren(e, subst);
  };
  const has = (e: Expr, test: (x: Expr) => boolean): boolean => {
    let found = false;
    const visit = (x: Expr): void => {
      if (found || (found = test(x))) return;
      forEachChild(x, visit);
    };
    visit(e);
    return found;
  };
  for (const s of b.stmts) {
    if (s.k === "set") {
      const key = keyOf(s.dst);
      const value = subst(s.src);
      if (key !== undefined) env.set(key, value);
      if (s.dst.k === "reg") written.add(s.dst.name);
      continue;
    }
    // A store, call or intrinsic: what it writes is unknown here, and so is memory after it.
    for (const d of stmtDefs(s)) {
      const key = keyOf(d);
      if (key !== undefined) env.delete(key);
      if (d.k === "reg") written.add(d.name);
    }
    for (const [k, v] of env) if (has(v, (x) => x.k === "load")) env.delete(k);
  }
  const target = subst(term.value);
  const index = caseIndex(target);
  // The index's registers must hold at the jump what they held where it was computed.
  if (index !== target && !has(index, (x) => x.k === "reg" && written.has(x.name))) {
    return { ...term, value: index };
  }
  const targets = [...new Set(term.cases.map((c) => c.to))];
  return { ...term, cases: targets.map((to) => ({ values: [to], to })) };
}
