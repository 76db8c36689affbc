/**
 * What every instruction lifter gives the block builder, whatever the ISA: one instruction's IR
 * and how it changes control flow.
 */

import type { Expr, Stmt } from "../ir.ts";

/** How an instruction changes control flow, for the block builder. */
export type Control =
  | { k: "cjump"; cond: Expr; target: number }
  | { k: "jump"; target: Expr }
  | { k: "call"; target: Expr }
  | { k: "ret" }
  | { k: "stop"; why: string };

/** One instruction's IR. `lifted` is false when it became an `__asm_` statement. */
export interface LiftedInsn {
  stmts: Stmt[];
  control?: Control;
  lifted: boolean;
}

/** Thrown inside a lifter's handler to fall back to the `__asm_` form. */
export class Unmodelled extends Error {}
