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
import { isVoid, type Prototype } from "./abi/prototype.ts";
import { caseIndex, type Decompiled, type DecompileInput, toGraph } from "./decompile.ts";
import {
  type Expr,
  forEachChild,
  type IrBlock,
  mapChildren,
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
  const protoOf = (target: Expr): Prototype | undefined => {
    const at = target.k === "const"
      ? target.value
      : target.k === "load" && target.addr.k === "const"
      ? target.addr.value
      : undefined;
    return at === undefined ? undefined : input.prototypeAt?.(Number(at));
  };
  // How many integer argument registers a callee takes: its declaration, its summary if one was
  // made already, else all of the convention's (extra arguments are harmless in these ABIs).
  const argCount = (target: Expr): number => {
    const p = protoOf(target);
    if (p && !p.variadic) return p.params.length;
    const s = target.k === "const" ? input.summaryAt?.(Number(target.value)) : undefined;
    return s ? s.params : cc.args.length;
  };
  const self = input.prototypeAt?.(input.fn.start);
  const returns = self ? !isVoid(self.ret) : true;
  const blocks = new Map<number, IrBlock>();
  for (const [k, b] of ir.blocks) {
    const stmts = b.stmts.map((s): Stmt =>
      s.k === "call"
        ? {
          ...s,
          args: cc.args.slice(0, argCount(s.target)).map(reg),
          defs: [reg(cc.ret)],
        }
        : s
    );
    let term = b.term;
    if (term.k === "ret" && returns) term = { ...term, value: reg(cc.ret) };
    if (term.k === "tail") {
      term = {
        ...term,
        args: cc.args.slice(0, argCount(term.target)).map(reg),
        ...(returns ? { value: reg(cc.ret) } : {}),
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
  const read = (name: string) => widest.has(name);
  const last = cc.args.reduce((n, r, i) => read(r) ? i + 1 : n, 0);
  const count = self ? Math.min(self.params.length, cc.args.length) : last;
  const params: Var[] = cc.args.slice(0, count).map(reg);
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
