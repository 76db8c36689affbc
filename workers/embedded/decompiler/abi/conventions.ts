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
  /**
   * The register that holds the high half of a double-width integer return value (x86-32's
   * `edx` of `edx:eax`, a `long long`), and the name of the double-width value a call returns
   * there (one IR register of twice the pointer size: callers read its halves).
   */
  retHigh?: { reg: string; pair: string };
  /** Registers a call may change (the return register included). */
  clobbers: string[];
  /** Offset of the first stack argument from the stack pointer on entry. */
  stackArgs: number;
  /** Stack argument slot size. */
  slot: number;
  /** Whether the callee pops its stack arguments (stdcall). */
  calleePops?: boolean;
  /** Floating-point argument registers, in order (SSE: the low 8 bytes, `xmm0`). */
  floatArgs?: string[];
  /** The floating-point return register (`xmm0`, the x87 `st0`). */
  floatRet?: string;
  /**
   * Whether argument positions are shared between the integer and float registers (Microsoft
   * x64: the second argument is `rdx` or `xmm1`); otherwise each kind counts its own (SysV).
   */
  positional?: boolean;
  /**
   * The register that carries the address where a callee returns a large value (AAPCS64's
   * x8): a function that reads it on entry takes it as its first, hidden parameter.
   */
  indirectResult?: string;
}

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
