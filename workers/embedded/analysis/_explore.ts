/**
 * Recursive descent over one function: follows branches from its start, stops at returns,
 * other functions' starts and calls to functions that never return, and records what the
 * CFG, call graph and discovery need.
 */

import type { Insn } from "../arch/types.ts";
import { AddrSet } from "./_addr_set.ts";
import type { CodeCache } from "./_code_cache.ts";

/**
 * How far back along one path `before` walks: a computed goto's table base (`lea r14, disptab`)
 * is set once at the function's entry, far from the dispatch jumps.
 */
export const DEEP_SLICE = 768;

/** A resolved switch: the targets of an indirect jump, in table order. */
export interface SwitchTable {
  table: number;
  targets: number[];
  /**
   * False when no range check or index width bounded the table: entries were read while they
   * looked like code, so exploration keeps only the leading ones inside the function.
   */
  bounded?: boolean;
  /** Bytes of the table that lie inside code (ARM `tbb`/`tbh`, PowerPC): data, not instructions. */
  inlineBytes?: number;
}

/** What exploration needs to know about the rest of the program. */
export interface ExploreContext {
  cache: CodeCache;
  /** Starts of every known function (and import stub). */
  isFunctionStart(addr: number): boolean;
  /** Whether a call to `addr` never returns. */
  isNoReturn(addr: number): boolean;
  /** The call/jump target an indirect branch through memory slot `slot` means (GOT/IAT). */
  slotTarget(slot: number): number | undefined;
  /**
   * Where an indirect call or jump through a GOT slot goes (MIPS `lw $t9, off($gp); jalr $t9`):
   * the import, or the function whose address the slot holds.
   */
  gotTarget?: ((insn: Insn, before: () => Iterable<Insn>) => number | undefined) | undefined;
  /**
   * Where a register jump that is a branch within the function goes (MIPS gcc's long branch,
   * `lw $at, %got_page(L)($gp); addiu $at, $at, %got_ofst(L); jr $at`), if it is one.
   */
  longBranch?: ((ijump: Insn, before: () => Iterable<Insn>) => number | undefined) | undefined;
  /** Recognise a jump table ending at `ijump`; `before` walks back along the path. */
  resolveSwitch(ijump: Insn, before: () => Iterable<Insn>): SwitchTable | undefined;
  /** The first known function start above `addr` (Infinity when none). */
  nextStartAfter(addr: number): number;
  /** Whether `insn` takes its `memRef` as an address (x86 lea, AArch64 adr) rather than reading it. */
  takesAddress(insn: Insn): boolean;
  /** A code address the instruction loads as an immediate (x86 `mov r, imm32`), if any. */
  immediatePointer?: ((insn: Insn) => number | undefined) | undefined;
  /**
   * The end of the section holding `addr` (Infinity when unknown): code does not fall through
   * from one section into the next (a RISC-V PLT stub's `jalr t1` into `.text`).
   */
  sectionEnd?: ((addr: number) => number) | undefined;
  /** Where the alignment padding starting at an address ends (the address itself if none). */
  paddingEnd?: ((addr: number) => number) | undefined;
  /** Throws when the analysis budget is used up; called every few thousand instructions. */
  checkBudget?: (() => void) | undefined;
  /** MIPS: branches have one delay slot. */
  delaySlots: boolean;
  /** PowerPC64 ELFv2: a call to `f + 8` is a call to `f`'s local entry. */
  localEntryOffset: number;
  /** PowerPC64 ELFv2: whether `addr` sets up the TOC pointer (`addis r2, r12; addi r2, r2`). */
  isGlobalEntry?: ((addr: number) => boolean) | undefined;
}

/** An edge by the address of the instruction that branches. */
export interface InsnEdge {
  from: number;
  to: number;
  kind: "true" | "false" | "jump" | "fall" | "case" | "tail";
  value?: number;
}

/**
 * The result of exploring one function. Only addresses of instructions are kept (an analysis
 * keeps every function's trace to the end): the instructions themselves come from the
 * {@link CodeCache} again.
 */
export interface Trace {
  start: number;
  /** Addresses of the instructions reached. */
  insns: AddrSet;
  /** Addresses where a block must start (branch targets, after conditional branches). */
  leaders: AddrSet;
  /** Instructions after which a block ends (branches, or their MIPS delay slots). */
  enders: AddrSet;
  edges: InsnEdge[];
  calls: { from: number; to: number }[];
  /** Addresses of code taken as values (lea of a code address): candidate functions. */
  codePointers: number[];
  /** Code addresses read as data (ARM literal pools): not instructions. */
  dataInCode: number[];
  /** Jump tables inside code: data, not instructions. */
  inlineTables: { start: number; size: number }[];
  mayReturn: boolean;
  /** Instructions that failed to decode were reached. */
  bad: boolean;
  switches: number;
}

/**
 * Explore the function at `start`. `ranges` bound it when a symbol or unwind table gives its
 * extent (a jump outside them is a tail call); `extraEntries` are its split-off parts (`.cold`).
 */
export function explore(
  ctx: ExploreContext,
  start: number,
  ranges: readonly { start: number; end: number }[] | undefined,
  extraEntries: readonly number[],
): Trace {
  // Hash sets while exploring, sorted arrays in the result.
  const insns = new Map<number, Insn>();
  const leaders = new Set([start, ...extraEntries]);
  const enders = new Set<number>();
  const trace: Omit<Trace, "insns" | "leaders" | "enders"> = {
    start,
    edges: [],
    calls: [],
    codePointers: [],
    dataInCode: [],
    inlineTables: [],
    mayReturn: false,
    bad: false,
    switches: 0,
  };
  const own = new Set([start, ...extraEntries]);
  const prevOf = new Map<number, number>();
  const stack: number[] = [...extraEntries.slice().reverse(), start];
  const cache = ctx.cache;
  // Without a known extent, a jump before the start or past the next known function is a tail
  // call: loops never branch before their function's entry.
  const next = ranges === undefined ? ctx.nextStartAfter(start) : Infinity;
  const inRange = (a: number) =>
    ranges === undefined ? a >= start && a < next : ranges.some((r) => a >= r.start && a < r.end);

  const isTail = (to: number): boolean => !own.has(to) && (ctx.isFunctionStart(to) || !inRange(to));

  const before = (from: number) =>
    function* (): Iterable<Insn> {
      let a = prevOf.get(from);
      for (let i = 0; a !== undefined && i < DEEP_SLICE; i++) {
        const insn = insns.get(a);
        if (insn === undefined) return;
        yield insn;
        a = prevOf.get(a);
      }
    };

  /** Resolves the switch at an indirect jump and queues its cases; false when unresolved. */
  const addCases = (addr: number, last: number): boolean => {
    const sw = ctx.resolveSwitch(insns.get(addr)!, before(addr));
    if (sw === undefined) return false;
    trace.switches++;
    if (sw.inlineBytes !== undefined) {
      trace.inlineTables.push({ start: sw.table, size: sw.inlineBytes });
    }
    let targets = sw.targets;
    if (sw.bounded === false) {
      const n = targets.findIndex((to) => !inRange(to) || ctx.isFunctionStart(to));
      if (n >= 0) targets = targets.slice(0, n);
    }
    targets.forEach((to, i) => {
      trace.edges.push({ from: addr, to, kind: "case", value: i });
      leaders.add(to);
      if (!prevOf.has(to)) prevOf.set(to, last);
      stack.push(to);
    });
    return true;
  };

  while (stack.length > 0) {
    let addr = stack.pop()!;
    let prev: number | undefined;
    const sectionEnd = ctx.sectionEnd?.(addr) ?? Infinity;
    while (true) {
      if (addr >= sectionEnd) {
        if (prev !== undefined) enders.add(prev);
        break;
      }
      if (insns.has(addr)) break;
      // One function can be huge (a bogus extent over megabytes of zeros): stay in budget.
      if ((insns.size & 4095) === 4095) ctx.checkBudget?.();
      if (addr !== start && !own.has(addr) && ctx.isFunctionStart(addr)) {
        // Flowed into the next function: the call before was to one that does not return,
        // or this is a shared tail. Either way the other function owns the code.
        if (prev !== undefined) {
          trace.edges.push({ from: prev, to: addr, kind: "tail" });
          enders.add(prev);
        }
        trace.mayReturn = true;
        break;
      }
      const insn = cache.at(addr);
      if (insn === undefined || insn.flow === "invalid") {
        trace.bad = true;
        if (prev !== undefined) enders.add(prev);
        break;
      }
      insns.set(addr, insn);
      if (prev !== undefined && !prevOf.has(addr)) prevOf.set(addr, prev);
      const next = addr + insn.size;
      // The instruction after which the block really ends (the delay slot on MIPS).
      let last = addr;
      let after = next;
      if (ctx.delaySlots && insn.flow !== "seq" && insn.flow !== "trap") {
        const slot = cache.at(next);
        if (slot !== undefined && slot.flow === "seq") {
          insns.set(next, slot);
          prevOf.set(next, addr);
          last = next;
          after = next + slot.size;
        }
      }
      prev = last;
      if (insn.memRef !== undefined && insn.flow === "seq" && cache.isCode(insn.memRef)) {
        if (ctx.takesAddress(insn)) trace.codePointers.push(insn.memRef);
        else trace.dataInCode.push(insn.memRef);
      } else if (insn.memRef === undefined && insn.flow === "seq" && ctx.immediatePointer) {
        const p = ctx.immediatePointer(insn);
        if (p !== undefined && cache.isCode(p)) trace.codePointers.push(p);
      }
      let stop = false;
      switch (insn.flow) {
        case "seq":
          break;
        case "call":
        case "icall": {
          let to = insn.target;
          if (to === undefined && insn.memRef !== undefined) to = ctx.slotTarget(insn.memRef);
          if (to === undefined) to = ctx.gotTarget?.(insn, before(addr));
          if (to === undefined) break;
          if (to === after && insn.flow === "call") break; // call next; pop: PC thunk idiom
          if (ctx.localEntryOffset > 0 && !ctx.isFunctionStart(to)) {
            const global = to - ctx.localEntryOffset;
            if (ctx.isFunctionStart(global) || ctx.isGlobalEntry?.(global) === true) to = global;
          }
          trace.calls.push({ from: addr, to });
          if (ctx.isNoReturn(to)) {
            enders.add(last);
            stop = true;
          }
          break;
        }
        case "cjump": {
          const to = insn.target;
          if (to === undefined) {
            leaders.add(after);
            enders.add(last);
            trace.edges.push({ from: addr, to: after, kind: "false" });
            // A conditional write to PC (A32 `addls pc, pc, r0, lsl #2`) can be a switch.
            addCases(addr, last);
            break;
          }
          enders.add(last);
          leaders.add(after);
          // Without a known extent, `jmp X` straight before alignment padding that ends at X is
          // a tail call to the function after the padding, not a jump within this one.
          const overPadding = ranges === undefined && to > after && ctx.paddingEnd?.(after) === to;
          if (isTail(to) || overPadding) {
            trace.edges.push({ from: addr, to, kind: "tail" });
            trace.mayReturn = true;
          } else {
            trace.edges.push({ from: addr, to, kind: "true" });
            leaders.add(to);
            stack.push(to);
            if (!prevOf.has(to)) prevOf.set(to, last);
          }
          trace.edges.push({ from: addr, to: after, kind: "false" });
          break;
        }
        case "jump": {
          const to = insn.target;
          enders.add(last);
          stop = true;
          if (to === undefined) {
            trace.mayReturn = true;
            break;
          }
          // Without a known extent, `jmp X` straight before alignment padding that ends at X is
          // a tail call to the function after the padding, not a jump within this one.
          const overPadding = ranges === undefined && to > after && ctx.paddingEnd?.(after) === to;
          if (isTail(to) || overPadding) {
            trace.edges.push({ from: addr, to, kind: "tail" });
            if (!ctx.isNoReturn(to)) trace.mayReturn = true;
          } else {
            trace.edges.push({ from: addr, to, kind: "jump" });
            leaders.add(to);
            if (!prevOf.has(to)) prevOf.set(to, last);
            stack.push(to);
          }
          break;
        }
        case "ijump": {
          enders.add(last);
          stop = true;
          const far = ctx.longBranch?.(insn, before(addr));
          if (far !== undefined && !isTail(far)) {
            trace.edges.push({ from: addr, to: far, kind: "jump" });
            leaders.add(far);
            if (!prevOf.has(far)) prevOf.set(far, last);
            stack.push(far);
            break;
          }
          const slot = insn.memRef !== undefined
            ? ctx.slotTarget(insn.memRef)
            : ctx.gotTarget?.(insn, before(addr));
          if (slot !== undefined) {
            trace.edges.push({ from: addr, to: slot, kind: "tail" });
            if (!ctx.isNoReturn(slot)) trace.mayReturn = true;
            break;
          }
          if (!addCases(addr, last)) trace.mayReturn = true;
          break;
        }
        case "ret":
          trace.mayReturn = true;
          enders.add(last);
          stop = true;
          break;
        default:
          enders.add(last);
          stop = true;
      }
      if (stop) break;
      addr = after;
    }
  }
  return {
    ...trace,
    insns: new AddrSet(insns.keys(), insns.size),
    leaders: new AddrSet(leaders, leaders.size),
    enders: new AddrSet(enders, enders.size),
  };
}
