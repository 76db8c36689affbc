/**
 * The engine-neutral shapes every disassembler in this folder produces, so analysis code never
 * branches on which engine decoded an instruction.
 *
 * Addresses are JS numbers (below 2^53); the engines' 64-bit values are converted at the edge.
 */

/**
 * Instruction-set architectures the embedded engine can disassemble. The same strings as
 * `Arch` in `workers/embedded/formats/image.ts`.
 */
export type Arch =
  | "x86"
  | "x86_64"
  | "arm"
  | "aarch64"
  | "mips"
  | "mips64"
  | "ppc"
  | "ppc64"
  | "riscv32"
  | "riscv64";

/** Every {@link Arch}, in a stable order. */
export const ARCHES: readonly Arch[] = [
  "x86",
  "x86_64",
  "arm",
  "aarch64",
  "mips",
  "mips64",
  "ppc",
  "ppc64",
  "riscv32",
  "riscv64",
];

/**
 * How control leaves an instruction: `seq` falls through; `jump`/`cjump`/`call` have a direct
 * `target`; `ijump`/`icall` go through a register or memory; `trap` stops execution (hlt, ud2,
 * int3, brk, udf, break, ebreak); `invalid` marks bytes that do not decode.
 */
export type Flow =
  | "seq"
  | "jump"
  | "cjump"
  | "call"
  | "ret"
  | "ijump"
  | "icall"
  | "trap"
  | "invalid";

/** One operand, in the order the Intel/engine syntax prints them. */
export interface Operand {
  kind: "reg" | "imm" | "mem";
  /** Register name, for `reg`. */
  reg?: string;
  /** Value, for `imm`; direct branch operands hold the absolute target. */
  imm?: number;
  /** Base register, for `mem` (`rip` for x86-64 RIP-relative, then `disp` is from the next insn). */
  base?: string;
  /** Index register, for `mem`. */
  index?: string;
  /** Index scale, for `mem` with an index. */
  scale?: number;
  /** Signed displacement, for `mem`. */
  disp?: number;
  /** Operand size in bytes, where the engine reports it (x86). */
  size?: number;
  /** Whether the instruction reads and/or writes the operand, where the engine reports it. */
  access?: "r" | "w" | "rw";
}

/** One decoded instruction. */
export interface Insn {
  address: number;
  size: number;
  flow: Flow;
  /** Direct branch or call target. */
  target?: number;
  /**
   * Absolute data address the instruction references: x86 RIP-relative operands resolved,
   * absolute `moffs`/displacements with no base or index, ARM PC-relative loads, AArch64
   * ADR/ADRP/literal loads, RISC-V AUIPC (the computed value).
   */
  memRef?: number;
  /** Filled only when `detail` is requested; otherwise a shared, frozen empty array. */
  operands: Operand[];
  /** Filled only when `text` is requested. */
  mnemonic?: string;
  /** Filled only when `text` is requested. */
  opStr?: string;
}

/** What {@link Decoder.decode} computes beyond address, size, flow, target and memRef. */
export interface DecodeOptions {
  /** Fill `operands`. */
  detail?: boolean;
  /** Fill `mnemonic` and `opStr` (several times slower than decoding alone). */
  text?: boolean;
  /** Stop after this many instructions. */
  maxCount?: number;
  /**
   * Stop after the first instruction whose flow does not fall through (jump, ret, ijump, trap,
   * invalid) — and, on MIPS, after that instruction's delay slot.
   */
  stopAtFlowEnd?: boolean;
}

/** Text of one instruction. */
export interface InsnText {
  mnemonic: string;
  opStr: string;
}

/** A disassembler for one architecture and mode. */
export interface Decoder {
  readonly arch: Arch;
  readonly mode: string;
  /**
   * Decode consecutive instructions from bytes that start at `address`. Invalid bytes produce
   * one `flow: "invalid"` insn (size = the minimum instruction alignment) rather than stopping,
   * except for a truncated instruction at the very end, where decoding stops.
   */
  decode(bytes: Uint8Array, address: number, options?: DecodeOptions): Insn[];
  /**
   * Text for an already-decoded instruction; `bytes` start at `address` and contain it. Text
   * costs several times more than decoding, so format only what is shown.
   */
  format(bytes: Uint8Array, address: number, insn: Insn): InsnText;
  /** Release the engine's memory. The decoder must not be used afterwards. */
  dispose(): void;
}

/** Options of {@link createDecoder}. */
export interface DecoderOptions {
  /** ARM only: decode Thumb/Thumb-2 instead of A32. */
  thumb?: boolean;
  /** Byte order; defaults to big for mips/mips64/ppc/ppc64, little otherwise. */
  endian?: "little" | "big";
  /** Overrides the width implied by the arch for x86, MIPS, PowerPC and RISC-V. */
  bits?: 32 | 64;
}

/** One row of {@link supportedTargets}. */
export interface SupportedTarget {
  arch: Arch;
  modes: string[];
  engine: string;
}

/** The shared empty operand list of instructions decoded without detail. */
export const NO_OPERANDS: Operand[] = [];
Object.freeze(NO_OPERANDS);
