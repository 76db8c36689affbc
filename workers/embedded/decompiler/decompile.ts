/**
 * The decompiler pipeline: lift → SSA → calls → propagation → stack frame → dead code → out of
 * SSA → structure, under one time budget checked between stages and inside the loops that can
 * grow. The result is the function's {@link Decompiled} form, from which {@link render} prints
 * C with the names and types current at print time (a rename needs no new decompilation).
 *
 * The simplified tier: when the full pipeline has used its share of the budget
 * (`input.fullShare`), or from the start for a function over the full pipeline's size cap
 * (`input.simplified`), the rest of the pipeline keeps what is done and runs the passes whose
 * cost grows faster than the function — propagation to a fixpoint, copy coalescing, structuring
 * — only while half of the remaining time lasts, in bounded form (a few propagation rounds; plain
 * goto form). What must run (lifting, SSA, calls, frame, out of SSA, types) grows with the
 * function's size. The result says it is simplified and why ({@link Decompiled.degraded}).
 */

import { RemcpError } from "../../../src/errors.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import type { Insn } from "../arch/types.ts";
import { type CallingConvention, defaultConvention } from "./abi/conventions.ts";
import { buildIr, type Built } from "./build.ts";
import { Aarch64Lifter } from "./lift/aarch64.ts";
import {
  type Expr,
  forEachChild,
  type IrFunction,
  stmtReads,
  type Term,
  termReads,
  type Var,
  varKey,
} from "./ir.ts";
import { normalize, reversePostOrder, toSsa } from "./ssa.ts";
import {
  type CalleeInfo,
  type CallFacts,
  dropStackMarker,
  helperOperators,
  prepareCalls,
  stackArguments,
  trimCalls,
} from "./passes/calls.ts";
import { propagate, propagateOnce, simplifyAll } from "./passes/propagate.ts";
import { cappedSimplifications } from "./passes/simplify.ts";
import { eliminateDeadCode } from "./passes/dead.ts";
import { type Frame, recoverFrame } from "./passes/stack.ts";
import { leaveSsa } from "./passes/outssa.ts";
import { coalesce } from "./passes/coalesce.ts";
import { narrow } from "./passes/narrow.ts";
import { countUses } from "./passes/uses.ts";
import type { Graph, Stmt as SStmt, Terminator } from "./structure/types.ts";
import { gotoOnly, structure } from "./structure/structure.ts";
import { formatArguments, isFloatType, isVoid, type Prototype } from "./abi/prototype.ts";
import { inferTypes } from "./types.ts";
import { type RuntimeHelper, runtimeHelperAt } from "./abi/runtime_helpers.ts";

/** What decompiling one function needs. */
export interface DecompileInput {
  fn: FunctionInfo;
  /** The function's instructions, decoded with `detail` and `text`, in address order. */
  insns: Insn[];
  bits: 32 | 64;
  /** The instruction set, when it is not x86 of `bits` (`aarch64`). */
  arch?: "aarch64";
  /** Container format (`elf`, `pe`, …): picks the default calling convention. */
  format: string;
  isNoReturn(address: number): boolean;
  /** Whether a string starts at `address`. */
  isString(address: number): boolean;
  /** The text of a string at `address` (format strings give variadic argument counts). */
  stringAt?(address: number): string | undefined;
  /** The prototype of the function (or import slot) at `address`: the user's, else built in. */
  prototypeAt?(address: number): Prototype | undefined;
  /** The code's bytes (exact 64-bit immediates). */
  bytesAt?(address: number, length: number): Uint8Array | undefined;
  /** The register a 32-bit PIC thunk at `address` loads (`ebx` for get_pc_thunk.bx). */
  pcThunk?(address: number): string | undefined;
  /** What a callee's own code says of its parameters and return value (no prototype known). */
  summaryAt?(
    address: number,
  ):
    | {
      params: number;
      floatParams?: number;
      returns: boolean;
      floatReturn?: boolean;
      /** Whether it takes the address of its large result (AAPCS64's x8). */
      indirectResult?: boolean;
      /** Whether it returns a double-width integer (`long long` in edx:eax on x86-32). */
      wideReturn?: boolean;
    }
    | undefined;
  /** Milliseconds this decompilation may take. */
  budgetMs: number;
  /**
   * Only the signature is wanted (a callee's summary): stop once the parameters and the return
   * value are known, before leaving SSA; the result's `tree` and `types` are then empty.
   */
  signatureOnly?: boolean;
  /**
   * The share of `budgetMs` (0–1) after which the pipeline goes on as the simplified tier
   * instead of running out of time; 1 (the default): never, Timeout at the end of the budget.
   */
  fullShare?: number;
  /** Run the simplified tier from the start: why (it opens {@link Decompiled.degraded}). */
  simplified?: string;
  /**
   * The simplified tier runs none of its optional passes, as when no time is left for them (the
   * differential benchmark tests that output): one propagation round, which is not optional.
   */
  bare?: boolean;
  /** The budget's clock in milliseconds (the service's counts CPU time; tests pass their own). */
  now?: () => number;
  /** Receives the lifted function (the last-resort tier prints it when the budget runs out). */
  onLifted?(built: Built): void;
}

/** A decompiled function before printing. */
export interface Decompiled {
  ir: IrFunction;
  tree: SStmt<number, Expr>;
  frame: Frame;
  cc: CallingConvention;
  types: Map<string, import("./types.ts").CType>;
  /** The function's parameters (register arguments used, then stack ones). */
  params: Var[];
  returns: boolean;
  /** Size of a floating-point return value (returned in the ABI's float register). */
  floatReturn?: number;
  /** The declaration that fixed the signature, when there is one. */
  prototype?: Prototype;
  instructions: number;
  unlifted: number;
  gotos: number;
  warnings: string[];
  /** Milliseconds per stage. */
  stages: Record<string, number>;
  /** Why this is the simplified or last-resort tier's output (absent for the full pipeline's). */
  degraded?: string;
  /**
   * The last-resort tier's output (lastresort.ts): the lifted IR before SSA, registers are
   * variables named as the machine's.
   */
  lastResort?: true;
}

/** Whether a C type is an integer of 8 bytes (`long long`, `uint64_t`) on x86-32. */
function isDoubleWord(type: string): boolean {
  return /^(unsigned |signed )?long long( int)?$|^u?int64_t$|^(u_)?quad_t$/.test(type.trim());
}

/** Whether some return of `fn` returns a double-width pair (set by trimCalls). */
export function returnsPair(fn: IrFunction): boolean {
  return [...fn.blocks.values()].some((b) =>
    b.term.k === "ret" && b.term.value !== undefined && b.term.value.size === fn.arch.ptr * 2
  );
}

function callsItself(fn: IrFunction, self: number): boolean {
  return [...fn.blocks.values()].some((b) =>
    b.stmts.some((s) => s.k === "call" && s.target.k === "const" && Number(s.target.value) === self)
  );
}

/** Propagation rounds the simplified tier allows itself (the full pipeline: up to 64). */
const SIMPLIFIED_ROUNDS = 4;

/** Thrown by a full pass's check when the full pipeline's share of the budget is used up. */
class ShareUsed extends Error {}

/** Decompiles `input.fn`; throws Timeout when the budget runs out. */
export function decompile(input: DecompileInput): Decompiled {
  const now = input.now ?? (() => performance.now());
  const t0 = now();
  const deadline = t0 + input.budgetMs;
  const share = Math.min(1, Math.max(0, input.fullShare ?? 1));
  const fullUntil = t0 + input.budgetMs * share;
  // Why this is the simplified tier (undefined: the full pipeline), and until when it runs its
  // optional passes: half of the time it has, the other half is for what must run.
  let simplified = input.simplified;
  let optionalUntil = input.bare ? -Infinity : t0 + input.budgetMs / 2;
  const optional = () => simplified === undefined || now() < optionalUntil;
  // What the simplified tier left out, said once each at the top of the C.
  const cuts = new Set<string>();
  const cut = (what: string) => cuts.add(what);
  const simplify = (after: string) => {
    if (simplified !== undefined) return;
    const t = now();
    simplified = `the full analysis ran past its ${seconds(input.budgetMs * share)} budget ` +
      `(in ${STAGE_NAMES[after] ?? after})`;
    if (!input.bare) optionalUntil = t + (deadline - t) / 2;
  };
  // A full pass's check between its rounds: past the full share, it stops the pass.
  const shareCheck = () => {
    if (simplified === undefined && share < 1 && now() > fullUntil) throw new ShareUsed();
  };
  const stages: Record<string, number> = {};
  let last = t0;
  const stage = (name: string) => {
    const t = now();
    stages[name] = Math.round((t - last) * 100) / 100;
    last = t;
    // The simplified tier out of SSA has only linear finishing work left (goto form, types):
    // throwing the nearly done result away would waste the time spent, not save any.
    const finishing = simplified !== undefined && FINISHING.has(name);
    if (t > deadline && !finishing) {
      throw new RemcpError(
        "Timeout",
        `Decompiling ${input.fn.name} took longer than its ${input.budgetMs} ms budget (stopped ` +
          `after ${name}); read it with disassemble_function, or decompile a smaller function`,
        { stage: name, budget_ms: input.budgetMs },
      );
    }
    if (share < 1 && t > fullUntil) simplify(name);
  };
  // Propagation to a fixpoint while the full pipeline runs; bounded after (from where it was,
  // when the full share ran out during it).
  const propagation = (from: IrFunction, name: string, fixpoint = false): IrFunction => {
    let fn = from;
    if (simplified === undefined) {
      try {
        return propagate(fn, (sofar) => {
          fn = sofar;
          shareCheck();
          if (now() > deadline) stage(name);
        }, fixpoint);
      } catch (e) {
        if (!(e instanceof ShareUsed)) throw e;
        simplify(name);
      }
    }
    // A round costs about what lifting and SSA did (more on long chains of single uses).
    const guess = (stages.lift ?? 0) + (stages.ssa ?? 0);
    return boundedPropagate(fn, () => optionalUntil - now(), guess, now, cut);
  };
  const arch = input.arch ?? (input.bits === 32 ? "x86" : "x86_64");
  const cc = defaultConvention(arch, input.format);
  const built = buildIr(
    input.fn,
    input.insns,
    input.bits,
    {
      isNoReturn: input.isNoReturn,
      ...(input.pcThunk ? { pcThunk: input.pcThunk } : {}),
      ...(input.bytesAt ? { bytesAt: input.bytesAt } : {}),
    },
    ...(arch === "aarch64" ? [new Aarch64Lifter()] : []),
  );
  input.onLifted?.(built);
  stage("lift");
  // The passes ask for the same callees' prototypes many times (every call site, every return
  // value traced back to a call): each address is looked up (and parsed) once.
  const prototypes = new Map<number, Prototype | undefined>();
  const prototypeAt = (address: number): Prototype | undefined => {
    if (prototypes.has(address)) return prototypes.get(address);
    const p = input.prototypeAt?.(address);
    prototypes.set(address, p);
    return p;
  };
  const protoOf = (target: Expr): Prototype | undefined => {
    if (target.k === "const") return prototypeAt(Number(target.value));
    if (target.k === "load" && target.addr.k === "const") {
      return prototypeAt(Number(target.addr.value));
    }
    return undefined;
  };
  // What is known of each constant callee, made once: the passes ask at every call site, and
  // several times per site (arguments, return value, stack arguments).
  const known = new Map<string, CalleeInfo | undefined>();
  const calleeOf = (target: Expr): CalleeInfo | undefined => {
    const key = target.k === "const"
      ? `c${target.value}`
      : target.k === "load" && target.addr.k === "const"
      ? `l${target.addr.value}`
      : undefined;
    if (key === undefined) return calleeFacts(target);
    if (known.has(key)) return known.get(key);
    const info = calleeFacts(target);
    known.set(key, info);
    return info;
  };
  // libgcc's 64-bit division helpers (x86-32), by address: a call to one is `/` or `%`.
  const helpers = new Map<number, RuntimeHelper | undefined>();
  const helperOf = (target: Expr): RuntimeHelper | undefined => {
    if (!cc.retHigh || !input.bytesAt || target.k !== "const") return undefined;
    const address = Number(target.value);
    if (!helpers.has(address)) helpers.set(address, runtimeHelperAt(input.bytesAt, address));
    return helpers.get(address);
  };
  const calleeFacts = (target: Expr): CalleeInfo | undefined => {
    const helper = helperOf(target);
    if (helper) return { args: helper.op.endsWith("mod") ? 5 : 4, returns: true, wideReturn: true };
    const p = protoOf(target);
    if (!p) {
      const s = target.k === "const" ? input.summaryAt?.(Number(target.value)) : undefined;
      return s
        ? {
          args: s.params,
          floatArgs: s.floatParams ?? 0,
          returns: s.returns,
          floatReturn: s.floatReturn ?? false,
          ...(s.wideReturn ? { wideReturn: true } : {}),
          ...(s.indirectResult ? { indirectResult: true } : {}),
        }
        : undefined;
    }
    const floats = p.params.filter((x) => isFloatType(x.type)).length;
    return {
      ...(cc.retHigh && isDoubleWord(p.ret) ? { wideReturn: true } : {}),
      args: p.params.length - floats,
      floatArgs: floats,
      floatReturn: isFloatType(p.ret),
      variadic: p.variadic,
      returns: !isVoid(p.ret),
      ...(p.format !== undefined ? { format: p.format } : {}),
    };
  };
  const facts: CallFacts = {
    self: input.fn.start,
    callee: calleeOf,
    formatArgs: (address) => {
      const s = input.stringAt?.(address);
      return s === undefined ? undefined : formatArguments(s);
    },
  };
  // A call returning `long long` (edx:eax on x86-32) defines the pair: known before SSA.
  const wideSelf = { known: false };
  const wideCall = (target: Expr): boolean =>
    target.k === "const" && Number(target.value) === input.fn.start
      ? wideSelf.known
      : calleeOf(target)?.wideReturn === true;
  const toCalls = (): IrFunction => toSsa(prepareCalls(normalize(built.fn), cc, wideCall));
  let ir = toCalls();
  stage("ssa");
  ir = trimCalls(ir, cc, facts);
  if (cc.retHigh && !wideSelf.known && returnsPair(ir) && callsItself(ir, input.fn.start)) {
    // A recursive function found to return a pair reads its own calls' pairs too.
    wideSelf.known = true;
    ir = trimCalls(toCalls(), cc, facts);
  }
  stage("calls");
  const floatRet = [...ir.blocks.values()].some((b) =>
    b.term.k === "ret" && b.term.value?.k === "reg" && b.term.value.name === cc.floatRet
  );
  const capped = cappedSimplifications();
  ir = simplifyAll(ir);
  // Propagation's first round need not simplify the whole function again when every
  // expression came out of this as a fixpoint.
  const fixpoint = cappedSimplifications() === capped;
  stage("simplify");
  ir = propagation(ir, "propagate", fixpoint);
  stage("propagate");
  if (cc.args.length === 0 || cc.name === "aapcs64") ir = stackArguments(ir, cc, facts);
  if (cc.retHigh && helpers.size > 0) ir = helperOperators(ir, cc, (t) => helperOf(t)?.op);
  ir = dropStackMarker(ir, cc);
  const framed = recoverFrame(ir);
  ir = propagation(framed.fn, "frame");
  stage("frame");
  // A callee's summary reads parameter and return registers, not their widths: narrowing (and
  // the switch index) only change widths and values.
  if (!input.signatureOnly) {
    ir = switchValues(ir);
    ir = narrow(ir);
    ir = floatRet ? narrowFloatReturns(ir) : narrowReturns(ir);
  }
  const self = input.prototypeAt?.(input.fn.start);
  let params = parameters(ir, cc);
  let returns = [...ir.blocks.values()].some((b) => b.term.k === "ret" && b.term.value);
  let floatReturn = floatRet && returns ? returnSize(ir) : undefined;
  if (self) {
    // The user's (or the library's) declaration wins over what use suggests.
    params = [...prototypeParams(self, cc, ir), ...params.filter((p) => p.k === "slot")];
    returns = !isVoid(self.ret);
    if (!returns) ir = dropReturnValues(ir);
    if (!isFloatType(self.ret)) floatReturn = undefined;
  }
  const signature = {
    frame: framed.frame,
    cc,
    params,
    returns,
    ...(floatReturn ? { floatReturn } : {}),
    ...(self ? { prototype: self } : {}),
    instructions: built.instructions,
    unlifted: built.unlifted,
  };
  if (input.signatureOnly) {
    stage("signature");
    const tree: SStmt<number, Expr> = { kind: "seq", items: [] };
    return { ...signature, ir, tree, types: new Map(), gotos: 0, warnings: [], stages };
  }
  ir = leaveSsa(ir, maxTmp(ir) + 1);
  // Coalescing stops (keeping the copies) when the full share or the optional time runs out.
  const beforeCoalesce = ir;
  try {
    if (!optional()) throw new ShareUsed();
    ir = coalesce(ir, undefined, () => {
      shareCheck();
      if (!optional()) throw new ShareUsed();
    });
  } catch (e) {
    if (!(e instanceof ShareUsed)) throw e;
    simplify("ssa-exit");
    ir = beforeCoalesce;
    cut("copies are not merged into variables");
  }
  stage("ssa-exit");
  ir = returnsInPlace(ir);
  const graph = toGraph(ir);
  const plain = !optional();
  if (plain) cut("control flow is shown as gotos");
  const structured = plain ? plainGotos(graph, ir) : structure(graph, {
    isEmpty: (id) => (ir.blocks.get(id)?.stmts.length ?? 0) === 0,
    // A small end block (`return 3;`, `exit(1);`) is copied to each place that would jump to it,
    // as a person writes early returns.
    duplicate: (id) => {
      const stmts = ir.blocks.get(id)?.stmts ?? [];
      return stmts.length <= 1 || (stmts.length === 2 && stmts.every((x) => x.k === "set"));
    },
    // One assignment (`i = i + 1`) can be a `for` loop's step.
    isStep: (id) => {
      const stmts = ir.blocks.get(id)?.stmts ?? [];
      return stmts.length === 1 && stmts[0]!.k === "set";
    },
  });
  const tree = structured.body;
  const gotos = structured.gotos;
  stage("structure");
  // Types are a bounded number of rounds over the function: the simplified tier keeps them.
  const types = inferTypes(ir, input.isString);
  stage("types");
  return {
    ...signature,
    ir,
    tree,
    types,
    gotos,
    ...(simplified !== undefined ? { degraded: [simplified, ...cuts].join("; ") } : {}),
    warnings: [
      ...ir.warnings,
      ...structured.warnings,
      ...(built.unlifted > 0
        ? [
          `${built.unlifted} of ${built.instructions} instructions are not lifted (shown as ` +
          `__asm_ calls): ${[...built.unliftedMnemonics.keys()].slice(0, 8).join(", ")}`,
        ]
        : []),
    ],
    stages,
  };
}

/**
 * Propagation for the simplified tier: at most {@link SIMPLIFIED_ROUNDS} rounds, each after the
 * first started only when `left()` milliseconds of optional time cover what the last one took
 * (guessed as `guessMs` before any); whatever it reached is a correct program (a round only
 * substitutes). The first round always runs: it costs one pass over the function, and the passes
 * after it need it (without it a jump table's case index is not found, nor a self-call's
 * arguments: 4 of 14 functions of the differential subset came out wrong).
 */
function boundedPropagate(
  fn: IrFunction,
  left: () => number,
  guessMs: number,
  now: () => number,
  cut: (what: string) => void,
): IrFunction {
  let cur = fn;
  let cost = guessMs;
  for (let round = 0; round < SIMPLIFIED_ROUNDS; round++) {
    if (round > 0 && left() < cost) {
      cut("expressions are only partly propagated");
      return cur;
    }
    const t = now();
    const r = propagateOnce(cur);
    cur = eliminateDeadCode(r.fn);
    cost = now() - t;
    if (!r.changed) return cur;
  }
  cut("expressions are only partly propagated");
  return cur;
}

/** The structurer's plain goto form (one label per block): linear in the graph's size. */
function plainGotos(graph: Graph<number, Expr>, ir: IrFunction) {
  return gotoOnly(graph, (id) => (ir.blocks.get(id)?.stmts.length ?? 0) === 0);
}

/** Stages after which the simplified tier finishes even past its budget. */
const FINISHING: ReadonlySet<string> = new Set(["ssa-exit", "structure", "types"]);

/** What each stage does, for the note that says where the full pipeline stopped. */
const STAGE_NAMES: Record<string, string> = {
  lift: "lifting",
  ssa: "SSA construction",
  calls: "call recovery",
  simplify: "simplification",
  propagate: "expression propagation",
  frame: "stack frame recovery",
  "ssa-exit": "copy coalescing",
  structure: "control-flow structuring",
  types: "type inference",
};

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Entry values of registers by name, with the size the code reads them at (after narrowing). */
function entrySizes(fn: IrFunction): Map<string, number> {
  const sizes = new Map<string, number>();
  const visit = (e: Expr): void => {
    if (e.k === "reg" && e.ver === 0) sizes.set(e.name, e.size);
    forEachChild(e, visit);
  };
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) stmtReads(s, visit);
    for (const p of b.phis) p.args.forEach(visit);
    termReads(b.term, visit);
  }
  return sizes;
}

/**
 * The parameters: argument registers read on entry (up to the last one read; integer ones,
 * then float ones, or by position where the convention shares positions), stack arguments.
 */
function parameters(fn: IrFunction, cc: CallingConvention): Var[] {
  const uses = countUses(fn);
  const used = (r: string) => (uses.count.get(`${r}.0`) ?? 0) > 0;
  const sizes = entrySizes(fn);
  const last = (regs: readonly string[]) => regs.reduce((n, r, i) => used(r) ? i + 1 : n, 0);
  const floatRegs = cc.floatArgs ?? [];
  const n = last(cc.args);
  const f = last(floatRegs);
  const intReg = (name: string): Var => ({ k: "reg", name, size: fn.arch.ptr, ver: 0 });
  const floatReg = (name: string): Var => ({ k: "reg", name, size: sizes.get(name) ?? 8, ver: 0 });
  // The address of a large result (AAPCS64's x8) read on entry: the first, hidden parameter.
  const out: Var[] = cc.indirectResult && used(cc.indirectResult)
    ? [intReg(cc.indirectResult)]
    : [];
  if (cc.positional) {
    for (let i = 0; i < Math.max(n, f); i++) {
      const fr = floatRegs[i];
      out.push(fr && used(fr) && !used(cc.args[i]!) ? floatReg(fr) : intReg(cc.args[i]!));
    }
  } else {
    out.push(...cc.args.slice(0, n).map(intReg), ...floatRegs.slice(0, f).map(floatReg));
  }
  const stack = new Map<number, number>();
  for (const [key, count] of uses.count) {
    // Most keys are registers and temporaries (`rdi.0`, `t5`): only a slot's (`s-24:8`) is
    // parsed.
    if (key.charCodeAt(0) !== 115 || count === 0) continue;
    const m = /^s(-?\d+):(\d+)$/.exec(key);
    if (!m) continue;
    const off = Number(m[1]);
    if (off >= cc.stackArgs) stack.set(off, Number(m[2]));
  }
  for (const [offset, size] of [...stack].sort((a, b) => a[0] - b[0])) {
    out.push({ k: "slot", offset, size });
  }
  return out;
}

/**
 * A jump through a table reads `table[index * scale]` (plus a base for relative tables): the
 * switch is on `index`.
 */
function switchValues(fn: IrFunction): IrFunction {
  const blocks = new Map(fn.blocks);
  for (const [k, b] of fn.blocks) {
    if (b.term.k !== "switch") continue;
    blocks.set(k, { ...b, term: { ...b.term, value: caseIndex(b.term.value) } });
  }
  return { ...fn, blocks };
}

/** The case index a jump-table target is computed from (`target` itself when none is found). */
export function caseIndex(target: Expr): Expr {
  let found: Expr | undefined;
  // `inLoad`: inside a table read's address, where a shift by a constant scales the index too
  // (x86-32 gcc -O0: `shl eax, 2; add eax, T; mov eax, [eax]`); outside one, a shift scales a
  // loaded offset (AArch64's `add x1, B, w1, sxtb #2`).
  const visit = (e: Expr, inLoad: boolean): void => {
    if (found) return;
    if (e.k === "bin" && (e.op === "mul" || (inLoad && e.op === "shl")) && e.b.k === "const") {
      found = e.a;
      return;
    }
    if (e.k === "load") visit(e.addr, true);
    else if (e.k === "bin") {
      visit(e.a, inLoad);
      visit(e.b, inLoad);
    } else if (e.k === "ext" || e.k === "trunc") visit(e.a, inLoad);
  };
  visit(target, false);
  return found ?? byteTableIndex(target) ?? target;
}

/**
 * An unscaled table (AArch64 `ldrb w1, [x1, w0, uxtw]`: bytes of offsets) reads
 * `table[const + index]`: the switch is on `index`.
 */
function byteTableIndex(target: Expr): Expr | undefined {
  let found: Expr | undefined;
  const visit = (e: Expr): void => {
    if (found) return;
    if (e.k === "load" && e.addr.k === "bin" && e.addr.op === "add") {
      const { a, b } = e.addr;
      if (b.k === "const" && a.k !== "const") found = a;
      else if (a.k === "const" && b.k !== "const") found = b;
      return;
    }
    forEachChild(e, visit);
  };
  visit(target);
  return found;
}

/**
 * Return values that are all zero-extended from one width (or constants that fit it) are values
 * of that width: `uint32_t f()` returning `x`, not `uint64_t f()` returning `(uint64_t)x`.
 */
function narrowReturns(fn: IrFunction): IrFunction {
  let width: number | undefined;
  const rets = [...fn.blocks.values()].filter((b) => b.term.k === "ret" && b.term.value);
  if (rets.length === 0) return fn;
  for (const b of rets) {
    const v = (b.term as { value: Expr }).value;
    if (v.k === "ext" && !v.signed) {
      if (width !== undefined && width !== v.a.size) return fn;
      width = v.a.size;
    } else if (v.k !== "const") return fn;
  }
  // Below int the caller still sees the whole register the code set (`setb al; movzx eax, al`).
  if (width === undefined || width < 4) return fn;
  const w = width;
  for (const b of rets) {
    const v = (b.term as { value: Expr }).value;
    if (v.k === "const" && v.value >= 1n << BigInt(w * 8)) return fn;
  }
  const blocks = new Map(fn.blocks);
  for (const b of rets) {
    const v = (b.term as { value: Expr }).value;
    const value: Expr = v.k === "ext"
      ? v.a
      : v.k === "const"
      ? { k: "const", value: v.value, size: w }
      : v;
    blocks.set(b.start, { ...b, term: { k: "ret", value, at: b.term.at } });
  }
  return { ...fn, blocks };
}

/** The parameters a declaration gives, in the convention's registers. */
function prototypeParams(self: Prototype, cc: CallingConvention, fn: IrFunction): Var[] {
  const out: Var[] = [];
  const floatRegs = cc.floatArgs ?? [];
  let ni = 0;
  let nf = 0;
  self.params.forEach((p, i) => {
    const float = isFloatType(p.type) && floatRegs.length > 0;
    const name = cc.positional
      ? (float ? floatRegs[i] : cc.args[i])
      : (float ? floatRegs[nf++] : cc.args[ni++]);
    if (name === undefined) return;
    const size = float ? (/^float$/.test(p.type) ? 4 : 8) : fn.arch.ptr;
    out.push({ k: "reg", name, size, ver: 0 });
  });
  return out;
}

/** Size of the (float) return values: all of them are of one size after narrowing. */
function returnSize(fn: IrFunction): number {
  for (const b of fn.blocks.values()) {
    if (b.term.k === "ret" && b.term.value) return b.term.value.size;
  }
  return 8;
}

/**
 * A float return value written as 4 bytes into the low half of the register (`movss`,
 * `addss`, `cvtsd2ss`) is a `float`: every return value `(x & ~0xffffffff) | zext(f)` or
 * `zext(f)` returns `f`.
 */
function narrowFloatReturns(fn: IrFunction): IrFunction {
  const low = (v: Expr): Expr | undefined => {
    if (v.k === "ext" && !v.signed && v.a.size === 4) return v.a;
    if (v.k === "bin" && v.op === "or") return low(v.b);
    return undefined;
  };
  const rets = [...fn.blocks.values()].filter((b) => b.term.k === "ret" && b.term.value);
  const values = rets.map((b) => low((b.term as { value: Expr }).value));
  if (rets.length === 0 || values.some((v) => v === undefined)) return fn;
  const blocks = new Map(fn.blocks);
  rets.forEach((b, i) =>
    blocks.set(b.start, { ...b, term: { k: "ret", value: values[i]!, at: b.term.at } })
  );
  return { ...fn, blocks };
}

function dropReturnValues(fn: IrFunction): IrFunction {
  const blocks = new Map(fn.blocks);
  for (const [k, b] of fn.blocks) {
    if (b.term.k === "ret" && b.term.value) {
      blocks.set(k, { ...b, term: { k: "ret", at: b.term.at } });
    }
    if (b.term.k === "tail" && b.term.value) {
      const { value: _v, ...rest } = b.term;
      blocks.set(k, { ...b, term: rest });
    }
  }
  return fn.blocks === blocks ? fn : { ...fn, blocks };
}

function maxTmp(fn: IrFunction): number {
  let max = 0;
  const see = (v: { k: string; id?: number }) => {
    if (v.k === "tmp" && v.id !== undefined && v.id > max) max = v.id;
  };
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) if (s.k === "set") see(s.dst);
    for (const s of b.stmts) if (s.k === "asm") s.outs.forEach(see);
  }
  return max;
}

/** The structurer's view of the IR: block ids, bodies by id, conditions as expressions. */
/**
 * A block that only jumps to a bare `return v;` returns itself: the structurer may then copy a
 * small `v = 3; return v;` to each early exit (as `return 3;`) instead of jumping to it.
 */
export function returnsInPlace(fn: IrFunction): IrFunction {
  const blocks = new Map(fn.blocks);
  let changed = false;
  for (const [id, b] of fn.blocks) {
    if (b.term.k !== "jump") continue;
    const r = fn.blocks.get(b.term.to);
    if (!r || r.stmts.length > 0 || r.term.k !== "ret" || b.term.to === id) continue;
    blocks.set(id, { ...b, term: r.term });
    changed = true;
  }
  return changed ? { ...fn, blocks } : fn;
}

export function toGraph(fn: IrFunction): Graph<number, Expr> {
  const order = reversePostOrder(fn);
  return {
    entry: fn.entry,
    blocks: order.map((id) => ({ id, body: id, term: terminator(fn.blocks.get(id)!.term) })),
  };
}

function terminator(t: Term): Terminator<Expr> {
  switch (t.k) {
    case "jump":
      return { kind: "jump", to: t.to };
    case "branch":
      return t.then === t.else ? { kind: "jump", to: t.then } : {
        kind: "branch",
        cond: t.cond,
        then: t.then,
        else: t.else,
      };
    case "switch":
      return {
        kind: "switch",
        value: t.value,
        cases: t.cases.map((c) => ({ values: c.values.map(BigInt), to: c.to })),
        ...(t.default !== undefined ? { default: t.default } : {}),
      };
    case "ret":
    case "tail":
      return { kind: "return" };
    default:
      return { kind: "stop" };
  }
}

export { varKey };
