/**
 * The shape of a calling convention (conventions.ts has the tables): a leaf, so that a table in a
 * file of its own (aapcs64.ts) and the list of tables both take it from here.
 */

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
