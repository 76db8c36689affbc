/**
 * AArch64 condition flags, lazily: a flag-setting instruction records what it computed and a
 * `b.cc`, `csel` or `cset` asks for a condition, built from that operation (`cmp w0, w1; b.lt`
 * is `a < b`). Where NZCV mean what x86's flags mean the shared x86 formulas answer; the carry
 * differs (after a subtraction AArch64's C is "no borrow", x86's CF is "borrow"; logic
 * operations clear it on both, which inverts `hs`/`lo` between them), and `ccmp` chains and
 * `fcmp` have no x86 counterpart, so those are built here.
 */

import { type BinOp, constant, type Expr } from "../ir.ts";
import { carry, condition, type FlagState } from "./flags.ts";

/** The flags after some instruction: the value of each condition, and where they were set. */
export interface A64Flags {
  at: number;
  test(cc: string): Expr;
}

const bin = (op: BinOp, a: Expr, b: Expr): Expr => ({ k: "bin", op, a, b, size: 1 });
const not = (a: Expr): Expr => ({ k: "un", op: "lnot", a, size: 1 });
const TRUE = constant(1, 1);
const FALSE = constant(0, 1);

/** Canonical AArch64 condition names (`cs` is `hs`, `cc` is `lo`). */
export function canonical(cc: string): string {
  return cc === "cs" ? "hs" : cc === "cc" ? "lo" : cc;
}

/** The conditions whose value is the negation of another one. */
const NEGATED: Record<string, string> = {
  ne: "eq",
  lo: "hs",
  pl: "mi",
  vc: "vs",
  ls: "hi",
  lt: "ge",
  le: "gt",
};

/** AArch64 conditions that mean what the x86 condition of the same flags means. */
const SAME_AS_X86: Record<string, string> = {
  eq: "e",
  mi: "s",
  vs: "o",
  ge: "ge",
  gt: "g",
};

/** Flags set by an integer operation (`sub` for cmp/subs/negs, `add` for cmn/adds, `logic`). */
export function opFlags(state: FlagState): A64Flags {
  const test = (cc: string): Expr => {
    cc = canonical(cc);
    if (cc === "al" || cc === "nv") return TRUE;
    const neg = NEGATED[cc];
    if (neg !== undefined) return not(test(neg));
    const x86 = SAME_AS_X86[cc];
    if (x86 !== undefined) return condition(state, x86);
    const z = condition(state, "e");
    // C: no borrow after a subtraction, carry out after an addition, clear after logic.
    const c = state.op === "sub"
      ? condition(state, "ae")
      : state.op === "logic"
      ? FALSE
      : carry(state);
    if (cc === "hs") return c;
    if (cc === "hi") {
      return state.op === "sub" ? condition(state, "a") : bin("land", c, not(z));
    }
    throw new RangeError(`Unknown AArch64 condition ${cc}`);
  };
  return { at: state.at, test };
}

/**
 * Flags set by `fcmp a, b`: equal 0110, less 1000, greater 0010, unordered 0011 (NZCV). Each
 * condition is the set of those outcomes it accepts, written with the intrinsics the x86 lifter
 * uses for `ucomisd`, which count an unordered pair as "below" and "equal" as x86's flags do:
 * `__flt(a, b)` is `!(a >= b)`, `__fle(a, b)` is `!(a > b)`.
 */
export function fcmpFlags(a: Expr, b: Expr, at: number): A64Flags {
  const f = (name: string, x: Expr, y: Expr): Expr => ({ k: "intr", name, args: [x, y], size: 1 });
  const test = (cc: string): Expr => {
    switch (canonical(cc)) {
      case "eq":
        return bin("land", not(f("__funordered", a, b)), f("__feq", a, b));
      case "ne":
        return not(test("eq"));
      case "mi":
      case "lo":
        return not(f("__fle", b, a)); // a < b
      case "pl":
      case "hs":
        return f("__fle", b, a);
      case "ls":
        return not(f("__flt", b, a)); // a <= b
      case "hi":
        return f("__flt", b, a);
      case "gt":
        return not(f("__fle", a, b)); // a > b
      case "le":
        return f("__fle", a, b);
      case "ge":
        return not(f("__flt", a, b)); // a >= b
      case "lt":
        return f("__flt", a, b);
      case "vs":
        return f("__funordered", a, b);
      case "vc":
        return not(f("__funordered", a, b));
      default:
        return TRUE;
    }
  };
  return { at, test };
}

/** Whether condition `cc` holds for the constant flags `nzcv` (bits N=8, Z=4, C=2, V=1). */
export function holds(cc: string, nzcv: number): boolean {
  const n = (nzcv & 8) !== 0, z = (nzcv & 4) !== 0, c = (nzcv & 2) !== 0, v = (nzcv & 1) !== 0;
  cc = canonical(cc);
  const neg = NEGATED[cc];
  if (neg !== undefined) return !holds(neg, nzcv);
  switch (cc) {
    case "eq":
      return z;
    case "hs":
      return c;
    case "mi":
      return n;
    case "vs":
      return v;
    case "hi":
      return c && !z;
    case "ge":
      return n === v;
    case "gt":
      return !z && n === v;
    default:
      return true;
  }
}

/**
 * `ccmp`/`ccmn`/`fccmp`: when `pass` (the condition on the flags before) holds the flags are the
 * comparison's, else the constant `nzcv`. A later condition is then `pass && cmp` or
 * `!pass || cmp`, which is how `a == 1 && b > 2` reaches the code as one branch.
 */
export function conditionalFlags(pass: Expr, cmp: A64Flags, nzcv: number, at: number): A64Flags {
  return {
    at,
    test: (cc) =>
      holds(cc, nzcv) ? bin("lor", not(pass), cmp.test(cc)) : bin("land", pass, cmp.test(cc)),
  };
}

/** Flags no model describes (an instruction lifted as `__asm_`, adcs): named intrinsics. */
export function unknownFlags(res: Expr, at: number): A64Flags {
  return {
    at,
    test: (cc) => ({ k: "intr", name: `__nzcv_${canonical(cc)}`, args: [res], size: 1 }),
  };
}
