/**
 * A function's blocks and edges (from the engine's analysis) and its decoded instructions →
 * IR blocks. Flags read before a block sets them come from its predecessors when they all agree
 * on the instruction that set them (`cmp; jg L; je M` — the `je` starts a block of its own).
 */

import type { Insn } from "../arch/types.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import { constant, type IrBlock, type IrFunction, type Stmt, type Term } from "./ir.ts";
import { X86Lifter } from "./lift/x86.ts";
import type { Control, LiftedInsn } from "./lift/lifted.ts";

/** What the builder asks about the rest of the program. */
export interface BuildContext {
  /** Whether a call to `address` never returns (the engine's no-return analysis). */
  isNoReturn(address: number): boolean;
  /** The register a 32-bit PIC thunk at `address` loads with its return address, if it is one. */
  pcThunk?(address: number): string | undefined;
  /** The code's bytes (exact 64-bit immediates). */
  bytesAt?(address: number, length: number): Uint8Array | undefined;
}

/** The flags after an instruction, in whatever shape the lifter keeps them. */
interface Flags {
  /** Address of the instruction that set them. */
  at: number;
}

/**
 * What the builder needs of an ISA's lifter: one instruction at a time, with the flag state
 * carried across blocks by the builder (it only hands a lifter back flags that lifter made).
 */
export interface BlockLifter {
  flags: Flags | undefined;
  usedEntryFlags: boolean;
  readonly sp: string;
  /** Bytes a call pushes (the return address); the pointer size when absent. */
  readonly retAddr?: number;
  /** Called before the first instruction of each block. */
  startBlock?(): void;
  /** x87 register-stack depth at the current point (x86 only; the builder carries it). */
  x87?: number;
  lift(insn: Insn): LiftedInsn;
}

/** The IR of a function and what lifting it counted. */
export interface Built {
  fn: IrFunction;
  instructions: number;
  /** Instructions that became `__asm_` statements. */
  unlifted: number;
  /** Mnemonics that became `__asm_` statements, with counts. */
  unliftedMnemonics: Map<string, number>;
}

interface Lifted {
  stmts: Stmt[];
  /** x87 stack depth at the block's end. */
  x87: number;
  last?: Control;
  lastAt: number;
  exitFlags?: Flags;
  usedEntryFlags: boolean;
  unlifted: number;
}

/**
 * Lifts `fn` from `insns` (decoded with detail and text, in address order) with `lifter`, by
 * default the x86 one of `bits`.
 */
export function buildIr(
  fn: FunctionInfo,
  insns: Insn[],
  bits: 32 | 64,
  ctx: BuildContext,
  lifter: BlockLifter = new X86Lifter(bits, ctx.bytesAt),
): Built {
  const byBlock = new Map<number, Insn[]>();
  let bi = 0;
  const blocks = fn.blocks;
  for (const insn of insns) {
    while (bi < blocks.length && insn.address >= blocks[bi]!.end) bi++;
    const b = blocks[bi];
    if (!b || insn.address < b.start) continue;
    let list = byBlock.get(b.start);
    if (!list) byBlock.set(b.start, list = []);
    list.push(insn);
  }
  const unliftedMnemonics = new Map<string, number>();
  const x87Entry = new Map<number, number>();
  const liftBlock = (start: number, entry: Flags | undefined, count: boolean): Lifted => {
    lifter.flags = entry;
    lifter.x87 = x87Entry.get(start) ?? 0;
    lifter.usedEntryFlags = false;
    lifter.startBlock?.();
    const stmts: Stmt[] = [];
    let last: Control | undefined;
    let lastAt = start;
    let unlifted = 0;
    for (const insn of byBlock.get(start) ?? []) {
      const r = lifter.lift(insn);
      stmts.push(...r.stmts);
      last = r.control;
      lastAt = insn.address;
      if (!r.lifted) {
        unlifted++;
        if (count) {
          const m = insn.mnemonic ?? "?";
          unliftedMnemonics.set(m, (unliftedMnemonics.get(m) ?? 0) + 1);
        }
      }
      if (r.control?.k === "call" && r.control.target.k === "const") {
        const target = Number(r.control.target.value);
        // 32-bit PIC: `call __x86.get_pc_thunk.bx` (or `call next; pop ebx`) loads the address
        // of the next instruction.
        const thunk = ctx.pcThunk?.(target) ??
          (lifter instanceof X86Lifter && target === insn.address + insn.size ? "push" : undefined);
        if (thunk) {
          const next = { k: "const", value: BigInt(insn.address + insn.size), size: 4 } as const;
          stmts.pop();
          if (thunk === "push") {
            const sp = { k: "reg", name: lifter.sp, size: 4 } as const;
            const lower = { k: "bin", op: "add", a: sp, b: constant(-4, 4), size: 4 } as const;
            stmts.push({ k: "set", dst: sp, src: lower, at: insn.address });
            stmts.push({ k: "store", addr: sp, value: next, size: 4, at: insn.address });
          } else {
            stmts.push({
              k: "set",
              dst: { k: "reg", name: thunk, size: 4 },
              src: next,
              at: insn.address,
            });
          }
          last = undefined;
          continue;
        }
        if (ctx.isNoReturn(target)) {
          last = { k: "stop", why: "no-return call" };
          break;
        }
      }
    }
    return {
      stmts,
      x87: lifter.x87 ?? 0,
      ...(last ? { last } : {}),
      lastAt,
      ...(lifter.flags ? { exitFlags: lifter.flags } : {}),
      usedEntryFlags: lifter.usedEntryFlags,
      unlifted,
    };
  };

  const lifted = new Map<number, Lifted>();
  const preds = new Map<number, number[]>();
  const succs = new Map<number, number[]>();
  for (const e of fn.edges) {
    if (e.kind === "tail") continue;
    let list = preds.get(e.to);
    if (!list) preds.set(e.to, list = []);
    if (!list.includes(e.from)) list.push(e.from);
    let out = succs.get(e.from);
    if (!out) succs.set(e.from, out = []);
    out.push(e.to);
  }
  // Blocks in depth-first order from the entry, so that a block's x87 stack depth on entry is
  // its first lifted predecessor's on exit (compilers keep the depth equal where paths meet).
  const order: number[] = [];
  const seenBlock = new Set<number>();
  const starts = new Set(blocks.map((b) => b.start));
  const stack = [...blocks.map((b) => b.start).reverse(), fn.start];
  while (stack.length > 0) {
    const b = stack.pop()!;
    if (seenBlock.has(b) || !starts.has(b)) continue;
    seenBlock.add(b);
    order.push(b);
    for (const s of [...(succs.get(b) ?? [])].reverse()) if (!seenBlock.has(s)) stack.push(s);
  }
  for (const b of order) {
    const l = liftBlock(b, undefined, true);
    lifted.set(b, l);
    for (const s of succs.get(b) ?? []) if (!x87Entry.has(s)) x87Entry.set(s, l.x87);
  }
  // Blocks whose conditions read flags set before them: take their predecessors' flags.
  const exitFlags = (start: number, seen: Set<number>): Flags | undefined => {
    const l = lifted.get(start);
    if (!l) return undefined;
    if (l.exitFlags && !l.usedEntryFlags) return l.exitFlags;
    if (l.exitFlags && l.exitFlags.at >= (byBlock.get(start)?.[0]?.address ?? start)) {
      return l.exitFlags;
    }
    return entryFlags(start, seen);
  };
  const entryFlags = (start: number, seen: Set<number>): Flags | undefined => {
    if (seen.has(start)) return undefined;
    seen.add(start);
    const ps = preds.get(start) ?? [];
    let state: Flags | undefined;
    for (const p of ps) {
      const s = exitFlags(p, seen);
      if (!s || (state && state !== s)) return undefined;
      state = s;
    }
    return state;
  };
  for (const b of blocks) {
    const l = lifted.get(b.start)!;
    if (!l.usedEntryFlags) continue;
    const state = entryFlags(b.start, new Set());
    if (state) lifted.set(b.start, liftBlock(b.start, state, false));
  }
  // A call's float result is `st0` (depth 0), a value pushed is `fp0` (depth 1): where a path
  // that called meets one that pushed (`x > 0 ? sqrt(x) : 0.0`), the block entered at the other
  // depth copies its value to where the join reads it.
  for (const [b, l] of lifted) {
    for (const s of succs.get(b) ?? []) {
      const want = x87Entry.get(s);
      if (want === undefined || want === l.x87 || Math.max(want, l.x87) !== 1) continue;
      const fp0 = { k: "reg", name: "fp0", size: 10 } as const;
      const st0 = { k: "reg", name: "st0", size: 10 } as const;
      const [dst, src] = want === 1 ? [fp0, st0] : [st0, fp0];
      l.stmts.push({ k: "set", dst, src, at: l.lastAt });
      break;
    }
  }

  const irBlocks = new Map<number, IrBlock>();
  const inside = new Set(blocks.map((b) => b.start));
  let synthetic = -1;
  const extra: IrBlock[] = [];
  // A target outside the function: a block of its own that tail-calls it.
  const toTarget = (to: number, at: number): number => {
    if (inside.has(to)) return to;
    const id = synthetic--;
    extra.push({
      start: id,
      end: id,
      stmts: [],
      phis: [],
      term: { k: "tail", target: constant(to, bits / 8), args: [], at },
    });
    return id;
  };
  let instructions = 0;
  let unlifted = 0;
  // Each block's outgoing edges, in the analysis's order (one pass, not one per block).
  const outgoing = new Map<number, FunctionInfo["edges"]>();
  for (const e of fn.edges) {
    const list = outgoing.get(e.from);
    if (list) list.push(e);
    else outgoing.set(e.from, [e]);
  }
  for (const b of blocks) {
    const l = lifted.get(b.start)!;
    instructions += byBlock.get(b.start)?.length ?? 0;
    unlifted += l.unlifted;
    const edges = outgoing.get(b.start) ?? [];
    const at = l.lastAt;
    const fall = edges.find((e) => e.kind === "fall" || e.kind === "jump");
    let term: Term;
    const last = l.last;
    if (last?.k === "cjump") {
      const t = edges.find((e) => e.kind === "true")?.to ?? last.target;
      const f = edges.find((e) => e.kind === "false" || e.kind === "fall")?.to ??
        (byBlock.get(b.start)?.at(-1) ? b.end : b.end);
      term = { k: "branch", cond: last.cond, then: toTarget(t, at), else: toTarget(f, at), at };
    } else if (last?.k === "jump") {
      const cases = edges.filter((e) => e.kind === "case");
      if (cases.length > 0) {
        const byTarget = new Map<number, number[]>();
        for (const c of cases) {
          const list = byTarget.get(c.to) ?? [];
          list.push(c.value ?? 0);
          byTarget.set(c.to, list);
        }
        term = {
          k: "switch",
          value: last.target,
          cases: [...byTarget].map(([to, values]) => ({ values, to: toTarget(to, at) })),
          at,
        };
      } else if (last.target.k === "const") {
        const to = Number(last.target.value);
        term = inside.has(to) && to !== fn.start
          ? { k: "jump", to, at }
          : { k: "tail", target: last.target, args: [], at };
      } else term = { k: "tail", target: last.target, args: [], at };
    } else if (last?.k === "ret") term = { k: "ret", at };
    else if (last?.k === "stop") term = { k: "stop", at, why: last.why };
    else if (fall) term = { k: "jump", to: toTarget(fall.to, at), at };
    else if (inside.has(b.end)) term = { k: "jump", to: b.end, at };
    else term = { k: "stop", at, why: "the analysis found no successor" };
    irBlocks.set(b.start, { start: b.start, end: b.end, stmts: l.stmts, term, phis: [] });
  }
  for (const e of extra) irBlocks.set(e.start, e);
  const fnIr: IrFunction = {
    entry: fn.start,
    blocks: irBlocks,
    arch: { ptr: bits / 8, sp: lifter.sp, retAddr: lifter.retAddr ?? bits / 8 },
    warnings: [],
  };
  return { fn: fnIr, instructions, unlifted, unliftedMnemonics };
}
