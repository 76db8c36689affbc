/**
 * Expression rewrite rules, applied bottom-up until nothing changes: constant folding,
 * identities, truncation pushed through ring operations (so sub-register writes read back as the
 * value written), the double-width division idioms (`cdq; idiv` → a plain `/`), and negated
 * comparisons flipped. Each rule keeps the value of the expression bit for bit.
 */

import { type BinOp, COMPARES, constant, type Expr, mapChildren, signedValue } from "../ir.ts";
import { evaluate, stateOf } from "../interp.ts";

const RING: ReadonlySet<BinOp> = new Set(["add", "sub", "mul", "and", "or", "xor"]);
const INVERSE: Partial<Record<BinOp, BinOp>> = { eq: "ne", ne: "eq" };
/** Operations that give back their left operand when the right one is zero. */
const ZERO_IDENTITY: ReadonlySet<BinOp> = new Set(["add", "sub", "or", "xor", "shl", "shr", "sar"]);
const DIVISIONS: ReadonlySet<BinOp> = new Set(["udiv", "sdiv", "urem", "srem"]);
/** All ones of each size in bytes (made once each: this runs on every node of every round). */
const ONES: bigint[] = [];
const onesOf = (size: number) => ONES[size] ??= (1n << BigInt(size * 8)) - 1n;

/** Structural equality of two expressions. */
export function exprEq(a: Expr, b: Expr): boolean {
  if (a.k !== b.k || a.size !== b.size) return false;
  switch (a.k) {
    case "const":
      return a.value === (b as typeof a).value;
    case "reg":
      return a.name === (b as typeof a).name && a.ver === (b as typeof a).ver;
    case "tmp":
      return a.id === (b as typeof a).id;
    case "slot":
      return a.offset === (b as typeof a).offset;
    case "addr":
      return a.slot.offset === (b as typeof a).slot.offset;
    case "load":
      return exprEq(a.addr, (b as typeof a).addr);
    case "bin": {
      const o = b as typeof a;
      return a.op === o.op && exprEq(a.a, o.a) && exprEq(a.b, o.b);
    }
    case "un":
      return a.op === (b as typeof a).op && exprEq(a.a, (b as typeof a).a);
    case "ext":
      return a.signed === (b as typeof a).signed && exprEq(a.a, (b as typeof a).a);
    case "trunc":
      return exprEq(a.a, (b as typeof a).a);
    case "select": {
      const o = b as typeof a;
      return exprEq(a.c, o.c) && exprEq(a.t, o.t) && exprEq(a.f, o.f);
    }
    case "intr": {
      const o = b as typeof a;
      return a.name === o.name && a.args.length === o.args.length &&
        a.args.every((x, i) => exprEq(x, o.args[i]!));
    }
  }
}

function isConst(e: Expr): boolean {
  switch (e.k) {
    case "const":
      return true;
    case "bin":
      return isConst(e.a) && isConst(e.b);
    case "un":
    case "ext":
    case "trunc":
      return isConst(e.a);
    default:
      return false;
  }
}

const isBool = (e: Expr) =>
  e.size === 1 &&
  ((e.k === "bin" && COMPARES.has(e.op)) ||
    (e.k === "un" && e.op === "lnot") || (e.k === "const" && e.value <= 1n));

/** How many times {@link simplify} stopped at its round limit, since the process started. */
let capped = 0;

/**
 * {@link simplify}'s count of results cut short by its round limit. Every other result is a
 * fixpoint (simplifying it again gives the same object back); callers compare the count before
 * and after a pass to know that none was cut short.
 */
export function cappedSimplifications(): number {
  return capped;
}

/** Simplifies `e` (its children first). */
export function simplify(e: Expr): Expr {
  let cur = mapChildren(e, simplify);
  for (let i = 0; i < 8; i++) {
    const next = rule(cur);
    if (next === cur) return cur;
    cur = mapChildren(next, simplify);
  }
  capped++;
  return cur;
}

function c(v: bigint | number, size: number) {
  return constant(v, size);
}

function rule(e: Expr): Expr {
  if (e.k !== "const" && e.k !== "intr" && e.k !== "load" && isConst(e)) {
    return c(evaluate(stateOf({}), e), e.size);
  }
  switch (e.k) {
    case "bin":
      return binRule(e);
    case "un": {
      const a = e.a;
      if (e.op === "lnot") {
        if (a.k === "un" && a.op === "lnot") return a.a;
        if (a.k === "bin") {
          const inv = INVERSE[a.op];
          if (inv) return { ...a, op: inv };
          if (a.op === "ult") return { ...a, op: "ule", a: a.b, b: a.a };
          if (a.op === "ule") return { ...a, op: "ult", a: a.b, b: a.a };
          if (a.op === "slt") return { ...a, op: "sle", a: a.b, b: a.a };
          if (a.op === "sle") return { ...a, op: "slt", a: a.b, b: a.a };
        }
      }
      if (a.k === "un" && a.op === e.op && e.op !== "lnot") return a.a;
      return e;
    }
    case "ext": {
      const a = e.a;
      if (a.size === e.size) return a;
      if (a.k === "ext" && (a.signed === e.signed || !a.signed)) {
        return { ...e, signed: a.signed, a: a.a };
      }
      return e;
    }
    case "trunc": {
      const a = e.a;
      if (a.size === e.size) return a;
      if (a.k === "ext") {
        if (a.a.size === e.size) return a.a;
        if (a.a.size > e.size) return { ...e, a: a.a };
        return { ...a, size: e.size };
      }
      if (a.k === "trunc") return { ...e, a: a.a };
      // The low part of a value shifted past it is zero (the high half of a concatenation).
      if (
        a.k === "bin" && a.op === "shl" && a.b.k === "const" && a.b.value >= BigInt(e.size * 8)
      ) return c(0, e.size);
      if (a.k === "bin" && RING.has(a.op)) {
        return {
          k: "bin",
          op: a.op,
          a: { k: "trunc", a: a.a, size: e.size },
          b: { k: "trunc", a: a.b, size: e.size },
          size: e.size,
        };
      }
      if (a.k === "un" && a.op !== "lnot") {
        return { ...a, a: { k: "trunc", a: a.a, size: e.size }, size: e.size };
      }
      if (a.k === "select") {
        return {
          ...a,
          t: { k: "trunc", a: a.t, size: e.size },
          f: { k: "trunc", a: a.f, size: e.size },
          size: e.size,
        };
      }
      // Double-width division of two extended values: the plain division of the values.
      if (
        a.k === "bin" && DIVISIONS.has(a.op) && a.a.k === "ext" &&
        a.b.k === "ext" && a.a.a.size === e.size && a.b.a.size === e.size &&
        a.a.signed === a.b.signed && a.a.signed === (a.op === "sdiv" || a.op === "srem")
      ) {
        return { k: "bin", op: a.op, a: a.a.a, b: a.b.a, size: e.size };
      }
      return e;
    }
    case "select":
      if (exprEq(e.t, e.f)) return e.t;
      if (e.c.k === "const") return e.c.value !== 0n ? e.t : e.f;
      return e;
    default:
      return e;
  }
}

function binRule(e: Extract<Expr, { k: "bin" }>): Expr {
  const { op, a, b, size } = e;
  // Constants to the right.
  if (
    a.k === "const" && b.k !== "const" && op !== "sub" &&
    (RING.has(op) || op === "eq" || op === "ne")
  ) {
    return { ...e, a: b, b: a };
  }
  const bc = b.k === "const" ? b : undefined;
  if (bc) {
    const v = bc.value;
    if (v === 0n && ZERO_IDENTITY.has(op)) return a;
    if (v === 0n && (op === "and" || op === "mul")) return c(0, size);
    if (v === 1n && (op === "mul" || op === "udiv" || op === "sdiv")) return a;
    if (op === "and" && v === onesOf(size)) return a;
    if (op === "sub") return { ...e, op: "add", b: c(-v, size) };
    if (op === "add" && a.k === "bin" && a.op === "add" && a.b.k === "const") {
      return { ...e, a: a.a, b: c(a.b.value + v, size) };
    }
    if ((op === "eq" || op === "ne") && v === 0n) {
      if (a.k === "bin" && a.op === "sub") return { ...e, a: a.a, b: a.b };
      if (a.k === "bin" && a.op === "add" && a.b.k === "const") {
        return { ...e, a: a.a, b: c(-a.b.value, a.size) };
      }
      if (isBool(a)) return op === "ne" ? a : { k: "un", op: "lnot", a, size: 1 };
      if (a.k === "ext" && isBool(a.a)) {
        return op === "ne" ? a.a : { k: "un", op: "lnot", a: a.a, size: 1 };
      }
    }
    if ((op === "eq" || op === "ne") && a.k === "bin" && a.op === "add" && a.b.k === "const") {
      return { ...e, a: a.a, b: c(v - a.b.value, a.size) };
    }
    if (op === "slt" && v === 0n && a.k === "bin" && a.op === "sub") {
      // (a - b) < 0 is only a < b without overflow: leave it.
      return e;
    }
  }
  // Multiplications the compiler spelled as additions (`lea r, [a+a*4]`, `add r, r`): one use of
  // `a` instead of two, so propagation can fold `a` into its single use.
  if (op === "add" && exprEq(a, b)) return { ...e, op: "mul", b: c(2, size) };
  if (op === "add") {
    const k = (x: Expr, y: Expr) =>
      x.k === "bin" && x.op === "shl" && x.b.k === "const" && x.b.value < BigInt(size * 8) &&
        exprEq(x.a, y)
        ? x.b.value
        : undefined;
    const ka = k(a, b);
    if (ka !== undefined) return { ...e, op: "mul", a: b, b: c((1n << ka) + 1n, size) };
    const kb = k(b, a);
    if (kb !== undefined) return { ...e, op: "mul", b: c((1n << kb) + 1n, size) };
  }
  if (op === "mul" && bc && a.k === "bin" && a.op === "mul" && a.b.k === "const") {
    return { ...e, a: a.a, b: c(a.b.value * bc.value, size) };
  }
  if (op === "or" && a.k === "const" && a.value === 0n) return b;
  if ((op === "xor" || op === "sub") && exprEq(a, b)) return c(0, size);
  if ((op === "and" || op === "or") && exprEq(a, b)) return a;
  if (op === "add" && b.k === "un" && b.op === "neg") return { ...e, op: "sub", b: b.a };
  // or(shl(ext(hi), w), zext(lo)): the double-width dividend of `cdq`/`xor edx, edx`.
  if (op === "or" && a.k === "bin" && a.op === "shl" && b.k === "ext" && !b.signed) {
    const lo = b.a;
    const hi = a.a.k === "ext" ? a.a.a : undefined;
    const w = a.b.k === "const" ? Number(a.b.value) : -1;
    if (hi && w === lo.size * 8) {
      if (hi.k === "const" && hi.value === 0n) return b;
      if (
        hi.k === "bin" && hi.op === "sar" && hi.b.k === "const" &&
        Number(hi.b.value) === w - 1 && exprEq(hi.a, lo)
      ) {
        return { k: "ext", signed: true, a: lo, size };
      }
    }
  }
  // concat(trunc(x >> w), trunc(x)) is x; concat(hi, lo) >> w is hi (two halves of a vector
  // register held apart and put back together).
  if (op === "or" && a.k === "bin" && a.op === "shl" && b.k === "ext" && !b.signed) {
    const w = a.b.k === "const" ? Number(a.b.value) : -1;
    const lo = b.a;
    const hi = a.a.k === "ext" && !a.a.signed ? a.a.a : undefined;
    if (
      hi?.k === "trunc" && lo.k === "trunc" && w === lo.size * 8 && hi.a.k === "bin" &&
      hi.a.op === "shr" && hi.a.b.k === "const" && Number(hi.a.b.value) === w &&
      exprEq(hi.a.a, lo.a) && lo.a.size === size
    ) return lo.a;
  }
  if (
    (op === "shr" && a.k === "bin" && a.op === "or" && a.a.k === "bin" && a.a.op === "shl" &&
      bc && a.a.b.k === "const" && a.a.b.value === bc.value && a.b.k === "ext" && !a.b.signed &&
      BigInt(a.b.a.size * 8) <= bc.value && a.a.a.k === "ext" && !a.a.a.signed &&
      BigInt(a.a.a.a.size * 8) + bc.value <= BigInt(size * 8))
  ) return a.a.a;
  if (op === "land" && a.k === "const") return a.value !== 0n ? b : a;
  if (op === "lor" && a.k === "const") return a.value !== 0n ? a : b;
  void signedValue;
  return e;
}
