/**
 * Lazy condition flags: a flag-setting instruction records what it computed (the operation, its
 * operands and its result, held in temporaries), and a branch, `setcc` or `cmovcc` asks for a
 * condition, which is built from that operation: `cmp a, b; jl` gives `a < b` (signed), not
 * `SF != OF`. Only conditions no C comparison expresses fall back to explicit flag formulas.
 */

import { type BinOp, constant, type Expr } from "../ir.ts";

/** The operation that last set the flags. */
export interface FlagState {
  /**
   * `sub` (cmp, sub), `add`, `logic` (and, or, xor, test: CF = OF = 0), `inc`/`dec`
   * (CF unchanged, kept in `cf`), `neg`, `fcmp` (ucomisd/comisd), `bits` (CF = `cf`, e.g. bt),
   * `sbb`/`adc` (with the carry in, `cin`), `unknown` (an instruction the lifter does not
   * model).
   */
  op:
    | "sub"
    | "add"
    | "logic"
    | "inc"
    | "dec"
    | "neg"
    | "fcmp"
    | "bits"
    | "sbb"
    | "adc"
    | "unknown";
  a: Expr;
  b: Expr;
  res: Expr;
  size: number;
  /** The carry, where the operation defines it some other way (inc/dec keep the old one). */
  cf?: Expr;
  /** The carry the operation read (`sbb`, `adc`): a 1-byte boolean. */
  cin?: Expr;
  /**
   * The double-width operation a `sbb`/`adc` completes, when the carry it read came from a `sub`
   * (`cmp`) or `add` of the low halves: `cmp lo1, lo2; sbb hi1, hi2; jl` compares the 64-bit
   * values `hi1:lo1 < hi2:lo2`, which is what 32-bit code does for `long long`.
   */
  wide?: { a: Expr; b: Expr; res: Expr };
  /** Address of the instruction that set the flags. */
  at: number;
}

const bin = (op: BinOp, a: Expr, b: Expr): Expr => ({ k: "bin", op, a, b, size: 1 });
const not = (a: Expr): Expr => ({ k: "un", op: "lnot", a, size: 1 });
const zero = (size: number) => constant(0, size);
const TRUE = constant(1, 1);
const FALSE = constant(0, 1);

/** Canonical condition names by every x86 spelling. */
const ALIASES: Record<string, string> = {
  o: "o",
  no: "no",
  b: "b",
  c: "b",
  nae: "b",
  ae: "ae",
  nb: "ae",
  nc: "ae",
  e: "e",
  z: "e",
  ne: "ne",
  nz: "ne",
  be: "be",
  na: "be",
  a: "a",
  nbe: "a",
  s: "s",
  ns: "ns",
  p: "p",
  pe: "p",
  np: "np",
  po: "np",
  l: "l",
  nge: "l",
  ge: "ge",
  nl: "ge",
  le: "le",
  ng: "le",
  g: "g",
  nle: "g",
};

/** The canonical name of an x86 condition suffix (`nz` → `ne`), or undefined. */
export function conditionName(suffix: string): string | undefined {
  return ALIASES[suffix];
}

/** The negation of a canonical condition. */
const NEGATION: Record<string, string> = {
  o: "no",
  no: "o",
  b: "ae",
  ae: "b",
  e: "ne",
  ne: "e",
  be: "a",
  a: "be",
  s: "ns",
  ns: "s",
  p: "np",
  np: "p",
  l: "ge",
  ge: "l",
  le: "g",
  g: "le",
};

/** The value (a 1-byte boolean) of condition `cc` after the operation `f`. */
export function condition(f: FlagState, cc: string): Expr {
  const neg = NEGATION[cc];
  if (neg === undefined) throw new RangeError(`Unknown condition ${cc}`);
  // Build the positive half of each pair; the other half is its negation.
  if (["ae", "ne", "a", "ns", "np", "ge", "g", "no"].includes(cc)) return not(condition(f, neg));
  const { a, b, res, size } = f;
  if (f.op === "sub") {
    switch (cc) {
      case "e":
        return bin("eq", a, b);
      case "b":
        return bin("ult", a, b);
      case "be":
        return bin("ule", a, b);
      case "l":
        return bin("slt", a, b);
      case "le":
        return bin("sle", a, b);
    }
  }
  if (f.op === "logic") {
    switch (cc) {
      case "e":
      case "be":
        return bin("eq", res, zero(size));
      case "b":
      case "o":
        return FALSE;
      case "s":
      case "l":
        return bin("slt", res, zero(size));
      case "le":
        return bin("sle", res, zero(size));
    }
  }
  if (f.op === "fcmp") {
    // ucomisd: ZF,PF,CF = 111 unordered, 000 greater, 001 less, 100 equal.
    const fb = (name: string) => ({ k: "intr", name, args: [a, b], size: 1 }) as Expr;
    switch (cc) {
      case "e":
        return fb("__feq");
      case "b":
        return fb("__flt");
      case "be":
        return fb("__fle");
      case "p":
        return fb("__funordered");
      case "s":
      case "o":
      case "l":
      case "le":
        return FALSE;
    }
  }
  if (f.op === "sbb" && f.wide) {
    // The conditions a C comparison of the double-width values gives (ZF is the high half's
    // alone: `e` and `le` keep the generic formulas).
    if (cc === "b") return bin("ult", f.wide.a, f.wide.b);
    if (cc === "l") return bin("slt", f.wide.a, f.wide.b);
  }
  // Generic formulas over the individual flags.
  const zf = f.op === "unknown" ? flagIntr("__zf", f) : bin("eq", res, zero(size));
  const sf = f.op === "unknown" ? flagIntr("__sf", f) : bin("slt", res, zero(size));
  switch (cc) {
    case "e":
      return zf;
    case "s":
      return sf;
    case "b":
      return carry(f);
    case "be":
      return bin("lor", carry(f), zf);
    case "o":
      return overflow(f);
    case "l":
      return bin("ne", sf, overflow(f));
    case "le":
      return bin("lor", zf, bin("ne", sf, overflow(f)));
    case "p":
      return flagIntr("__parity", f);
  }
  throw new RangeError(`Unknown condition ${cc}`);
}

/** The carry flag after `f`. */
export function carry(f: FlagState): Expr {
  if (f.cf !== undefined) return f.cf;
  switch (f.op) {
    case "sub":
      return bin("ult", f.a, f.b);
    case "add":
      return bin("ult", f.res, f.a);
    case "logic":
      return FALSE;
    case "neg":
      return bin("ne", f.a, zero(f.size));
    case "sbb":
      // A borrow out of a - b - cin: a < b, or a == b with a borrow in.
      if (f.wide) return bin("ult", f.wide.a, f.wide.b);
      return bin("lor", bin("ult", f.a, f.b), bin("land", bin("eq", f.a, f.b), f.cin ?? FALSE));
    case "adc":
      // A carry out of a + b + cin: the sum wrapped below a, or to a itself with a carry in.
      if (f.wide) return bin("ult", f.wide.res, f.wide.a);
      return bin(
        "lor",
        bin("ult", f.res, f.a),
        bin("land", bin("eq", f.res, f.a), f.cin ?? FALSE),
      );
    case "fcmp":
      return { k: "intr", name: "__flt", args: [f.a, f.b], size: 1 };
    default:
      return flagIntr("__cf", f);
  }
}

function overflow(f: FlagState): Expr {
  const sign = (e: Expr): Expr => bin("slt", e, zero(f.size));
  const xor = (x: Expr, y: Expr): Expr => ({ k: "bin", op: "xor", a: x, b: y, size: f.size });
  switch (f.op) {
    case "sub":
    case "sbb":
      // Operands of different signs and a result whose sign differs from the first.
      return sign({ k: "bin", op: "and", a: xor(f.a, f.b), b: xor(f.a, f.res), size: f.size });
    case "add":
    case "adc":
    case "inc":
      return sign({
        k: "bin",
        op: "and",
        a: { k: "un", op: "not", a: xor(f.a, f.b), size: f.size },
        b: xor(f.a, f.res),
        size: f.size,
      });
    case "dec":
      return sign({ k: "bin", op: "and", a: xor(f.a, f.b), b: xor(f.a, f.res), size: f.size });
    case "neg":
      return sign({ k: "bin", op: "and", a: f.a, b: f.res, size: f.size });
    case "logic":
    case "fcmp":
      return FALSE;
    default:
      return flagIntr("__of", f);
  }
}

function flagIntr(name: string, f: FlagState): Expr {
  return { k: "intr", name, args: [f.res], size: 1 };
}

export { TRUE as TRUE_CONDITION };
