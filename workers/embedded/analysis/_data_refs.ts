/**
 * Data references of one instruction: what the decoder's `memRef` means (read, write or an
 * address taken), plus the register pairs that build an address in two instructions (AArch64
 * ADRP+ADD/LDR/STR, RISC-V AUIPC+ADDI/load/store, MIPS LUI+ADDIU/load/store), tracked within a
 * basic block. The classification reads the instruction's raw bytes, which is much cheaper than
 * asking the decoder for operand details on every instruction.
 */

import type { Insn } from "../arch/types.ts";
import type { BinaryImage } from "../formats/image.ts";

/** A data reference found in an instruction. */
export interface DataRef {
  to: number;
  kind: "read" | "write" | "offset";
}

const X86_PREFIXES = new Set([0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0xf0]);

/**
 * x86: what an instruction with a memory operand does with it, from the opcode byte(s);
 * `byte(i)` is its i-th byte (of `size`), negative when unknown.
 */
export function x86Kind(byte: (i: number) => number, size: number, bits: number): DataRef["kind"] {
  let i = 0;
  while (i < size && X86_PREFIXES.has(byte(i))) i++;
  if (bits === 64 && i < size && (byte(i) & 0xf0) === 0x40) i++;
  const op = i < size ? byte(i) : -1;
  if (op < 0) return "read";
  if (op === 0x8d) return "offset"; // lea
  if (op === 0x88 || op === 0x89 || op === 0xc6 || op === 0xc7 || op === 0xa2 || op === 0xa3) {
    return "write";
  }
  // ALU r/m, reg forms (add/or/adc/sbb/and/sub/xor with memory destination).
  if (op < 0x40 && (op & 7) <= 1 && (op & 0x38) !== 0x38) return "write";
  if (op === 0x0f) {
    const op2 = i + 1 < size ? byte(i + 1) : -1;
    if (op2 === 0x11 || op2 === 0x29 || op2 === 0x7f || op2 === 0xd6 || op2 === 0xe7) {
      return "write";
    }
  }
  return "read";
}

/** Per-architecture data-reference extraction with block-local register tracking. */
export class DataRefScanner {
  readonly #image: BinaryImage;
  readonly #regs = new Map<number, number>();
  readonly #arch: string;
  readonly #little: boolean;

  constructor(image: BinaryImage) {
    this.#image = image;
    this.#arch = image.arch;
    this.#little = image.endian === "little";
  }

  /** Forget tracked registers: a new block may be reached from elsewhere. */
  beginBlock(): void {
    if (this.#regs.size > 0) this.#regs.clear();
  }

  /** The data references of `insn`, in the order they appear. */
  refs(insn: Insn): DataRef[] {
    switch (this.#arch) {
      case "x86":
      case "x86_64":
        return this.#x86(insn);
      case "aarch64":
        return this.#aarch64(insn);
      case "riscv32":
      case "riscv64":
        return this.#riscv(insn);
      case "mips":
      case "mips64":
        return this.#mips(insn);
      case "arm":
        return this.#arm(insn);
      default:
        return insn.memRef === undefined ? [] : [{ to: insn.memRef, kind: "read" }];
    }
  }

  #x86(insn: Insn): DataRef[] {
    if (insn.memRef === undefined) return [];
    const bytes = this.#image.read(insn.address, insn.size);
    const kind = bytes === undefined
      ? "read"
      : x86Kind((i) => bytes[i]!, bytes.length, this.#image.bits);
    return [{ to: insn.memRef, kind }];
  }

  #word(insn: Insn): number | undefined {
    if (insn.size !== 4) return undefined;
    const b = this.#image.read(insn.address, 4);
    if (b === undefined) return undefined;
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, this.#little);
  }

  #aarch64(insn: Insn): DataRef[] {
    const w = this.#word(insn);
    if (w === undefined) return [];
    const regs = this.#regs;
    const rd = w & 31;
    const rn = (w >>> 5) & 31;
    if (((w & 0x9f000000) >>> 0) === 0x90000000 && insn.memRef !== undefined) {
      regs.set(rd, insn.memRef); // adrp: the page, completed by the next add/ldr/str
      return [];
    }
    if (((w & 0x9f000000) >>> 0) === 0x10000000 && insn.memRef !== undefined) {
      regs.delete(rd);
      return [{ to: insn.memRef, kind: "offset" }]; // adr
    }
    if (((w & 0x7fc00000) >>> 0) === 0x11000000) {
      // add (immediate), 32/64-bit, optional lsl #12
      const base = regs.get(rn);
      const imm = ((w >>> 10) & 0xfff) << (((w >>> 22) & 1) * 12);
      if (base === undefined) {
        regs.delete(rd);
        return [];
      }
      regs.set(rd, base + imm);
      return [{ to: base + imm, kind: "offset" }];
    }
    if (((w & 0x3b000000) >>> 0) === 0x39000000) {
      // ldr/str (unsigned immediate), integer and SIMD&FP
      const size = w >>> 30;
      const vector = (w >>> 26) & 1;
      const opc = (w >>> 22) & 3;
      const scale = vector === 1 && opc >= 2 ? 4 : size;
      const base = regs.get(rn);
      const isStore = opc === 0;
      if (!isStore && rd !== rn) regs.delete(rd);
      if (base === undefined) return [];
      const to = base + ((w >>> 10) & 0xfff) * (1 << scale);
      if (!isStore) regs.delete(rd);
      return [{ to, kind: isStore ? "write" : "read" }];
    }
    if (insn.memRef !== undefined) return [{ to: insn.memRef, kind: "read" }]; // ldr literal
    // Any other write to rd ends what it held; a conservative approximation.
    if (insn.flow === "seq") regs.delete(rd);
    return [];
  }

  #riscv(insn: Insn): DataRef[] {
    const w = this.#word(insn);
    if (w === undefined) return [];
    const regs = this.#regs;
    const opcode = w & 0x7f;
    const rd = (w >>> 7) & 31;
    const rs1 = (w >>> 15) & 31;
    const funct3 = (w >>> 12) & 7;
    if (opcode === 0x17) {
      if (insn.memRef !== undefined) regs.set(rd, insn.memRef); // auipc
      return [];
    }
    const base = regs.get(rs1);
    if (opcode === 0x13 && funct3 === 0) {
      regs.delete(rd);
      if (base === undefined) return [];
      const to = base + (w >> 20);
      regs.set(rd, to);
      return [{ to, kind: "offset" }];
    }
    if (opcode === 0x03 || opcode === 0x07) {
      regs.delete(rd);
      return base === undefined ? [] : [{ to: base + (w >> 20), kind: "read" }];
    }
    if (opcode === 0x23 || opcode === 0x27) {
      const imm = ((w >> 25) << 5) | ((w >>> 7) & 31);
      return base === undefined ? [] : [{ to: base + imm, kind: "write" }];
    }
    if (rd !== 0 && opcode !== 0x63) regs.delete(rd);
    return [];
  }

  #mips(insn: Insn): DataRef[] {
    const w = this.#word(insn);
    if (w === undefined) return [];
    const regs = this.#regs;
    const op = w >>> 26;
    const rs = (w >>> 21) & 31;
    const rt = (w >>> 16) & 31;
    const imm = (w << 16) >> 16;
    if (op === 0x0f) {
      regs.set(rt, (w & 0xffff) * 0x10000); // lui
      return [];
    }
    const base = regs.get(rs);
    if (op === 0x09) {
      regs.delete(rt);
      if (base === undefined) return [];
      regs.set(rt, (base + imm) >>> 0);
      return [{ to: (base + imm) >>> 0, kind: "offset" }];
    }
    if (op >= 0x20 && op <= 0x27) {
      regs.delete(rt);
      return base === undefined ? [] : [{ to: (base + imm) >>> 0, kind: "read" }];
    }
    if (op >= 0x28 && op <= 0x2e) {
      return base === undefined ? [] : [{ to: (base + imm) >>> 0, kind: "write" }];
    }
    if (op !== 0 || (w & 0x3f) > 7) {
      if (op === 0) regs.delete((w >>> 11) & 31);
      else if (op >= 0x08 && op <= 0x0e) regs.delete(rt);
    }
    return [];
  }

  #arm(insn: Insn): DataRef[] {
    if (insn.memRef === undefined) return [];
    const out: DataRef[] = [{ to: insn.memRef, kind: "read" }];
    // A literal-pool word that holds an address in the image is a pointer to that address.
    const b = this.#image.read(insn.memRef, 4);
    if (b !== undefined) {
      const v = new DataView(b.buffer, b.byteOffset, 4).getUint32(0, this.#little);
      if (v !== 0 && this.#image.isMapped(v)) out.push({ to: v, kind: "offset" });
    }
    return out;
  }
}
