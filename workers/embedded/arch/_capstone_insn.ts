/**
 * Reading Capstone 5's `cs_insn` and `cs_detail` straight from WASM memory.
 *
 * Layouts (wasm32: 4-byte pointers, 8-byte alignment for int64/double), from Capstone 5's
 * `capstone.h` and per-arch headers, checked against known encodings in the tests:
 *
 * - `cs_insn` (240 bytes): id u32 @0, address u64 @8, size u16 @16, bytes[24] @18,
 *   mnemonic[32] @42, op_str[160] @74, detail* @236.
 * - `cs_detail`: regs_read u16[20] @0, regs_read_count @40, regs_write u16[20] @42,
 *   regs_write_count @82, groups u8[8] @83, groups_count @91, writeback @92, arch union @96.
 * - Operand unions sit at 8-aligned offsets inside each operand, so an i64 immediate is two
 *   aligned 32-bit words; see {@link LAYOUTS}.
 */

import type { CapstoneRuntime } from "./_capstone_wasm.ts";

/** `cs_insn` field offsets. */
export const INSN_ID = 0;
export const INSN_SIZE = 16;
export const INSN_MNEMONIC = 42;
export const INSN_OP_STR = 74;
export const INSN_DETAIL = 236;
/** Offset of the per-arch union in `cs_detail`. */
export const DETAIL_ARCH = 96;

/** Capstone operand types common to every arch (`CS_OP_*`). */
export const OP_REG = 1;
export const OP_IMM = 2;
export const OP_MEM = 3;
export const OP_FP = 4;

/** Offsets of one arch's operand array and operand fields, relative to the arch union. */
export interface OperandLayout {
  opCount: number;
  operands: number;
  stride: number;
  /** Relative to the operand. */
  type: number;
  /** The union (reg id, imm, or mem struct), relative to the operand. */
  value: number;
  /** Whether `imm` is an int64 (else int32). */
  imm64: boolean;
  /** Relative to the union; -1 when the arch has no such field. */
  memIndex: number;
  memScale: number;
  memDisp: number;
  memDisp64: boolean;
  /** Relative to the operand; -1 when absent. */
  access: number;
  /** Condition code relative to the arch union; -1 when absent. */
  cc: number;
}

/** Per-engine-arch layouts (Capstone 5: cs_arm64, cs_arm, cs_mips, cs_ppc, cs_riscv). */
export const LAYOUTS = {
  // cs_arm64: cc @0, update_flags @4, writeback @5, post_index @6, op_count @7, operands @8.
  // cs_arm64_op (56): vector_index, vas, shift{type,value}, ext, type @20, svcr, union @32
  // (mem: base, index, disp i32), access u8 @48.
  aarch64: {
    opCount: 7,
    operands: 8,
    stride: 56,
    type: 20,
    value: 32,
    imm64: true,
    memIndex: 4,
    memScale: -1,
    memDisp: 8,
    memDisp64: false,
    access: 48,
    cc: 0,
  },
  // cs_arm: usermode, vector_size, vector_data, cps_mode, cps_flag, cc @20, update_flags,
  // writeback, post_index, mem_barrier @28, op_count @32, operands @40.
  // cs_arm_op (48): vector_index, shift{type,value}, type @12, union @16 (imm i32; mem: base,
  // index, scale, disp, lshift), subtracted @40, access @41, neon_lane @42.
  arm: {
    opCount: 32,
    operands: 40,
    stride: 48,
    type: 12,
    value: 16,
    imm64: false,
    memIndex: 4,
    memScale: 8,
    memDisp: 12,
    memDisp64: false,
    access: 41,
    cc: 20,
  },
  // cs_mips: op_count @0, operands @8. cs_mips_op (24): type @0, union @8 (mem: base, disp i64 @8).
  mips: {
    opCount: 0,
    operands: 8,
    stride: 24,
    type: 0,
    value: 8,
    imm64: true,
    memIndex: -1,
    memScale: -1,
    memDisp: 8,
    memDisp64: true,
    access: -1,
    cc: -1,
  },
  // cs_ppc: bc @0, bh @4, update_cr0 @8, op_count @9, operands @16.
  // cs_ppc_op (24): type @0, union @8 (mem: base, disp i32 @4; crx: scale, reg @4, cond).
  ppc: {
    opCount: 9,
    operands: 16,
    stride: 24,
    type: 0,
    value: 8,
    imm64: true,
    memIndex: -1,
    memScale: -1,
    memDisp: 4,
    memDisp64: false,
    access: -1,
    cc: -1,
  },
  // cs_riscv: need_effective_addr @0, op_count @1, operands @8.
  // cs_riscv_op (24): type @0, union @8 (mem: base, disp i64 @8).
  riscv: {
    opCount: 1,
    operands: 8,
    stride: 24,
    type: 0,
    value: 8,
    imm64: true,
    memIndex: -1,
    memScale: -1,
    memDisp: 8,
    memDisp64: true,
    access: -1,
    cc: -1,
  },
} as const satisfies Record<string, OperandLayout>;

const TWO_POW_32 = 2 ** 32;

/**
 * A cursor over the current instruction in a `cs_malloc`ed buffer. One per decoder, reused for
 * every instruction so the fast path allocates nothing but the names it first meets.
 */
export class CsInsnView {
  /** Address and size of the current instruction (set by the decoder). */
  address = 0;
  size = 0;
  id = 0;
  readonly #rt: CapstoneRuntime;
  readonly #handle: number;
  readonly #layout: OperandLayout;
  readonly #insn: number;
  #arch = 0;
  #u8: Uint8Array;
  #i32: Int32Array;
  #u32: Uint32Array;
  #f64: Float64Array;
  readonly #names: string[] = [];
  readonly #registers: string[] = [];

  constructor(rt: CapstoneRuntime, handle: number, layout: OperandLayout, insn: number) {
    this.#rt = rt;
    this.#handle = handle;
    this.#layout = layout;
    this.#insn = insn;
    this.#u8 = new Uint8Array(0);
    this.#i32 = new Int32Array(0);
    this.#u32 = new Uint32Array(0);
    this.#f64 = new Float64Array(0);
    this.refresh();
  }

  /** Re-create the memory views after the WASM heap grew (growth detaches the old buffer). */
  refresh(): void {
    if (this.#u8.byteLength !== 0) return; // a detached (grown-from) buffer has length 0
    const buffer = this.#rt.memory.buffer;
    this.#u8 = new Uint8Array(buffer);
    this.#i32 = new Int32Array(buffer);
    this.#u32 = new Uint32Array(buffer);
    this.#f64 = new Float64Array(buffer);
    this.#arch = (this.#u32[(this.#insn + INSN_DETAIL) >> 2] ?? 0) + DETAIL_ARCH;
  }

  /** Load id and size of the instruction Capstone just decoded. */
  load(address: number): void {
    this.address = address;
    this.id = this.#u32[(this.#insn + INSN_ID) >> 2] ?? 0;
    this.size = this.#u8[this.#insn + INSN_SIZE] ?? 0;
  }

  /** Capstone's canonical instruction name for the current id (cached). */
  name(): string {
    const cached = this.#names[this.id];
    if (cached !== undefined) return cached;
    const name = this.#rt.cString(this.#rt.cs.cs_insn_name(this.#handle, this.id) >>> 0);
    this.#names[this.id] = name;
    return name;
  }

  /** The printed mnemonic (aliases resolved, e.g. RISC-V `ret`). */
  mnemonic(): string {
    return this.#string(this.#insn + INSN_MNEMONIC);
  }

  /** The printed operands. */
  opStr(): string {
    return this.#string(this.#insn + INSN_OP_STR);
  }

  /** Number of detailed operands. */
  opCount(): number {
    return this.#u8[this.#arch + this.#layout.opCount] ?? 0;
  }

  /** The `CS_OP_*`/arch operand type of operand `i`. */
  opType(i: number): number {
    return this.#i32[(this.#operand(i) + this.#layout.type) >> 2] ?? 0;
  }

  /** The register id of a register operand (also the first word of any union). */
  reg(i: number): number {
    return this.#u32[(this.#operand(i) + this.#layout.value) >> 2] ?? 0;
  }

  /** The i32 at `offset` inside operand `i`'s union. */
  word(i: number, offset: number): number {
    return this.#i32[(this.#operand(i) + this.#layout.value + offset) >> 2] ?? 0;
  }

  /** The immediate of an immediate operand. */
  imm(i: number): number {
    const at = this.#operand(i) + this.#layout.value;
    return this.#layout.imm64 ? this.#i64(at) : this.#i32[at >> 2] ?? 0;
  }

  /** The double of a floating-point operand. */
  fp(i: number): number {
    return this.#f64[(this.#operand(i) + this.#layout.value) >> 3] ?? 0;
  }

  /** Index register of a memory operand (0 when none or the arch has none). */
  memIndex(i: number): number {
    const offset = this.#layout.memIndex;
    return offset < 0 ? 0 : this.word(i, offset);
  }

  /** Index scale of a memory operand (1 when the arch has none). */
  memScale(i: number): number {
    const offset = this.#layout.memScale;
    return offset < 0 ? 1 : this.word(i, offset);
  }

  /** Displacement of a memory operand. */
  memDisp(i: number): number {
    const at = this.#operand(i) + this.#layout.value + this.#layout.memDisp;
    return this.#layout.memDisp64 ? this.#i64(at) : this.#i32[at >> 2] ?? 0;
  }

  /** `CS_AC_*` access bits of operand `i` (0 when the arch does not report them). */
  access(i: number): number {
    const offset = this.#layout.access;
    return offset < 0 ? 0 : this.#u8[this.#operand(i) + offset] ?? 0;
  }

  /** The condition code (0 = invalid/none when the arch has none). */
  cc(): number {
    const offset = this.#layout.cc;
    return offset < 0 ? 0 : this.#i32[(this.#arch + offset) >> 2] ?? 0;
  }

  /** A register's name (cached), "" for register 0. */
  regName(reg: number): string {
    const cached = this.#registers[reg];
    if (cached !== undefined) return cached;
    const ptr = this.#rt.cs.cs_reg_name(this.#handle, reg) >>> 0;
    const name = ptr === 0 ? "" : this.#rt.cString(ptr);
    this.#registers[reg] = name;
    return name;
  }

  /** Whether operand `i` is a register operand naming `name`. */
  isReg(i: number, name: string): boolean {
    return this.opType(i) === OP_REG && this.regName(this.reg(i)) === name;
  }

  #operand(i: number): number {
    return this.#arch + this.#layout.operands + i * this.#layout.stride;
  }

  #i64(at: number): number {
    const lo = this.#u32[at >> 2] ?? 0;
    const hi = this.#i32[(at >> 2) + 1] ?? 0;
    return hi * TWO_POW_32 + lo;
  }

  /** A NUL-terminated ASCII field (Capstone prints ASCII only). */
  #string(at: number): string {
    const u8 = this.#u8;
    let text = "";
    for (let i = at, c = u8[i] ?? 0; c !== 0; c = u8[++i] ?? 0) text += String.fromCharCode(c);
    return text;
  }
}
