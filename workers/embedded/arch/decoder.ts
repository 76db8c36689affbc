/**
 * The disassembler front door: one {@link Decoder} interface over iced-x86 (x86, x86-64) and
 * Capstone 5 (ARM/Thumb, AArch64, MIPS, PowerPC, RISC-V), both WebAssembly. An engine's module
 * is imported and instantiated only when a decoder for one of its architectures is created.
 */

import { RemcpError } from "../../../src/errors.ts";
import type { Arch, Decoder, DecoderOptions, SupportedTarget } from "./types.ts";

export type {
  Arch,
  DecodeOptions,
  Decoder,
  DecoderOptions,
  Flow,
  Insn,
  InsnText,
  Operand,
  SupportedTarget,
} from "./types.ts";

const NATIVE_BITS: Record<Arch, 32 | 64> = {
  x86: 32,
  x86_64: 64,
  arm: 32,
  aarch64: 64,
  mips: 32,
  mips64: 64,
  ppc: 32,
  ppc64: 64,
  riscv32: 32,
  riscv64: 64,
};

const BIG_ENDIAN_BY_DEFAULT: ReadonlySet<Arch> = new Set(["mips", "mips64", "ppc", "ppc64"]);

/**
 * Create a decoder for `arch`. `thumb` selects Thumb on ARM; `endian` defaults to big for
 * MIPS/PowerPC and little otherwise; `bits` overrides the arch's width for x86, MIPS, PowerPC
 * and RISC-V. Throws `InvalidArgument` for a combination the arch does not have.
 */
export async function createDecoder(arch: Arch, options: DecoderOptions = {}): Promise<Decoder> {
  const bits = options.bits ?? NATIVE_BITS[arch];
  const bigEndian = options.endian === undefined
    ? BIG_ENDIAN_BY_DEFAULT.has(arch)
    : options.endian === "big";
  const thumb = options.thumb === true;
  if (thumb && arch !== "arm") {
    throw new RemcpError("InvalidArgument", `Cannot decode Thumb on ${arch}: Thumb is ARM only`, {
      arch,
    });
  }
  if (bits !== NATIVE_BITS[arch] && (arch === "arm" || arch === "aarch64")) {
    throw new RemcpError("InvalidArgument", `Cannot decode ${arch} as ${bits}-bit`, { arch, bits });
  }
  if (arch === "x86" || arch === "x86_64") {
    if (bigEndian) {
      throw new RemcpError("InvalidArgument", "Cannot decode big-endian x86", { arch });
    }
    const { createX86Decoder } = await import("./x86_decoder.ts");
    return createX86Decoder(arch, bits);
  }
  const { createCapstoneDecoder } = await import("./capstone_decoder.ts");
  return createCapstoneDecoder(arch, { thumb, bigEndian, bits });
}

/** Every architecture with its decoder mode names and engine. */
export function supportedTargets(): SupportedTarget[] {
  const capstone = (arch: Arch, modes: string[]): SupportedTarget => ({
    arch,
    modes,
    engine: "capstone 5.0 (wasm)",
  });
  return [
    { arch: "x86", modes: ["32"], engine: "iced-x86 1.21 (wasm)" },
    { arch: "x86_64", modes: ["64"], engine: "iced-x86 1.21 (wasm)" },
    capstone("arm", ["arm-le", "thumb-le", "arm-be", "thumb-be"]),
    capstone("aarch64", ["le", "be"]),
    capstone("mips", ["32-be", "32-le"]),
    capstone("mips64", ["64-be", "64-le"]),
    capstone("ppc", ["32-be", "32-le"]),
    capstone("ppc64", ["64-be", "64-le"]),
    capstone("riscv32", ["rv32gc"]),
    capstone("riscv64", ["rv64gc"]),
  ];
}
