/**
 * Structured IR → C text, with a map from each output line to the instruction addresses it came
 * from. Casts make the meaning exact whatever the declared types (`(int32_t)a < (int32_t)b` for
 * a signed comparison of unsigned variables), so the output recompiles to the same behaviour.
 */

import { COMPARES, type Expr, type IrFunction, type Stmt, type Var, varKey } from "./ir.ts";
import type { Cond, Stmt as SStmt } from "./structure/types.ts";
import { type CType, typeName, uintType } from "./types.ts";
import { simplify } from "./passes/simplify.ts";
import { FLOAT_OPS, floatLiteral } from "./float.ts";

/** What the printer asks about names and data. */
export interface EmitNames {
  /** The name of a function or import at `address`. */
  functionAt(address: number): string | undefined;
  /** The name of a data object at `address`. */
  dataAt(address: number): string | undefined;
  /** The string at `address`, when one starts there. */
  stringAt(address: number): string | undefined;
  /** A user comment at an instruction address. */
  commentAt?(address: number): string | undefined;
}

/** One line of output and the addresses it came from. */
export interface Line {
  text: string;
  addresses: number[];
}

/** The printer's view of the function's variables. */
export interface EmitVars {
  /** Name of a variable by {@link varKey}. */
  name(v: Var): string;
  type(v: Var): CType;
  /** Whether the variable is a stack array (its name is its address). */
  isArray(v: Var): boolean;
  /** Whether the result of a call (its return register definition) is read. */
  used(v: Var): boolean;
  /** The register that carries return values. */
  retReg: string;
  /** The double-width return value's register (x86-32's `edx_eax`), when the convention has one. */
  pairReg?: string;
  /** The register that carries floating-point return values, when the ABI has one. */
  floatRetReg?: string;
}

const PREC: Record<string, number> = {
  mul: 13,
  udiv: 13,
  sdiv: 13,
  urem: 13,
  srem: 13,
  add: 12,
  sub: 12,
  shl: 11,
  shr: 11,
  sar: 11,
  ult: 10,
  ule: 10,
  slt: 10,
  sle: 10,
  eq: 9,
  ne: 9,
  and: 8,
  xor: 7,
  or: 6,
  land: 5,
  lor: 4,
};
const SYMBOL: Record<string, string> = {
  add: "+",
  sub: "-",
  mul: "*",
  udiv: "/",
  sdiv: "/",
  urem: "%",
  srem: "%",
  and: "&",
  or: "|",
  xor: "^",
  shl: "<<",
  shr: ">>",
  sar: ">>",
  eq: "==",
  ne: "!=",
  ult: "<",
  ule: "<=",
  slt: "<",
  sle: "<=",
  land: "&&",
  lor: "||",
};
const CAST = 14;
const ATOM = 16;

/** A printed expression: text, precedence and C type. */
interface P {
  t: string;
  p: number;
  ty: CType;
}

const BOOL: CType = { size: 1, kind: "bool" };

/** Escapes a string for a C literal. */
export function cString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0") + '""';
    else out += ch;
  }
  return out + '"';
}

function hexOf(v: bigint): string {
  return v < 10n ? v.toString() : "0x" + v.toString(16);
}

/** Prints expressions and statements of one function. */
export class Printer {
  readonly #names: EmitNames;
  readonly #vars: EmitVars;
  readonly #ptr: number;

  constructor(fn: IrFunction, names: EmitNames, vars: EmitVars) {
    this.#names = names;
    this.#vars = vars;
    this.#ptr = fn.arch.ptr;
  }

  /** C text of `e`, at least of precedence `min` (parenthesised otherwise). */
  expr(e: Expr, min = 0): string {
    const p = this.#p(e);
    return p.p < min ? `(${p.t})` : p.t;
  }

  #cast(p: P, ty: CType): string {
    return `(${typeName(ty)})${p.p < CAST ? `(${p.t})` : p.t}`;
  }

  /** C text of `e` as a value of type `ty` (converted or cast as {@link #as} does). */
  exprAs(e: Expr, ty: CType, min = 0): string {
    return this.#as(e, ty, min);
  }

  /**
   * Between floating point and integers of the same size a value keeps its bits: loads and
   * constants are read as the float type, anything else goes through a bit cast.
   */
  #floatAs(e: Expr, ty: CType, p: P, min: number): string | undefined {
    const toFloat = ty.kind === "float";
    if (toFloat === (p.ty.kind === "float")) return undefined;
    if (toFloat) {
      if (e.k === "load" && e.size === ty.size && !this.#segment(e.addr)) {
        return `*(${typeName(ty)} *)${this.#address(e.addr)}`;
      }
      if (e.k === "const") {
        const lit = floatLiteral(e.value, ty.size);
        if (lit !== undefined) return lit.startsWith("-") && min > CAST ? `(${lit})` : lit;
      }
      if (ty.size !== 4 && ty.size !== 8) return undefined;
      const bits = this.#as(e, uintType(ty.size), 0);
      return `__as_${typeName(ty)}(${bits})`;
    }
    if (p.ty.size !== 4 && p.ty.size !== 8) return undefined;
    const bits: P = { t: `__${typeName(p.ty)}_bits(${p.t})`, p: ATOM, ty: uintType(p.ty.size) };
    if (bits.ty.size === ty.size && ty.kind === "uint") return bits.t;
    return this.#cast(bits, ty);
  }

  /** `e` as a value of exactly `ty` (cast when its C type differs). */
  #as(e: Expr, ty: CType, min: number): string {
    if (ty.kind === "float" || this.#isFloat(e)) {
      const f = this.#floatAs(e, ty, this.#p(e), min);
      if (f !== undefined) return f;
    }
    if (e.k === "const" && e.size === ty.size && (ty.kind === "int" || ty.kind === "uint")) {
      const c = this.#constant(e.value, e.size);
      if (c.ty.kind === "uint") {
        return ty.kind === "int" ? this.#signedConst(e.value, e.size) : c.t;
      }
    }
    // A truncation to the size of the wanted type is that type's cast of the wider value.
    if (e.k === "trunc" && e.size === ty.size && ty.kind !== "bool") {
      const inner = this.#p(e.a);
      if (inner.ty.kind === "int" || inner.ty.kind === "uint") return this.#cast(inner, ty);
    }
    const p = this.#p(e);
    const same = p.ty.size === ty.size &&
      (p.ty.kind === ty.kind ||
        (ty.kind === "uint" && p.ty.kind === "bool") ||
        (p.ty.kind === "char_ptr" && ty.kind === "ptr"));
    if (same) return p.p < min ? `(${p.t})` : p.t;
    return this.#cast(p, ty);
  }

  #constant(value: bigint, size: number): P {
    const ty = uintType(size);
    if (size === this.#ptr && value > 0x1000n) {
      const a = Number(value);
      const s = this.#names.stringAt(a);
      if (s !== undefined) return { t: cString(s), p: ATOM, ty: { size, kind: "char_ptr" } };
      const f = this.#names.functionAt(a);
      if (f !== undefined) return { t: f, p: ATOM, ty: { size, kind: "ptr" } };
      const d = this.#names.dataAt(a);
      if (d !== undefined) return { t: `&${d}`, p: CAST, ty: { size, kind: "ptr" } };
    }
    return { t: hexOf(value), p: ATOM, ty };
  }

  // Printing asks for a subexpression's text more than once (to choose a cast): remember it,
  // or deep trees cost time exponential in their depth.
  readonly #memo = new WeakMap<Expr, P>();

  #p(e: Expr): P {
    const known = this.#memo.get(e);
    if (known) return known;
    const p = this.#print(e);
    this.#memo.set(e, p);
    return p;
  }

  #print(e: Expr): P {
    switch (e.k) {
      case "const":
        return this.#constant(e.value, e.size);
      case "reg":
      case "tmp":
      case "slot":
        return { t: this.#vars.name(e), p: ATOM, ty: this.#vars.type(e) };
      case "addr": {
        const name = this.#vars.name(e.slot);
        return this.#vars.isArray(e.slot)
          ? { t: name, p: ATOM, ty: { size: this.#ptr, kind: "ptr" } }
          : { t: `(uint8_t *)&${name}`, p: CAST, ty: { size: this.#ptr, kind: "ptr" } };
      }
      case "load": {
        const fs = this.#segment(e.addr);
        if (fs) {
          const suffix = { 1: "byte", 2: "word", 4: "dword", 8: "qword" }[e.size] ?? "qword";
          return { t: `__read${fs[0]}${suffix}(${hexOf(fs[1])})`, p: ATOM, ty: uintType(e.size) };
        }
        return {
          t: `*(${typeName(uintType(e.size))} *)${this.#address(e.addr)}`,
          p: CAST,
          ty: uintType(e.size),
        };
      }
      case "un": {
        if (e.op === "lnot") return { t: `!${this.#as(e.a, BOOL, CAST)}`, p: CAST, ty: BOOL };
        const ty = uintType(e.size);
        const t = `${e.op === "neg" ? "-" : "~"}${this.#as(e.a, ty, CAST)}`;
        return this.#narrow({ t, p: CAST, ty }, e.size);
      }
      case "ext": {
        const from: CType = { size: e.a.size, kind: e.signed ? "int" : "uint" };
        const inner = this.#as(e.a, from, CAST);
        const ty: CType = { size: e.size, kind: e.signed ? "int" : "uint" };
        return { t: `(${typeName(ty)})${inner}`, p: CAST, ty };
      }
      case "trunc": {
        const ty = uintType(e.size);
        // Part of a float variable is part of its bits, not of its value converted.
        if (this.#isFloat(e.a)) {
          return { t: `(${typeName(ty)})${this.#as(e.a, uintType(e.a.size), CAST)}`, p: CAST, ty };
        }
        return { t: this.#cast(this.#p(e.a), ty), p: CAST, ty };
      }
      case "select": {
        const ty: CType = this.#isFloat(e.t) || this.#isFloat(e.f)
          ? { size: e.size, kind: "float" }
          : uintType(e.size);
        return {
          t: `${this.#as(e.c, BOOL, 4)} ? ${this.#as(e.t, ty, 3)} : ${this.#as(e.f, ty, 3)}`,
          p: 3,
          ty,
        };
      }
      case "intr":
        if (FLOAT_OPS[e.name]) return this.#float(e);
        return {
          // Other intrinsics take registers' bits: a float variable goes in as its bits, not
          // converted to an integer value.
          t: `${e.name}(${
            e.args.map((a) => this.#isFloat(a) ? this.#as(a, uintType(a.size), 2) : this.expr(a, 2))
              .join(", ")
          })`,
          p: ATOM,
          ty: e.size === 1 && e.name.startsWith("__f") ? BOOL : uintType(e.size),
        };
      case "bin":
        return this.#bin(e);
    }
  }

  #isFloat(e: Expr): boolean {
    if (e.k === "intr") return FLOAT_OPS[e.name]?.result === "f";
    return (e.k === "reg" || e.k === "tmp" || e.k === "slot") &&
      this.#vars.type(e).kind === "float";
  }

  /** A floating-point operation as C arithmetic, a math.h call or a conversion. */
  #float(e: Extract<Expr, { k: "intr" }>): P {
    const ft = (size: number): CType => ({ size, kind: "float" });
    const arg = (i: number, min: number) => {
      const a = e.args[i]!;
      return this.#as(a, ft(a.size), min);
    };
    const infix = (sym: string, prec: number): P => ({
      t: `${arg(0, prec)} ${sym} ${arg(1, prec + 1)}`,
      p: prec,
      ty: ft(e.size),
    });
    const call = (name: string): P => ({
      t: `${name}${e.size === 4 ? "f" : e.size === 10 ? "l" : ""}(${
        e.args.map((_, i) => arg(i, 2)).join(", ")
      })`,
      p: ATOM,
      ty: ft(e.size),
    });
    const cmp = (t: string): P => ({ t, p: CAST, ty: BOOL });
    switch (e.name) {
      case "__fadd":
        return infix("+", PREC.add!);
      case "__fsub":
        return infix("-", PREC.sub!);
      case "__fmul":
        return infix("*", PREC.mul!);
      case "__fdiv":
        return infix("/", PREC.mul!);
      case "__fneg":
        return { t: `-${arg(0, CAST)}`, p: CAST, ty: ft(e.size) };
      case "__fsqrt":
        return call("sqrt");
      case "__fabs":
        return call("fabs");
      case "__fma":
        return call("fma");
      case "__fmin":
      case "__fmax":
        return {
          t: `${arg(0, 10)} ${e.name === "__fmin" ? "<" : ">"} ${arg(1, 11)} ? ${arg(0, 3)} : ${
            arg(1, 3)
          }`,
          p: 3,
          ty: ft(e.size),
        };
      case "__fminimum":
        return call("fminimum");
      case "__fmaximum":
        return call("fmaximum");
      case "__fminnum":
        return call("fmin");
      case "__fmaxnum":
        return call("fmax");
      case "__fconv":
        return { t: `(${typeName(ft(e.size))})${arg(0, CAST)}`, p: CAST, ty: ft(e.size) };
      case "__itof":
      case "__utof": {
        const a = e.args[0]!;
        const kind = e.name === "__itof" ? "int" : "uint";
        const src = this.#as(a, { size: a.size, kind }, CAST);
        return { t: `(${typeName(ft(e.size))})${src}`, p: CAST, ty: ft(e.size) };
      }
      case "__ftoi":
      case "__ftou":
      case "__ftoi_rint": {
        const ty: CType = { size: e.size, kind: e.name === "__ftou" ? "uint" : "int" };
        const from = e.args[0]!.size;
        const a = e.name !== "__ftoi_rint"
          ? arg(0, CAST)
          : `rint${from === 4 ? "f" : from === 10 ? "l" : ""}(${arg(0, 2)})`;
        return { t: `(${typeName(ty)})${a}`, p: CAST, ty };
      }
      // ucomis* flags as the C99 comparison macros (quiet, true or false when unordered).
      case "__flt":
        return cmp(`!isgreaterequal(${arg(0, 2)}, ${arg(1, 2)})`);
      case "__fle":
        return cmp(`!isgreater(${arg(0, 2)}, ${arg(1, 2)})`);
      case "__feq":
        return cmp(`!islessgreater(${arg(0, 2)}, ${arg(1, 2)})`);
      default:
        return { t: `isunordered(${arg(0, 2)}, ${arg(1, 2)})`, p: ATOM, ty: BOOL };
    }
  }

  /** `[fs|gs, offset]` for a thread-local access. */
  #segment(addr: Expr): [string, bigint] | undefined {
    const base = (e: Expr) =>
      e.k === "reg" && (e.name === "fs_base" || e.name === "gs_base")
        ? e.name.slice(0, 2)
        : undefined;
    const b = base(addr);
    if (b) return [b, 0n];
    if (addr.k === "bin" && addr.op === "add" && addr.b.k === "const") {
      const s = base(addr.a);
      if (s) return [s, addr.b.value];
    }
    return undefined;
  }

  /** An address as the operand of a pointer cast. */
  #address(addr: Expr): string {
    const p = this.#p(addr);
    return p.p >= CAST ? p.t : `(${p.t})`;
  }

  /** Arithmetic narrower than `int` wraps explicitly (C would widen it). */
  #narrow(p: P, size: number): P {
    if (size >= 4) return p;
    const ty = uintType(size);
    return { t: `(${typeName(ty)})(${p.t})`, p: CAST, ty };
  }

  #bin(e: Extract<Expr, { k: "bin" }>): P {
    const prec = PREC[e.op]!;
    const sym = SYMBOL[e.op]!;
    const size = e.a.size;
    if (COMPARES.has(e.op)) {
      if (e.op === "land" || e.op === "lor") {
        return {
          t: `${this.#as(e.a, BOOL, prec)} ${sym} ${this.#as(e.b, BOOL, prec + 1)}`,
          p: prec,
          ty: BOOL,
        };
      }
      const signed = e.op === "slt" || e.op === "sle";
      const ty: CType = { size, kind: signed ? "int" : "uint" };
      if (e.op === "eq" || e.op === "ne") {
        // Equality does not depend on signedness; keep the operands' own types when they agree.
        const a = this.#p(e.a);
        const b = e.b.k === "const" ? this.#constant(e.b.value, e.b.size) : this.#p(e.b);
        if (
          a.ty.size === size && (e.b.k === "const" || b.ty.size === size) &&
          a.ty.kind !== "float" && b.ty.kind !== "float"
        ) {
          return {
            t: `${a.p < prec ? `(${a.t})` : a.t} ${sym} ${b.p <= prec ? `(${b.t})` : b.t}`,
            p: prec,
            ty: BOOL,
          };
        }
      }
      const b = e.b.k === "const" && signed
        ? this.#signedConst(e.b.value, size)
        : this.#as(e.b, ty, prec + 1);
      return { t: `${this.#as(e.a, ty, prec)} ${sym} ${b}`, p: prec, ty: BOOL };
    }
    const signed = e.op === "sdiv" || e.op === "srem" || e.op === "sar";
    const a = this.#p(e.a);
    // Pointer arithmetic on a byte pointer is address arithmetic.
    if (
      (e.op === "add" || e.op === "sub") && a.ty.kind !== "int" && a.ty.kind !== "uint" &&
      a.ty.kind !== "bool"
    ) {
      const b = this.#offset(e.b, e.op);
      return {
        t: `${a.p < prec ? `(${a.t})` : a.t} ${b.sym} ${b.t}`,
        p: prec,
        ty: { size, kind: "ptr" },
      };
    }
    // Ring operations give the same bits signed or not: signed operands stay as they are.
    const ring = ["add", "sub", "mul", "and", "or", "xor"].includes(e.op);
    const bt = e.b.k === "const" ? undefined : this.#p(e.b).ty;
    const bothSigned = a.ty.kind === "int" && a.ty.size === size &&
      (bt === undefined || (bt.kind === "int" && bt.size === size));
    const ty: CType = { size, kind: signed || (ring && bothSigned) ? "int" : "uint" };
    const shift = e.op === "shl" || e.op === "shr" || e.op === "sar";
    // A shifted constant has its own type in C (`1 << n` shifts an int): give it the width.
    const left = shift && e.a.k === "const" && size >= 4
      ? `(${typeName(ty)})${this.#constant(e.a.value, size).t}`
      : this.#as(e.a, ty, prec);
    if (e.op === "add" || e.op === "sub") {
      const b = this.#offset(e.b, e.op, ty);
      return this.#narrow({ t: `${left} ${b.sym} ${b.t}`, p: prec, ty }, e.size);
    }
    const right = shift ? this.expr(e.b, prec + 1) : this.#as(e.b, ty, prec + 1);
    return this.#narrow({ t: `${left} ${sym} ${right}`, p: prec, ty }, e.size);
  }

  /** The right side of `+`/`-`: small negative constants print as subtraction. */
  #offset(b: Expr, op: "add" | "sub", ty: CType = uintType(b.size)): { sym: string; t: string } {
    if (b.k === "const") {
      const s = BigInt.asIntN(b.size * 8, b.value);
      if (s < 0n && s > -0x100000n) {
        return { sym: op === "add" ? "-" : "+", t: hexOf(-s) };
      }
      return { sym: op === "add" ? "+" : "-", t: hexOf(b.value) };
    }
    return { sym: op === "add" ? "+" : "-", t: this.#as(b, ty, PREC.add! + 1) };
  }

  #signedConst(v: bigint, size: number): string {
    const s = BigInt.asIntN(size * 8, v);
    if (s >= 0n) return hexOf(s);
    // C has no negative literals: `-0x80000000` negates an unsigned int. A decimal literal is
    // signed; past int's range it needs its long long suffix.
    return s >= -0x7fffffffn ? s.toString() : `(${s + 1n}LL - 1)`;
  }

  /** `e` as a value of variable `v`'s type, as the right side of an assignment to it. */
  valueOf(e: Expr, v: Var): string {
    return this.#as(e, this.#vars.type(v), 2);
  }

  /** C text of a statement, or undefined when it prints nothing. */
  stmt(s: Stmt): string | undefined {
    switch (s.k) {
      case "set":
        return `${this.#vars.name(s.dst)} = ${this.valueOf(s.src, s.dst)};`;
      case "store": {
        // A floating-point value is stored as its type (`*(double *)p = x`).
        const ty = this.#isFloat(s.value) && s.value.size === s.size
          ? { size: s.size, kind: "float" } as CType
          : uintType(s.size);
        return `*(${typeName(ty)} *)${this.#address(s.addr)} = ${this.#as(s.value, ty, 2)};`;
      }
      case "call": {
        const call = `${this.#callee(s.target)}(${s.args.map((a) => this.expr(a, 2)).join(", ")})`;
        const pair = s.defs.find((d) => d.name === this.#vars.pairReg);
        if (pair && this.#vars.used(pair)) return `${this.#vars.name(pair)} = ${call};`;
        const ret = s.defs.find((d) => d.name === this.#vars.retReg);
        if (ret && this.#vars.used(ret)) return `${this.#vars.name(ret)} = ${call};`;
        const fret = s.defs.find((d) => d.name === this.#vars.floatRetReg);
        if (fret && this.#vars.used(fret)) return `${this.#vars.name(fret)} = ${call};`;
        return `${call};`;
      }
      case "asm": {
        const args = s.args.map((a) => this.expr(a, 2));
        if (s.outs.length === 1) {
          return `${this.#vars.name(s.outs[0]!)} = ${s.name}(${args.join(", ")});`;
        }
        const outs = s.outs.map((o) => `&${this.#vars.name(o)}`);
        return `${s.name}(${[...args, ...outs].join(", ")});`;
      }
    }
  }

  /** A call target: a name, or a call through a pointer. */
  callee(target: Expr): string {
    return this.#callee(target);
  }

  #callee(target: Expr): string {
    if (target.k === "const") {
      const f = this.#names.functionAt(Number(target.value));
      if (f !== undefined) return f;
      return `((uint64_t (*)())${hexOf(target.value)})`;
    }
    if (target.k === "load" && target.addr.k === "const") {
      // A call through an import slot (IAT / GOT): the slot's name is the import's.
      const f = this.#names.functionAt(Number(target.addr.value));
      if (f !== undefined) return f;
    }
    return `((uint64_t (*)())${this.#address(target)})`;
  }

  /** A structured condition. */
  cond(c: Cond<Expr>, min = 0): string {
    switch (c.kind) {
      case "atom":
        return this.#as(c.cond, BOOL, min);
      case "not": {
        const inner = c.of;
        if (inner.kind === "atom") {
          return this.#as(simplify({ k: "un", op: "lnot", a: inner.cond, size: 1 }), BOOL, min);
        }
        return `!(${this.cond(inner)})`;
      }
      case "and": {
        const t = `${this.cond(c.left, 5)} && ${this.cond(c.right, 6)}`;
        return min > 5 ? `(${t})` : t;
      }
      case "or": {
        const t = `${this.cond(c.left, 4)} || ${this.cond(c.right, 5)}`;
        return min > 4 ? `(${t})` : t;
      }
    }
  }
}

/** Addresses of a statement tree's direct terminator (for the line map). */
export type TreeStmt = SStmt<number, Expr>;

export { varKey };
