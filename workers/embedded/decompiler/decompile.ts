/**
 * The decompiler pipeline: lift → SSA → calls → propagation → stack frame → dead code → out of
 * SSA → structure, under one time budget checked between stages and inside the loops that can
 * grow. The result is the function's {@link Decompiled} form, from which {@link render} prints
 * C with the names and types current at print time (a rename needs no new decompilation).
 */

import { RemcpError } from "../../../src/errors.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import type { Insn } from "../arch/types.ts";
import { type CallingConvention, defaultConvention } from "./abi/conventions.ts";
import { buildIr } from "./build.ts";
import { type Expr, type IrFunction, type Term, type Var, varKey } from "./ir.ts";
import { normalize, reversePostOrder, toSsa } from "./ssa.ts";
import { dropStackMarker, prepareCalls, trimCalls } from "./passes/calls.ts";
import { propagateOnce, simplifyAll } from "./passes/propagate.ts";
import { eliminateDeadCode } from "./passes/dead.ts";
import { type Frame, recoverFrame } from "./passes/stack.ts";
import { leaveSsa } from "./passes/outssa.ts";
import { countUses } from "./passes/uses.ts";
import type { Graph, Stmt as SStmt, Terminator } from "./structure/types.ts";
import { gotoTree } from "./_goto_structure.ts";
import { inferTypes } from "./types.ts";

/** What decompiling one function needs. */
export interface DecompileInput {
  fn: FunctionInfo;
  /** The function's instructions, decoded with `detail` and `text`, in address order. */
  insns: Insn[];
  bits: 32 | 64;
  /** Container format (`elf`, `pe`, …): picks the default calling convention. */
  format: string;
  isNoReturn(address: number): boolean;
  /** Whether a string starts at `address`. */
  isString(address: number): boolean;
  /** Milliseconds this decompilation may take. */
  budgetMs: number;
  /** The clock (tests pass their own). */
  now?: () => number;
}

/** A decompiled function before printing. */
export interface Decompiled {
  ir: IrFunction;
  tree: SStmt<number, Expr>;
  frame: Frame;
  cc: CallingConvention;
  types: Map<string, import("./types.ts").CType>;
  /** Number of the function's parameters (register arguments used, then stack ones). */
  params: Var[];
  returns: boolean;
  instructions: number;
  unlifted: number;
  gotos: number;
  warnings: string[];
  /** Milliseconds per stage. */
  stages: Record<string, number>;
}

/** Decompiles `input.fn`; throws Timeout when the budget runs out. */
export function decompile(input: DecompileInput): Decompiled {
  const now = input.now ?? (() => performance.now());
  const t0 = now();
  const deadline = t0 + input.budgetMs;
  const stages: Record<string, number> = {};
  let last = t0;
  const stage = (name: string) => {
    const t = now();
    stages[name] = Math.round((t - last) * 100) / 100;
    last = t;
    if (t > deadline) {
      throw new RemcpError(
        "Timeout",
        `Decompiling ${input.fn.name} took longer than its ${input.budgetMs} ms budget (stopped ` +
          `after ${name}); read it with disassemble_function, or decompile a smaller function`,
        { stage: name, budget_ms: input.budgetMs },
      );
    }
  };
  const cc = defaultConvention(input.bits === 32 ? "x86" : "x86_64", input.format);
  const built = buildIr(input.fn, input.insns, input.bits, { isNoReturn: input.isNoReturn });
  stage("lift");
  let ir = normalize(built.fn);
  ir = prepareCalls(ir, cc);
  ir = toSsa(ir);
  stage("ssa");
  ir = trimCalls(ir, cc, () => undefined);
  ir = simplifyAll(ir);
  for (let round = 0; round < 64; round++) {
    const r = propagateOnce(ir);
    ir = eliminateDeadCode(r.fn);
    if (!r.changed) break;
    if (now() > deadline) stage("propagate");
  }
  stage("propagate");
  ir = dropStackMarker(ir, cc);
  const framed = recoverFrame(ir);
  ir = framed.fn;
  for (let round = 0; round < 64; round++) {
    const r = propagateOnce(ir);
    ir = eliminateDeadCode(r.fn);
    if (!r.changed) break;
    if (now() > deadline) stage("frame");
  }
  stage("frame");
  const params = parameters(ir, cc);
  const returns = [...ir.blocks.values()].some((b) => b.term.k === "ret" && b.term.value);
  ir = leaveSsa(ir, maxTmp(ir) + 1);
  stage("ssa-exit");
  const graph = toGraph(ir);
  const tree = gotoTree(graph);
  const gotos = countGotos(tree);
  stage("structure");
  const types = inferTypes(ir, input.isString);
  stage("types");
  return {
    ir,
    tree,
    frame: framed.frame,
    cc,
    types,
    params,
    returns,
    instructions: built.instructions,
    unlifted: built.unlifted,
    gotos,
    warnings: [
      ...ir.warnings,
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

/** The parameters: argument registers read on entry (up to the last one read), stack args. */
function parameters(fn: IrFunction, cc: CallingConvention): Var[] {
  const uses = countUses(fn);
  let n = 0;
  cc.args.forEach((r, i) => {
    if ((uses.count.get(`${r}.0`) ?? 0) > 0) n = i + 1;
  });
  const out: Var[] = cc.args.slice(0, n).map((name) => ({
    k: "reg",
    name,
    size: fn.arch.ptr,
    ver: 0,
  }));
  const stack = new Map<number, number>();
  for (const [key, count] of uses.count) {
    const m = /^s(-?\d+):(\d+)$/.exec(key);
    if (!m || count === 0) continue;
    const off = Number(m[1]);
    if (off >= cc.stackArgs) stack.set(off, Number(m[2]));
  }
  for (const [offset, size] of [...stack].sort((a, b) => a[0] - b[0])) {
    out.push({ k: "slot", offset, size });
  }
  return out;
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

function countGotos(s: SStmt<number, Expr>): number {
  switch (s.kind) {
    case "goto":
      return 1;
    case "seq":
      return s.items.reduce((n, i) => n + countGotos(i), 0);
    case "if":
      return countGotos(s.then) + (s.else ? countGotos(s.else) : 0);
    case "while":
    case "doWhile":
    case "loop":
      return countGotos(s.body);
    case "switch":
      return s.cases.reduce((n, c) => n + countGotos(c.body), 0);
    default:
      return 0;
  }
}

export { varKey };
