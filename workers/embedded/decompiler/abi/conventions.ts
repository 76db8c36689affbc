/**
 * Calling conventions as data: which registers carry arguments and the return value, which a
 * call may change, and where stack arguments start. Passes read these tables and know nothing
 * else about the machine.
 */

import { AAPCS64 } from "./aapcs64.ts";
import type { CallingConvention } from "./calling_convention.ts";

export type { CallingConvention } from "./calling_convention.ts";

const XMM = Array.from({ length: 16 }, (_, i) => `xmm${i}`);
// An xmm register is two 8-byte halves in the IR (`xmm0`, `xmm0_hi`); a call changes both.
const VEC = (n: number) => XMM.slice(0, n).flatMap((r) => [r, `${r}_hi`]);

/** System V AMD64 (Linux, BSD, macOS). */
export const SYSV_X64: CallingConvention = {
  name: "sysv",
  args: ["rdi", "rsi", "rdx", "rcx", "r8", "r9"],
  ret: "rax",
  clobbers: ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", ...VEC(16)],
  stackArgs: 8,
  slot: 8,
  floatArgs: XMM.slice(0, 8),
  floatRet: "xmm0",
};

/** Microsoft x64. */
export const MS_X64: CallingConvention = {
  name: "ms",
  args: ["rcx", "rdx", "r8", "r9"],
  ret: "rax",
  clobbers: ["rax", "rcx", "rdx", "r8", "r9", "r10", "r11", ...VEC(6)],
  // The return address, then 32 bytes of home space for the register arguments.
  stackArgs: 0x28,
  slot: 8,
  floatArgs: XMM.slice(0, 4),
  floatRet: "xmm0",
  positional: true,
};

/** cdecl on x86-32: every argument on the stack, the caller pops. */
export const CDECL: CallingConvention = {
  name: "cdecl",
  args: [],
  ret: "eax",
  retHigh: { reg: "edx", pair: "edx_eax" },
  clobbers: ["eax", "ecx", "edx", ...VEC(8), "st0"],
  stackArgs: 4,
  slot: 4,
  floatArgs: [],
  floatRet: "st0",
};

/** The default convention of code in a file of `format` for `arch`. */
export function defaultConvention(arch: string, format: string): CallingConvention {
  if (arch === "x86") return CDECL;
  if (arch === "aarch64") return AAPCS64;
  return format === "pe" ? MS_X64 : SYSV_X64;
}
