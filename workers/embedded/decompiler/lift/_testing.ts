/** Test helper shared by the lifters' tests. */

import type { Insn } from "../../arch/types.ts";
import type { Stmt } from "../ir.ts";
import type { Control, LiftedInsn } from "./lifted.ts";

/** Bytes from a hex string. */
export const bytes = (hex: string): Uint8Array =>
  Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));

/**
 * Lifts `insns` in order with one lifter (flags carried): every statement, the last
 * instruction's control, and how many were lifted without an `__asm_` fallback.
 */
export function liftAll(lifter: { lift(insn: Insn): LiftedInsn }, insns: Insn[]) {
  const stmts: Stmt[] = [];
  let control: Control | undefined;
  let lifted = 0;
  for (const i of insns) {
    const r = lifter.lift(i);
    stmts.push(...r.stmts);
    control = r.control;
    if (r.lifted) lifted++;
  }
  return { stmts, control, lifted, count: insns.length };
}
