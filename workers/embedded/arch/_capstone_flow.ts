/**
 * Control flow, direct targets and referenced addresses of Capstone-decoded instructions, one
 * classifier per architecture. Capstone's groups are unreliable for this (RISC-V `j` and `ret`
 * carry CS_GRP_CALL, ARM `pop {pc}` carries no group), so each classifier reads the canonical
 * instruction name, condition code and operands instead.
 */

import { type CsInsnView, OP_IMM, OP_MEM } from "./_capstone_insn.ts";
import type { Insn } from "./types.ts";

/** What a classifier may need beyond the instruction view. */
export interface FlowContext {
  thumb: boolean;
  bits: 32 | 64;
  bigEndian: boolean;
  /** The bytes being decoded and the current instruction's offset in them. */
  bytes: Uint8Array;
  pos: number;
}

/** Sets `flow`, `target` and `memRef` of `out` from the current instruction. */
export type Classifier = (v: CsInsnView, out: Insn, ctx: FlowContext) => void;

const ARM_CC_AL = 15;
const CS_AC_WRITE = 2;

function lastImm(v: CsInsnView): number | undefined {
  const n = v.opCount();
  return n > 0 && v.opType(n - 1) === OP_IMM ? v.imm(n - 1) : undefined;
}

function direct(out: Insn, flow: "jump" | "cjump" | "call", target: number | undefined): void {
  if (target === undefined) {
    out.flow = flow === "call" ? "icall" : flow === "jump" ? "ijump" : "cjump";
    return;
  }
  out.flow = flow;
  out.target = target;
}

const A64_INDIRECT_JUMP = new Set(["br", "braa", "braaz", "brab", "brabz"]);
const A64_INDIRECT_CALL = new Set(["blr", "blraa", "blraaz", "blrab", "blrabz"]);
const A64_RETURN = new Set(["ret", "retaa", "retab", "eret", "eretaa", "eretab", "drps"]);
const A64_COMPARE_BRANCH = new Set(["cbz", "cbnz", "tbz", "tbnz"]);
const A64_TRAP = new Set(["brk", "hlt", "udf"]);

/** AArch64: B/B.cond/BC.cond, BL, CB(N)Z, TB(N)Z, BR/BLR/RET (+PAuth), BRK/HLT/UDF. */
export const classifyAarch64: Classifier = (v, out) => {
  const name = v.name();
  if (name === "b") {
    const cc = v.cc();
    direct(out, cc === 0 || cc >= ARM_CC_AL ? "jump" : "cjump", lastImm(v));
  } else if (name === "bc") direct(out, "cjump", lastImm(v));
  else if (name === "bl") direct(out, "call", lastImm(v));
  else if (A64_COMPARE_BRANCH.has(name)) direct(out, "cjump", lastImm(v));
  else if (A64_INDIRECT_JUMP.has(name)) out.flow = "ijump";
  else if (A64_INDIRECT_CALL.has(name)) out.flow = "icall";
  else if (A64_RETURN.has(name)) out.flow = "ret";
  else if (A64_TRAP.has(name)) out.flow = "trap";
  else if (name === "adr" || name === "adrp") {
    const value = lastImm(v);
    if (value !== undefined) out.memRef = value;
  } else if ((name.startsWith("ld") || name === "prfm") && v.opCount() === 2) {
    // A literal load: Capstone gives the absolute address as the immediate operand.
    const value = lastImm(v);
    if (value !== undefined) out.memRef = value;
  }
};

const ARM_LOAD_MULTIPLE = new Set(["ldm", "ldmda", "ldmdb", "ldmib", "pop"]);
const ARM_PC_ARITH = new Set(["add", "addw", "sub", "subw", "adr"]);

/** The value PC reads as in A32 (address + 8) or Thumb (word-aligned address + 4). */
function pcValue(v: CsInsnView, thumb: boolean): number {
  return thumb ? (v.address + 4) - ((v.address + 4) % 4) : v.address + 8;
}

/**
 * ARM and Thumb: B/BL/BLX/BX/CB(N)Z/TBB/TBH, and any instruction writing PC (pop/ldm/ldr/mov/
 * add ...). A conditional transfer without a direct target is `cjump` without `target`.
 */
export const classifyArm: Classifier = (v, out, ctx) => {
  const name = v.name();
  const cc = v.cc();
  const conditional = cc !== 0 && cc !== ARM_CC_AL;
  const n = v.opCount();
  if (name === "b") {
    direct(out, conditional ? "cjump" : "jump", lastImm(v));
    return;
  }
  if (name === "bl" || name === "blx") {
    if (n > 0 && v.opType(0) === OP_IMM) direct(out, "call", v.imm(0));
    else out.flow = "icall";
    return;
  }
  if (name === "cbz" || name === "cbnz") {
    direct(out, "cjump", lastImm(v));
    return;
  }
  if (name === "bx" || name === "bxj") {
    out.flow = conditional ? "cjump" : v.isReg(0, "lr") ? "ret" : "ijump";
    return;
  }
  if (name === "tbb" || name === "tbh") {
    out.flow = "ijump";
    return;
  }
  if (name === "udf" || name === "bkpt") {
    out.flow = "trap";
    return;
  }
  for (let i = 0; i < n; i++) {
    if (!v.isReg(i, "pc") || (v.access(i) & CS_AC_WRITE) === 0) continue;
    // PC is written: a return when it comes from LR or the stack, else a computed jump.
    const fromStack = name === "pop" ||
      (ARM_LOAD_MULTIPLE.has(name) && v.isReg(0, "sp")) ||
      (name === "ldr" && n > 1 && v.opType(1) === OP_MEM && v.regName(v.reg(1)) === "sp");
    const fromLr = name === "mov" && v.isReg(1, "lr");
    out.flow = conditional ? "cjump" : fromStack || fromLr ? "ret" : "ijump";
    return;
  }
  armMemRef(v, out, ctx.thumb, name, n);
};

function armMemRef(v: CsInsnView, out: Insn, thumb: boolean, name: string, n: number): void {
  for (let i = 0; i < n; i++) {
    if (v.opType(i) === OP_MEM && v.regName(v.reg(i)) === "pc" && v.memIndex(i) === 0) {
      out.memRef = pcValue(v, thumb) + v.memDisp(i);
      return;
    }
  }
  if (!ARM_PC_ARITH.has(name) || n < 2 || v.opType(n - 1) !== OP_IMM) return;
  const imm = v.imm(n - 1);
  const negate = name.startsWith("sub");
  if (name === "adr" && n === 2) out.memRef = pcValue(v, thumb) + imm;
  else if (n === 3 && v.isReg(1, "pc")) out.memRef = pcValue(v, thumb) + (negate ? -imm : imm);
}

const MIPS_CALL = new Set(["jal", "jalx", "bal", "balc"]);
const MIPS_JUMP = new Set(["j", "b", "bc"]);
const MIPS_INDIRECT = new Set(["jr", "jr.hb", "jrc", "jic", "jr16", "jrcaddiusp"]);
const MIPS_INDIRECT_CALL = new Set(["jalr", "jalr.hb", "jalrc", "jialc", "jalrs", "jalrs16"]);

/** MIPS: J/JAL/JR/JALR, B/BAL and conditional branches (R6 compact forms too), BREAK/SDBBP. */
export const classifyMips: Classifier = (v, out) => {
  const name = v.name();
  if (MIPS_CALL.has(name)) direct(out, "call", lastImm(v));
  else if (MIPS_JUMP.has(name)) direct(out, "jump", lastImm(v));
  else if (MIPS_INDIRECT.has(name)) out.flow = v.isReg(0, "ra") ? "ret" : "ijump";
  else if (MIPS_INDIRECT_CALL.has(name)) out.flow = "icall";
  else if (name === "break" || name === "sdbbp") out.flow = "trap";
  else if (name.startsWith("b")) {
    const target = lastImm(v);
    if (target === undefined) return;
    // bgezal, bltzal, beqzalc, ...: conditional calls.
    direct(out, name.endsWith("al") || name.endsWith("alc") ? "call" : "cjump", target);
  }
};

/** Whether a MIPS branch has a delay slot (R6 compact branches, named `...c`, do not). */
export function hasDelaySlot(v: CsInsnView): boolean {
  return !v.name().endsWith("c");
}

/**
 * PowerPC, from the encoding (its many extended mnemonics hide the link bit): I-form `b`,
 * B-form `bc` (BO "branch always" = unconditional), XL-form `bclr`/`bcctr`/`bctar`, and the
 * always-trapping `tw`/`twi`/`td`/`tdi` with TO = 31.
 */
export const classifyPpc: Classifier = (v, out, ctx) => {
  const { bytes, pos } = ctx;
  const b0 = bytes[pos] ?? 0, b1 = bytes[pos + 1] ?? 0, b2 = bytes[pos + 2] ?? 0;
  const b3 = bytes[pos + 3] ?? 0;
  const word = ctx.bigEndian
    ? ((b0 << 24) | (b1 << 16) | (b2 << 8) | b3) >>> 0
    : ((b3 << 24) | (b2 << 16) | (b1 << 8) | b0) >>> 0;
  const primary = word >>> 26;
  const link = (word & 1) === 1;
  const bo = (word >>> 21) & 31;
  const always = (bo & 0x14) === 0x14;
  if (primary === 18) direct(out, link ? "call" : "jump", lastImm(v));
  else if (primary === 16) direct(out, link ? "call" : always ? "jump" : "cjump", lastImm(v));
  else if (primary === 19) {
    const xo = (word >>> 1) & 0x3ff;
    if (xo !== 16 && xo !== 528 && xo !== 560) return;
    if (link) out.flow = "icall";
    else if (!always) out.flow = "cjump";
    else out.flow = xo === 16 ? "ret" : "ijump";
  } else if (primary === 3 || primary === 2) {
    if (bo === 31) out.flow = "trap";
  } else if (primary === 31) {
    const xo = (word >>> 1) & 0x3ff;
    if ((xo === 4 || xo === 68) && bo === 31) out.flow = "trap";
  }
};

const RISCV_BRANCH = new Set([
  "beq",
  "bne",
  "blt",
  "bge",
  "bltu",
  "bgeu",
  "beqz",
  "bnez",
  "blez",
  "bgez",
  "bltz",
  "bgtz",
  "bgt",
  "ble",
  "bgtu",
  "bleu",
  "c.beqz",
  "c.bnez",
]);
const RISCV_TRAP = new Set(["ebreak", "c.ebreak", "unimp", "c.unimp"]);

/**
 * RISC-V: JAL/JALR and their aliases (`j`, `jr`, `ret`; compressed `c.*`), branches, and
 * AUIPC. Capstone gives branch offsets relative to the instruction; targets are made absolute.
 */
export const classifyRiscv: Classifier = (v, out, ctx) => {
  const name = v.name();
  if (name === "auipc") {
    const imm = lastImm(v);
    if (imm === undefined) return;
    const offset = (imm << 12) | 0; // sign-extended 32-bit upper immediate
    out.memRef = wrap(v.address + offset, ctx.bits);
    return;
  }
  if (RISCV_TRAP.has(name)) {
    out.flow = "trap";
    return;
  }
  if (RISCV_BRANCH.has(name)) {
    relative(out, "cjump", v, ctx.bits);
    return;
  }
  if (name === "jal" || name === "c.jal" || name === "c.j") {
    // The printed mnemonic tells the alias: `j` links nothing (rd = zero).
    const mnemonic = name === "jal" ? v.mnemonic() : name;
    relative(out, mnemonic === "j" || mnemonic === "c.j" ? "jump" : "call", v, ctx.bits);
    return;
  }
  if (name === "jalr" || name === "c.jalr" || name === "c.jr") {
    const mnemonic = name === "jalr" ? v.mnemonic() : name;
    if (mnemonic === "ret") out.flow = "ret";
    else if (mnemonic === "jr" || mnemonic === "c.jr") {
      out.flow = v.isReg(0, "ra") ? "ret" : "ijump";
    } else out.flow = v.opCount() > 1 && v.isReg(0, "zero") ? "ijump" : "icall";
  }
};

function relative(out: Insn, flow: "jump" | "cjump" | "call", v: CsInsnView, bits: 32 | 64): void {
  const offset = lastImm(v);
  direct(out, flow, offset === undefined ? undefined : wrap(v.address + offset, bits));
}

function wrap(value: number, bits: 32 | 64): number {
  return bits === 32 ? value >>> 0 : value;
}

/** Whether RISC-V's printed operands end in a branch offset that {@link classifyRiscv} resolved. */
export function riscvHasRelativeTarget(name: string): boolean {
  return RISCV_BRANCH.has(name) || name === "jal" || name === "c.jal" || name === "c.j";
}
