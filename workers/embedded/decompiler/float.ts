/**
 * The floating-point operations of the IR. They are intrinsics (`{k: "intr"}`) with fixed
 * names, so every pass treats them as pure opaque operations, while the type pass and the printer
 * know them: the operands and results they mark as floating point make `float`/`double`/`long
 * double` variables (by size: 4, 8, 10), and the printer writes them as C arithmetic. Lifters of
 * every ISA produce the same names.
 *
 * Semantics (what recompiled output must do): IEEE arithmetic in the operand size; `__fmin(a, b)`
 * and `__fmax(a, b)` are `a < b ? a : b` and `a > b ? a : b` (the SSE rule: the second operand
 * when unordered); `__fminimum`/`__fmaximum` are IEEE 754-2019 minimum/maximum (a NaN operand
 * gives NaN, -0.0 is below +0.0: AArch64's fmin/fmax, C23's fminimum) and `__fminnum`/`__fmaxnum`
 * IEEE minNum/maxNum (a NaN operand loses: AArch64's fminnm, C's fmin); `__fma(a, b, c)` is
 * `a * b + c` rounded once (C's fma); `__itof` converts a signed integer, `__utof` an unsigned
 * one, `__ftoi` truncates toward zero to a signed integer and `__ftou` to an unsigned one (both
 * exact for every value in range), `__ftoi_rint` rounds in the current mode; `__fconv` converts between float sizes; the compare
 * flags of x86's ucomis* are `__flt` (below or unordered), `__fle` (below, equal or unordered),
 * `__feq` (equal or unordered), `__funordered`.
 */

import type { Expr } from "./ir.ts";

/** What an operation takes and gives: `f` floating point, `i` integer, `b` boolean. */
interface FloatOp {
  result: "f" | "i" | "b";
  args: ("f" | "i")[];
}

export const FLOAT_OPS: Readonly<Record<string, FloatOp>> = {
  __fadd: { result: "f", args: ["f", "f"] },
  __fsub: { result: "f", args: ["f", "f"] },
  __fmul: { result: "f", args: ["f", "f"] },
  __fdiv: { result: "f", args: ["f", "f"] },
  __fmin: { result: "f", args: ["f", "f"] },
  __fmax: { result: "f", args: ["f", "f"] },
  __fminimum: { result: "f", args: ["f", "f"] },
  __fmaximum: { result: "f", args: ["f", "f"] },
  __fminnum: { result: "f", args: ["f", "f"] },
  __fmaxnum: { result: "f", args: ["f", "f"] },
  __fsqrt: { result: "f", args: ["f"] },
  __fma: { result: "f", args: ["f", "f", "f"] },
  __fabs: { result: "f", args: ["f"] },
  __fneg: { result: "f", args: ["f"] },
  __fconv: { result: "f", args: ["f"] },
  __frint: { result: "f", args: ["f"] },
  __itof: { result: "f", args: ["i"] },
  __utof: { result: "f", args: ["i"] },
  __ftoi: { result: "i", args: ["f"] },
  __ftou: { result: "i", args: ["f"] },
  __ftoi_rint: { result: "i", args: ["f"] },
  __flt: { result: "b", args: ["f", "f"] },
  __fle: { result: "b", args: ["f", "f"] },
  __feq: { result: "b", args: ["f", "f"] },
  __funordered: { result: "b", args: ["f", "f"] },
};

/** Whether `e` computes a floating-point value. */
export function isFloatResult(e: Expr): boolean {
  return e.k === "intr" && FLOAT_OPS[e.name]?.result === "f";
}

/** Whether argument `i` of `e` is read as floating point. */
export function isFloatArg(e: Expr, i: number): boolean {
  return e.k === "intr" && FLOAT_OPS[e.name]?.args[i] === "f";
}

/** Sizes a floating-point value can have: float, double, x87 extended. */
export function isFloatSize(size: number): boolean {
  return size === 4 || size === 8 || size === 10;
}

/** The C spelling of a floating-point type of `size` bytes. */
export function floatTypeName(size: number): string {
  return size === 4 ? "float" : size === 8 ? "double" : "long double";
}

/**
 * A C literal for the float of `size` bytes whose bits are `bits`, or undefined when no plain
 * literal has that value (NaN payloads, x87 values).
 */
export function floatLiteral(bits: bigint, size: number): string | undefined {
  if (size === 10) {
    // x87 extended: sign, 15-bit exponent, 64-bit mantissa with an explicit integer bit; a
    // literal when the value is a double's.
    const mant = bits & ((1n << 64n) - 1n);
    const exp = Number((bits >> 64n) & 0x7fffn);
    const sign = (bits >> 79n) & 1n ? "-" : "";
    if (mant === 0n && exp === 0) return `${sign}0.0L`;
    if (exp === 0 || exp === 0x7fff || (mant & 0x7ffn) !== 0n) return undefined;
    const v = Number(mant) * 2 ** (exp - 16383 - 63);
    if (!Number.isFinite(v) || v === 0) return undefined;
    const text = String(v);
    return `${sign}${/[.eE]/.test(text) ? text : text + ".0"}L`;
  }
  if (size !== 4 && size !== 8) return undefined;
  const view = new DataView(new ArrayBuffer(8));
  let v: number;
  if (size === 8) {
    view.setBigUint64(0, bits);
    v = view.getFloat64(0);
  } else {
    view.setUint32(0, Number(bits & 0xffffffffn));
    v = view.getFloat32(0);
  }
  if (Number.isNaN(v)) return undefined;
  const suffix = size === 4 ? "f" : "";
  if (!Number.isFinite(v)) return `${v < 0 ? "-" : ""}__builtin_inf${size === 4 ? "f" : ""}()`;
  if (Object.is(v, -0)) return `-0.0${suffix}`;
  let text = String(v);
  if (size === 4) {
    // The shortest decimal that reads back as the same float.
    for (let p = 1; p <= 9; p++) {
      const t = v.toPrecision(p);
      if (Math.fround(Number(t)) === v) {
        text = String(Number(t));
        break;
      }
    }
  }
  if (!/[.eE]/.test(text)) text += ".0";
  return text + suffix;
}
