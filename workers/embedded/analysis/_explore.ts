/**
 * Recursive descent over one function: follows branches from its start, stops at returns,
 * other functions' starts and calls to functions that never return, and records what the
 * CFG, call graph and discovery need.
 */

import type { Insn } from "../arch/types.ts";
import { AddrMap } from "./_addr_map.ts";
import { AddrSet } from "./_addr_set.ts";
import { type CodeCache, FLOW_CODE } from "./_code_cache.ts";

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
  /**
   * Whether the instruction at `address` takes its `memRef` as an address (x86 lea, AArch64
   * adr) rather than reading it.
   */
  takesAddress(address: number, size: number): boolean;
  /** A code address the instruction loads as an immediate (x86 `mov r, imm32`), if any. */
  immediatePointer?: ((address: number, size: number) => number | undefined) | undefined;
  /**
   * The end of the section holding `addr` (Infinity when unknown): code does not fall through
   * from one section into the next (a RISC-V PLT stub's `jalr t1` into `.text`).
   */
  sectionEnd?: ((addr: number) => number) | undefined;
  /** Where the alignment padding starting at an address ends (the address itself if none). */
  paddingEnd?: ((addr: number) => number) | undefined;
  /**
   * Whether a run of zero bytes starts at an address, on ISAs where zeros decode as an ordinary
   * instruction (x86 `add [rax], al`, A32 `andeq r0, r0, r0`): flowing into one is flowing into
   * padding or data (after a call that does not return), not into code.
   */
  zeroRunAt?: ((addr: number) => boolean) | undefined;
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
  // One pair of scratch maps serves every exploration in turn (nothing explores from inside an
  // exploration's callbacks).
  const s = scratch ??= { insns: new AddrMap(1 << 12), prevOf: new AddrMap(1 << 12), busy: false };
  if (s.busy) throw new Error("explore() is not re-entrant");
  s.busy = true;
  try {
    return exploreWith(ctx, start, ranges, extraEntries, s.insns, s.prevOf);
  } finally {
    s.insns.clear();
    s.prevOf.clear();
    s.busy = false;
  }
}

let scratch: { insns: AddrMap; prevOf: AddrMap; busy: boolean } | undefined;

const SEQ = FLOW_CODE.seq;
const TRAP = FLOW_CODE.trap;
const INVALID = FLOW_CODE.invalid;
const CALL = FLOW_CODE.call;
const ICALL = FLOW_CODE.icall;
const CJUMP = FLOW_CODE.cjump;
const JUMP = FLOW_CODE.jump;
const IJUMP = FLOW_CODE.ijump;
const RET = FLOW_CODE.ret;

/**
 * {@link explore} over empty scratch maps: `insns` takes each reached address to its
 * instruction number in the cache, `prevOf` to the instruction that led there.
 */
function exploreWith(
  ctx: ExploreContext,
  start: number,
  ranges: readonly { start: number; end: number }[] | undefined,
  extraEntries: readonly number[],
  insns: AddrMap,
  prevOf: AddrMap,
): Trace {
  // Addresses in the order reached; leaders and enders with repeats (sorted and made unique
  // at the end).
  const reached: number[] = [];
  const leaders: number[] = [start, ...extraEntries];
  const enders: number[] = [];
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
  const extra = extraEntries.length > 0 ? new Set(extraEntries) : undefined;
  const own = (a: number) => a === start || extra?.has(a) === true;
  const stack: number[] = [...extraEntries.slice().reverse(), start];
  const cache = ctx.cache;
  // Without a known extent, a jump before the start or past the next known function is a tail
  // call: loops never branch before their function's entry.
  const next = ranges === undefined ? ctx.nextStartAfter(start) : Infinity;
  const inRange = (a: number) =>
    ranges === undefined ? a >= start && a < next : ranges.some((r) => a >= r.start && a < r.end);

  const isTail = (to: number): boolean => !own(to) && (ctx.isFunctionStart(to) || !inRange(to));

  const before = (from: number) =>
    function* (): Iterable<Insn> {
      let a = prevOf.get(from);
      for (let i = 0; a === a && i < DEEP_SLICE; i++) {
        const n = insns.get(a);
        if (n !== n) return;
        yield cache.insn(n, a);
        a = prevOf.get(a);
      }
    };

  /** Resolves the switch at an indirect jump and queues its cases; false when unresolved. */
  const addCases = (addr: number, last: number): boolean => {
    const sw = ctx.resolveSwitch(cache.insn(insns.get(addr), addr), before(addr));
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
      leaders.push(to);
      if (!prevOf.has(to)) prevOf.set(to, last);
      stack.push(to);
    });
    return true;
  };

  while (stack.length > 0) {
    let addr = stack.pop()!;
    let prev = NaN;
    const sectionEnd = ctx.sectionEnd?.(addr) ?? Infinity;
    while (true) {
      if (addr >= sectionEnd) {
        if (prev === prev) enders.push(prev);
        break;
      }
      if (insns.has(addr)) break;
      // One function can be huge (a bogus extent over megabytes of zeros): stay in budget.
      if ((insns.size & 4095) === 4095) ctx.checkBudget?.();
      if (!own(addr) && ctx.isFunctionStart(addr)) {
        // Flowed into the next function: the call before was to one that does not return,
        // or this is a shared tail. Either way the other function owns the code.
        if (prev === prev) {
          trace.edges.push({ from: prev, to: addr, kind: "tail" });
          enders.push(prev);
        }
        trace.mayReturn = true;
        break;
      }
      const n = cache.indexAt(addr);
      const flow = n < 0 ? INVALID : cache.flowOf(n);
      if (flow === INVALID) {
        trace.bad = true;
        if (prev === prev) enders.push(prev);
        break;
      }
      if (prev === prev && ctx.zeroRunAt?.(addr) === true) {
        // A raw blob's megabytes of zeros would otherwise be explored as one function.
        enders.push(prev);
        trace.mayReturn = true;
        break;
      }
      insns.set(addr, n);
      reached.push(addr);
      if (prev === prev && !prevOf.has(addr)) prevOf.set(addr, prev);
      const size = cache.sizeOf(n);
      const next = addr + size;
      // The instruction after which the block really ends (the delay slot on MIPS).
      let last = addr;
      let after = next;
      if (ctx.delaySlots && flow !== SEQ && flow !== TRAP) {
        const slot = cache.indexAt(next);
        if (slot >= 0 && cache.flowOf(slot) === SEQ) {
          if (!insns.has(next)) reached.push(next);
          insns.set(next, slot);
          prevOf.set(next, addr);
          last = next;
          after = next + cache.sizeOf(slot);
        }
      }
      prev = last;
      const memRef = cache.memRefOf(n);
      if (flow === SEQ) {
        if (memRef === memRef) {
          if (cache.isCode(memRef)) {
            if (ctx.takesAddress(addr, size)) trace.codePointers.push(memRef);
            else trace.dataInCode.push(memRef);
          }
        } else if (ctx.immediatePointer) {
          const p = ctx.immediatePointer(addr, size);
          if (p !== undefined && cache.isCode(p)) trace.codePointers.push(p);
        }
        addr = after;
        continue;
      }
      const target = cache.targetOf(n);
      let stop = false;
      switch (flow) {
        case CALL:
        case ICALL: {
          let to: number | undefined = target === target ? target : undefined;
          if (to === undefined && memRef === memRef) to = ctx.slotTarget(memRef);
          if (to === undefined && ctx.gotTarget) {
            to = ctx.gotTarget(cache.insn(n, addr), before(addr));
          }
          if (to === undefined) break;
          if (to === after && flow === CALL) break; // call next; pop: PC thunk idiom
          if (ctx.localEntryOffset > 0 && !ctx.isFunctionStart(to)) {
            const global = to - ctx.localEntryOffset;
            if (ctx.isFunctionStart(global) || ctx.isGlobalEntry?.(global) === true) to = global;
          }
          trace.calls.push({ from: addr, to });
          if (ctx.isNoReturn(to)) {
            enders.push(last);
            stop = true;
          }
          break;
        }
        case CJUMP: {
          if (target !== target) {
            leaders.push(after);
            enders.push(last);
            trace.edges.push({ from: addr, to: after, kind: "false" });
            // A conditional write to PC (A32 `addls pc, pc, r0, lsl #2`) can be a switch.
            addCases(addr, last);
            break;
          }
          const to = target;
          enders.push(last);
          leaders.push(after);
          // Without a known extent, `jmp X` straight before alignment padding that ends at X is
          // a tail call to the function after the padding, not a jump within this one.
          const overPadding = ranges === undefined && to > after && ctx.paddingEnd?.(after) === to;
          if (isTail(to) || overPadding) {
            trace.edges.push({ from: addr, to, kind: "tail" });
            trace.mayReturn = true;
          } else {
            trace.edges.push({ from: addr, to, kind: "true" });
            leaders.push(to);
            stack.push(to);
            if (!prevOf.has(to)) prevOf.set(to, last);
          }
          trace.edges.push({ from: addr, to: after, kind: "false" });
          break;
        }
        case JUMP: {
          enders.push(last);
          stop = true;
          if (target !== target) {
            trace.mayReturn = true;
            break;
          }
          const to = target;
          // Without a known extent, `jmp X` straight before alignment padding that ends at X is
          // a tail call to the function after the padding, not a jump within this one.
          const overPadding = ranges === undefined && to > after && ctx.paddingEnd?.(after) === to;
          if (isTail(to) || overPadding) {
            trace.edges.push({ from: addr, to, kind: "tail" });
            if (!ctx.isNoReturn(to)) trace.mayReturn = true;
          } else {
            trace.edges.push({ from: addr, to, kind: "jump" });
            leaders.push(to);
            if (!prevOf.has(to)) prevOf.set(to, last);
            stack.push(to);
          }
          break;
        }
        case IJUMP: {
          enders.push(last);
          stop = true;
          const far = ctx.longBranch?.(cache.insn(n, addr), before(addr));
          if (far !== undefined && !isTail(far)) {
            trace.edges.push({ from: addr, to: far, kind: "jump" });
            leaders.push(far);
            if (!prevOf.has(far)) prevOf.set(far, last);
            stack.push(far);
            break;
          }
          const slot = memRef === memRef
            ? ctx.slotTarget(memRef)
            : ctx.gotTarget?.(cache.insn(n, addr), before(addr));
          if (slot !== undefined) {
            trace.edges.push({ from: addr, to: slot, kind: "tail" });
            if (!ctx.isNoReturn(slot)) trace.mayReturn = true;
            break;
          }
          if (!addCases(addr, last)) trace.mayReturn = true;
          break;
        }
        case RET:
          trace.mayReturn = true;
          enders.push(last);
          stop = true;
          break;
        default:
          enders.push(last);
          stop = true;
      }
      if (stop) break;
      addr = after;
    }
  }
  return {
    ...trace,
    insns: new AddrSet(reached),
    leaders: new AddrSet(leaders),
    enders: new AddrSet(enders),
  };
}
