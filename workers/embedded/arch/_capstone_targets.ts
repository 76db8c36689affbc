/** Capstone configurations (arch, mode, operand layout, flow classifier) per {@link Arch}. */

import {
  type Classifier,
  classifyAarch64,
  classifyArm,
  classifyMips,
  classifyPpc,
  classifyRiscv,
} from "./_capstone_flow.ts";
import { LAYOUTS, type OperandLayout } from "./_capstone_insn.ts";
import { RemcpError } from "../../../src/errors.ts";
import type { Arch } from "./types.ts";

const CS_ARCH_ARM = 0;
const CS_ARCH_ARM64 = 1;
const CS_ARCH_MIPS = 2;
/** Capstone's `CS_ARCH_PPC`. */
export const CS_ARCH_PPC = 4;
const CS_ARCH_RISCV = 15;
const CS_MODE_32 = 1 << 2;
const CS_MODE_64 = 1 << 3;
const CS_MODE_THUMB = 1 << 4;
const CS_MODE_V8 = 1 << 6;
const CS_MODE_RISCV32 = 1 << 0;
const CS_MODE_RISCV64 = 1 << 1;
const CS_MODE_RISCVC = 1 << 2;
const CS_MODE_BIG_ENDIAN = 1 << 31;

/** One Capstone configuration. */
export interface Target {
  csArch: number;
  csMode: number;
  layout: OperandLayout;
  classify: Classifier;
  /** Minimum instruction size and alignment: the size of an invalid instruction. */
  align: number;
  /** Longest instruction: fewer bytes left than this may be a truncated instruction. */
  maxSize: number;
  delaySlots: boolean;
  riscv: boolean;
  mode: string;
  /**
   * Words Capstone rejects that are valid, non-branching instructions of the ISA (decoded as
   * `seq` of `align` bytes so analysis walks on).
   */
  missed?: (word: number) => boolean;
}

/**
 * MIPS `c.cond.fmt` with a condition code other than 0 (`c.le.d $fcc1, $f2, $f0`, MIPS IV and
 * MIPS32): COP1, fmt S/D/PS, function 0x30–0x3f. Capstone's MIPS32 mode rejects them.
 */
function mipsMissed(word: number): boolean {
  const fmt = (word >>> 21) & 31;
  return word >>> 26 === 0x11 && (fmt === 0x10 || fmt === 0x11 || fmt === 0x16) &&
    (word & 0x30) === 0x30 && ((word >>> 6) & 3) === 0;
}

/** Options resolved by `createDecoder`. */
export interface CapstoneOptions {
  thumb: boolean;
  bigEndian: boolean;
  bits: 32 | 64;
}

/** The Capstone arch, mode, layout and classifier for `arch`. */
export function target(arch: Arch, options: CapstoneOptions): Target {
  const endian = options.bigEndian ? CS_MODE_BIG_ENDIAN : 0;
  const suffix = options.bigEndian ? "be" : "le";
  const base = { maxSize: 4, delaySlots: false, riscv: false };
  switch (arch) {
    case "arm":
      return {
        ...base,
        csArch: CS_ARCH_ARM,
        csMode: (options.thumb ? CS_MODE_THUMB : 0) | CS_MODE_V8 | endian,
        layout: LAYOUTS.arm,
        classify: classifyArm,
        align: options.thumb ? 2 : 4,
        mode: `${options.thumb ? "thumb" : "arm"}-${suffix}`,
      };
    case "aarch64":
      return {
        ...base,
        csArch: CS_ARCH_ARM64,
        csMode: endian,
        layout: LAYOUTS.aarch64,
        classify: classifyAarch64,
        align: 4,
        mode: suffix,
      };
    case "mips":
    case "mips64":
      return {
        ...base,
        csArch: CS_ARCH_MIPS,
        csMode: (options.bits === 64 ? CS_MODE_64 : CS_MODE_32) | endian,
        layout: LAYOUTS.mips,
        classify: classifyMips,
        align: 4,
        delaySlots: true,
        missed: mipsMissed,
        mode: `${options.bits}-${suffix}`,
      };
    case "ppc":
    case "ppc64":
      return {
        ...base,
        csArch: CS_ARCH_PPC,
        csMode: (options.bits === 64 ? CS_MODE_64 : CS_MODE_32) | endian,
        layout: LAYOUTS.ppc,
        classify: classifyPpc,
        align: 4,
        mode: `${options.bits}-${suffix}`,
      };
    case "riscv32":
    case "riscv64":
      return {
        ...base,
        csArch: CS_ARCH_RISCV,
        csMode: (options.bits === 64 ? CS_MODE_RISCV64 : CS_MODE_RISCV32) | CS_MODE_RISCVC,
        layout: LAYOUTS.riscv,
        classify: classifyRiscv,
        align: 2,
        riscv: true,
        mode: `rv${options.bits}gc`,
      };
    default:
      throw new RemcpError("Unsupported", `Cannot disassemble ${arch} with Capstone`, { arch });
  }
}
