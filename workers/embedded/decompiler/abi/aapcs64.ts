/**
 * AAPCS64, the procedure call standard of 64-bit Arm (Linux, Android, the BSDs; Apple's variant
 * differs only in variadic arguments, which go on the stack): x0-x7 carry integer arguments and
 * x0 the result, v0-v7 floating-point arguments and v0 the result; x8 holds the address of a large returned structure; x9-x18, the link register
 * x30 and v0-v7, v16-v31 may change across a call, and the upper halves of all vector registers
 * (v8-v15 keep their low 8 bytes; the IR names a vector register's halves `v8` and `v8_hi`);
 * x19-x29 are the callee's to save. Stack arguments start at the stack pointer on entry (no return address
 * is pushed).
 */

import type { CallingConvention } from "./calling_convention.ts";

const range = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

/** AAPCS64. */
export const AAPCS64: CallingConvention = {
  name: "aapcs64",
  args: range("x", 0, 7),
  ret: "x0",
  clobbers: [
    ...range("x", 0, 18),
    "x30",
    ...range("v", 0, 7),
    ...range("v", 16, 31),
    ...range("v", 0, 31).map((v) => `${v}_hi`),
  ],
  stackArgs: 0,
  slot: 8,
  // Scalar float and double arguments and results live in the low 8 bytes of v0-v7 (`s0`, `d0`).
  floatArgs: range("v", 0, 7),
  floatRet: "v0",
  indirectResult: "x8",
};
