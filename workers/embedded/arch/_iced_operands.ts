/**
 * Operand detail of the current iced-x86 instruction: kinds, registers, immediates, memory
 * operands, and read/write access from iced's InstructionInfo. Off the fast path: several WASM
 * calls per operand.
 */

import type { IcedRuntime } from "./_iced_wasm.ts";
import type { Insn, Operand } from "./types.ts";

// iced-x86 enum values (Register, OpKind, FormatterSyntax, InstructionInfoOptions).
const REG_EIP = 69;
const REG_RIP = 70;
const OP_REGISTER = 0;
const OP_NEAR_BRANCH_LAST = 3;
const OP_FAR_BRANCH_LAST = 5;
const OP_IMMEDIATE_LAST = 14;
const OP_MEMORY = 24;
const SYNTAX_INTEL = 1;
const INFO_NO_MEMORY_AND_REGISTER_USAGE = 3;

// The implicit memory operand of string instructions (OpKind 15..23) and its base register.
const STRING_OPERAND_BASE = ["si", "esi", "rsi", "di", "edi", "rdi", "di", "edi", "rdi"];

const ACCESS: readonly (Operand["access"] | undefined)[] = [
  undefined,
  "r",
  "r",
  "w",
  "w",
  "rw",
  "rw",
  undefined,
];

const TWO_POW_64 = 2 ** 64;

/** An address from an iced u64 returned as i64 (negative above 2^63). */
function toAddress(value: bigint): number {
  const n = Number(value);
  return n < 0 ? n + TWO_POW_64 : n;
}
/** Reads operands of the instruction at `insn`; owns the iced objects it needs. */
export class IcedOperands {
  readonly #rt: IcedRuntime;
  readonly #insn: number;
  readonly #bits: number;
  #formatter = 0;
  #infoFactory = 0;
  #registers: string[] = [];

  constructor(rt: IcedRuntime, insn: number, bits: number) {
    this.#rt = rt;
    this.#insn = insn;
    this.#bits = bits;
  }

  /** Free the formatter and info factory. */
  dispose(): void {
    const wasm = this.#rt.wasm;
    if (this.#formatter !== 0) wasm.__wbg_formatter_free(this.#formatter);
    if (this.#infoFactory !== 0) wasm.__wbg_instructioninfofactory_free(this.#infoFactory);
    this.#formatter = 0;
    this.#infoFactory = 0;
  }

  /** iced `OpKind` of operand `operand`. */
  opKind(operand: number): number {
    const rt = this.#rt;
    const ret = rt.pushSlot();
    try {
      rt.wasm.instruction_opKind(ret, this.#insn, operand);
      rt.check(ret, 2);
      return rt.i32(ret);
    } finally {
      rt.popSlot();
    }
  }

  #opRegister(operand: number): number {
    const rt = this.#rt;
    const ret = rt.pushSlot();
    try {
      rt.wasm.instruction_opRegister(ret, this.#insn, operand);
      rt.check(ret, 2);
      return rt.i32(ret);
    } finally {
      rt.popSlot();
    }
  }

  #immediate(operand: number): bigint {
    const rt = this.#rt;
    const ret = rt.pushSlot();
    try {
      rt.wasm.instruction_immediate(ret, this.#insn, operand);
      rt.check(ret, 3);
      return rt.i64(ret);
    } finally {
      rt.popSlot();
    }
  }

  #access(count: number): (Operand["access"] | undefined)[] {
    const rt = this.#rt;
    const wasm = rt.wasm;
    if (this.#infoFactory === 0) this.#infoFactory = wasm.instructioninfofactory_new();
    const info = wasm.instructioninfofactory_infoOptions(
      this.#infoFactory,
      this.#insn,
      INFO_NO_MEMORY_AND_REGISTER_USAGE,
    );
    try {
      const access: (Operand["access"] | undefined)[] = [];
      for (let i = 0; i < count; i++) {
        const ret = rt.pushSlot();
        try {
          wasm.instructioninfo_opAccess(ret, info, i);
          rt.check(ret, 2);
          access.push(ACCESS[rt.i32(ret)]);
        } finally {
          rt.popSlot();
        }
      }
      return access;
    } finally {
      wasm.__wbg_instructioninfo_free(info);
    }
  }

  /** The operands of the current instruction, `result` being its decoded summary. */
  operands(result: Insn): Operand[] {
    const wasm = this.#rt.wasm;
    const insn = this.#insn;
    const count = wasm.instruction_opCount(insn);
    const access = this.#access(count);
    const operands: Operand[] = [];
    for (let i = 0; i < count; i++) {
      const kind = this.opKind(i);
      let operand: Operand;
      if (kind === OP_REGISTER) {
        const register = this.#opRegister(i);
        operand = {
          kind: "reg",
          reg: this.#registerName(register),
          size: wasm.registerext_size(register),
        };
      } else if (kind <= OP_NEAR_BRANCH_LAST) {
        operand = {
          kind: "imm",
          imm: result.target ?? toAddress(wasm.instruction_nearBranchTarget(insn)),
        };
      } else if (kind <= OP_FAR_BRANCH_LAST) {
        operand = { kind: "imm", imm: wasm.instruction_farBranch32(insn) >>> 0 };
      } else if (kind <= OP_IMMEDIATE_LAST) {
        operand = { kind: "imm", imm: immediateValue(kind, this.#immediate(i)) };
      } else if (kind < OP_MEMORY) {
        const base = STRING_OPERAND_BASE[kind - 15];
        operand = { kind: "mem", size: wasm.memorysizeext_size(wasm.instruction_memorySize(insn)) };
        if (base !== undefined) operand.base = base;
      } else {
        operand = this.#memoryOperand(result);
      }
      const a = access[i];
      if (a !== undefined) operand.access = a;
      operands.push(operand);
    }
    return operands;
  }

  #memoryOperand(result: Insn): Operand {
    const wasm = this.#rt.wasm;
    const insn = this.#insn;
    const operand: Operand = { kind: "mem" };
    const base = wasm.instruction_memoryBase(insn);
    const index = wasm.instruction_memoryIndex(insn);
    if (base !== 0) operand.base = this.#registerName(base);
    if (index !== 0) {
      operand.index = this.#registerName(index);
      operand.scale = wasm.instruction_memoryIndexScale(insn);
    }
    const disp = wasm.instruction_memoryDisplacement(insn);
    if (base === REG_RIP || base === REG_EIP) {
      // iced stores the resolved address; report the encoded displacement from the next insn.
      operand.disp = toAddress(disp) - (result.address + result.size);
    } else if (base === 0 && index === 0) {
      operand.disp = this.#bits === 32 ? Number(BigInt.asUintN(32, disp)) : Number(disp);
    } else {
      operand.disp = this.#bits === 32 ? Number(BigInt.asIntN(32, disp)) : Number(disp);
    }
    operand.size = wasm.memorysizeext_size(wasm.instruction_memorySize(insn));
    return operand;
  }

  #registerName(register: number): string {
    const known = ICED_REGISTER_NAMES[register];
    if (known !== undefined) return known;
    // Past the table (a newer iced): its formatter, made on first use.
    const cached = this.#registers[register];
    if (cached !== undefined) return cached;
    const rt = this.#rt;
    const ret = rt.pushSlot();
    try {
      rt.wasm.formatter_formatRegister(ret, this.#formatterHandle(), register);
      const name = rt.takeString(ret);
      this.#registers[register] = name;
      return name;
    } finally {
      rt.popSlot();
    }
  }

  #formatterHandle(): number {
    if (this.#formatter !== 0) return this.#formatter;
    const rt = this.#rt;
    const ret = rt.pushSlot();
    try {
      rt.wasm.formatter_new(ret, SYNTAX_INTEL);
      rt.check(ret, 2);
      this.#formatter = rt.i32(ret) >>> 0;
      return this.#formatter;
    } finally {
      rt.popSlot();
    }
  }
}

const GPR = ["ax", "cx", "dx", "bx", "sp", "bp", "si", "di"];
const numbered = (prefix: string, from: number, to: number, suffix = "") =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}${suffix}`);

/**
 * iced's Register enum, by value, as its Intel formatter names them (the test checks every
 * entry against the formatter). The formatter was made only for these names, and making it is
 * most of a fresh process's first decoding with operands (35–45 ms of CPU: iced builds its
 * formatting tables).
 */
export const ICED_REGISTER_NAMES: readonly string[] = [
  "???",
  "al",
  "cl",
  "dl",
  "bl",
  "ah",
  "ch",
  "dh",
  "bh",
  "spl",
  "bpl",
  "sil",
  "dil",
  ...numbered("r", 8, 15, "b"),
  ...GPR,
  ...numbered("r", 8, 15, "w"),
  ...GPR.map((r) => `e${r}`),
  ...numbered("r", 8, 15, "d"),
  ...GPR.map((r) => `r${r}`),
  ...numbered("r", 8, 15),
  "eip",
  "rip",
  "es",
  "cs",
  "ss",
  "ds",
  "fs",
  "gs",
  ...numbered("xmm", 0, 31),
  ...numbered("ymm", 0, 31),
  ...numbered("zmm", 0, 31),
  ...numbered("k", 0, 7),
  ...numbered("bnd", 0, 3),
  ...numbered("cr", 0, 15),
  ...numbered("dr", 0, 15),
  ...numbered("st(", 0, 7, ")"),
  ...numbered("mm", 0, 7),
  ...numbered("tr", 0, 7),
  ...numbered("tmm", 0, 7),
  "st",
  "???",
  "???",
  "???",
  "???",
  "???",
  "???",
];

/** An immediate's value: sign-extended kinds (8to16, 8to32, 8to64, 32to64) are signed. */
function immediateValue(kind: number, value: bigint): number {
  if (kind >= 11) return Number(BigInt.asIntN(64, value));
  const n = Number(BigInt.asUintN(64, value));
  return n > Number.MAX_SAFE_INTEGER ? Number(BigInt.asIntN(64, value)) : n;
}
