/**
 * What the jump-table slice of the load/store ISAs needs to know about registers and the stack
 * frame: which registers a call keeps, how a store and a frame access are written, and when an
 * instruction moves the frame base.
 *
 * A compiler that runs out of registers spills a computed-goto table's base to the frame at the
 * function's entry and reloads it before each dispatch (gcc's Thumb-2 build of Lua's
 * interpreter: `str.w sl, [sp, #32]` … `ldr r2, [sp, #32]; ldr.w r3, [r2, r3, lsl #2]; bx r3`),
 * so the slice follows a reload back to the store that filled the slot.
 */

import { splitOperands } from "../arch/operands.ts";

/** Registers a call leaves as they were, per ISA (as the slice names them, without `$`). */
const CALLEE_SAVED: Record<string, ReadonlySet<string>> = {
  arm: new Set(["r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "sb", "sl", "fp", "sp"]),
  aarch64: new Set([...Array.from({ length: 11 }, (_, i) => `x${19 + i}`), "sp"]),
  mips: new Set(["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "fp", "sp", "gp"]),
  mips64: new Set(["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "fp", "sp", "gp"]),
  riscv64: new Set([...Array.from({ length: 12 }, (_, i) => `s${i}`), "fp", "sp"]),
  riscv32: new Set([...Array.from({ length: 12 }, (_, i) => `s${i}`), "fp", "sp"]),
  ppc64: new Set([...Array.from({ length: 18 }, (_, i) => `r${14 + i}`), "r1", "r2"]),
};

/** Registers a function addresses its frame through (stack and frame pointers), per ISA. */
const FRAME_BASES: Record<string, ReadonlySet<string>> = {
  arm: new Set(["sp", "r7", "r11", "fp"]),
  aarch64: new Set(["sp", "x29"]),
  mips: new Set(["sp", "fp", "s8"]),
  mips64: new Set(["sp", "fp", "s8"]),
  riscv64: new Set(["sp", "s0", "fp"]),
  riscv32: new Set(["sp", "s0", "fp"]),
  ppc64: new Set(["r1", "r31"]),
};

/** Whether `r` addresses the frame on `arch`: a slot read through it holds a spilled value. */
export function isFrameBase(arch: string, r: string): boolean {
  return FRAME_BASES[arch]?.has(r) === true;
}

/** Whether a call on `arch` leaves register `r` as it was. */
export function calleeSaved(arch: string, r: string): boolean {
  return CALLEE_SAVED[arch]?.has(r) === true;
}

/** A memory operand with a register base and a constant offset: `[sp, #32]`, `16($sp)`. */
export interface FrameRef {
  base: string;
  offset: number;
  /** Pre-indexed with writeback (`[sp, #-16]!`): the base moves too. */
  writeback: boolean;
}

function int(s: string): number {
  const neg = s.startsWith("-");
  const v = Number.parseInt(neg ? s.slice(1) : s, s.includes("0x") ? 16 : 10);
  return neg ? -v : v;
}

const BRACKET = /^\[\$?([a-z][a-z0-9]*)(?:,\s*#(-?(?:0x[0-9a-f]+|\d+)))?\](!?)$/;
const PAREN = /^(-?(?:0x[0-9a-f]+|\d+))?\(\$?([a-z][a-z0-9]*)\)$/;

/** `op` as a base-plus-constant memory operand; undefined for any other form. */
export function frameRef(op: string | undefined): FrameRef | undefined {
  if (op === undefined) return undefined;
  const b = BRACKET.exec(op);
  if (b !== null) {
    return { base: b[1]!, offset: b[2] === undefined ? 0 : int(b[2]), writeback: b[3] === "!" };
  }
  const p = PAREN.exec(op);
  if (p !== null) {
    return { base: p[2]!, offset: p[1] === undefined ? 0 : int(p[1]), writeback: false };
  }
  return undefined;
}

/** Bytes per register a store writes, by its bare mnemonic (pairs: `strd`, `stp`). */
const STORE_SIZE: Record<string, number> = {
  str: 4,
  strd: 4,
  stp: 8,
  sw: 4,
  swsp: 4,
  sd: 8,
  sdsp: 8,
  std: 8,
  stw: 4,
  strb: 1,
  strh: 2,
  sb: 1,
  sh: 2,
  stb: 1,
  sth: 2,
};

/** One register a store writes to the frame. */
export interface Spill {
  reg: string;
  ref: FrameRef;
  size: number;
  /** Post-indexed (`str r3, [sp], #4`): the base moves after the store. */
  postIndex: boolean;
}

/**
 * The registers a store writes and where: `str r, [b, #n]`, `strd r0, r1, [b, #n]`,
 * `stp x19, x20, [b, #n]`, `sw r, n(b)`. `regOf` names a register operand (undefined when it is
 * not one). Undefined for anything that is not such a store.
 */
export function spillsOf(
  mnemonic: string,
  ops: string,
  regOf: (s: string | undefined) => string | undefined,
): Spill[] | undefined {
  const size = STORE_SIZE[mnemonic];
  if (size === undefined) return undefined;
  const parts = splitOperands(ops);
  const memAt = parts.findIndex((p) => p.startsWith("[") || p.endsWith(")"));
  if (memAt < 1) return undefined;
  const ref = frameRef(parts[memAt]);
  if (ref === undefined) return undefined;
  const postIndex = parts.length > memAt + 1;
  const out: Spill[] = [];
  for (let i = 0; i < memAt; i++) {
    const r = regOf(parts[i]);
    if (r === undefined) return undefined;
    // AArch64 `w` registers (already named as `x` by regOf) store 4 bytes, `x` registers 8.
    const each = mnemonic === "stp" || (mnemonic === "str" && /^[xw]\d/.test(parts[i]!))
      ? (parts[i]!.startsWith("w") ? 4 : 8)
      : size;
    out.push({ reg: r, ref: { ...ref, offset: ref.offset + i * each }, size: each, postIndex });
  }
  return out;
}

/**
 * Whether an instruction that is not a store to the slot moves `base` (a register the slice
 * reads a frame slot through): it writes `base` (`sub sp, sp, #84`), pushes or pops
 * (`push`, `stmdb sp!`, `vpush`), or indexes memory through `base` with writeback.
 */
export function movesBase(
  mnemonic: string,
  ops: string,
  base: string,
  regOf: (s: string | undefined) => string | undefined,
): boolean {
  if (/^(push|pop|vpush|vpop)$/.test(mnemonic)) return base === "sp";
  const parts = splitOperands(ops);
  const written = (p: string) =>
    p === `${base}!` || (p.endsWith("!") && frameRef(p)?.base === base);
  if (parts.some(written)) return true;
  const memAt = parts.findIndex((p) => p.startsWith("[") || p.endsWith(")"));
  if (memAt >= 0 && parts.length > memAt + 1 && frameRef(parts[memAt])?.base === base) {
    return true; // post-indexed through the base
  }
  // A store reads its first operand; anything else with `base` first writes it.
  return STORE_SIZE[mnemonic] === undefined && !/^(cmp|cmn|tst|teq)/.test(mnemonic) &&
    regOf(parts[0]) === base;
}
