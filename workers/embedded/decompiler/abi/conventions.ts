/**
 * Calling conventions as data: which registers carry arguments and the return value, which a
 * call may change, and where stack arguments start. Passes read these tables and know nothing
 * else about the machine.
 */

import { AAPCS64 } from "./aapcs64.ts";

/** One calling convention. */
export interface CallingConvention {
  name: string;
  /** Integer argument registers, in order (full names). */
  args: string[];
  /** The integer return register. */
  ret: string;
  /** Registers a call may change (the return register included). */
  clobbers: string[];
  /** Offset of the first stack argument from the stack pointer on entry. */
  stackArgs: number;
  /** Stack argument slot size. */
  slot: number;
  /** Whether the callee pops its stack arguments (stdcall). */
  calleePops?: boolean;
}

const XMM = Array.from({ length: 16 }, (_, i) => `xmm${i}`);

/** System V AMD64 (Linux, BSD, macOS). */
export const SYSV_X64: CallingConvention = {
  name: "sysv",
  args: ["rdi", "rsi", "rdx", "rcx", "r8", "r9"],
  ret: "rax",
  clobbers: ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", ...XMM],
  stackArgs: 8,
  slot: 8,
};

/** Microsoft x64. */
export const MS_X64: CallingConvention = {
  name: "ms",
  args: ["rcx", "rdx", "r8", "r9"],
  ret: "rax",
  clobbers: ["rax", "rcx", "rdx", "r8", "r9", "r10", "r11", ...XMM.slice(0, 6)],
  // The return address, then 32 bytes of home space for the register arguments.
  stackArgs: 0x28,
  slot: 8,
};

/** cdecl on x86-32: every argument on the stack, the caller pops. */
export const CDECL: CallingConvention = {
  name: "cdecl",
  args: [],
  ret: "eax",
  clobbers: ["eax", "ecx", "edx", ...XMM.slice(0, 8)],
  stackArgs: 4,
  slot: 4,
};

/** The default convention of code in a file of `format` for `arch`. */
export function defaultConvention(arch: string, format: string): CallingConvention {
  if (arch === "x86") return CDECL;
  if (arch === "aarch64") return AAPCS64;
  return format === "pe" ? MS_X64 : SYSV_X64;
}
