/**
 * Types from use: a variable's width is its size; it is signed when a signed operation reads it,
 * a pointer when it is dereferenced (or offset then dereferenced), `char *` when it holds the
 * address of a string, `bool` when it holds a comparison. Structures are a later step.
 */

import {
  COMPARES,
  type Expr,
  forEachChild,
  type IrFunction,
  stmtReads,
  termReads,
  varKey,
} from "./ir.ts";
import { floatTypeName, isFloatArg, isFloatResult, isFloatSize } from "./float.ts";

/** A C type the printer writes. */
export interface CType {
  size: number;
  kind: "int" | "uint" | "bool" | "ptr" | "char_ptr" | "float";
}

/** The C spelling of a type. */
export function typeName(t: CType): string {
  switch (t.kind) {
    case "bool":
      return "bool";
    case "ptr":
      return "uint8_t *";
    case "char_ptr":
      return "char *";
    case "float":
      return floatTypeName(t.size);
  }
  // No integer type has 10 bytes: a value of that size is an x87 extended one.
  if (t.size === 10) return floatTypeName(10);
  switch (t.kind) {
    case "int":
      return t.size === 16 ? "__int128" : `int${t.size * 8}_t`;
    default:
      return t.size === 16 ? "unsigned __int128" : `uint${t.size * 8}_t`;
  }
}

/** An unsigned type of `size` bytes (what a value of no known use is). */
export function uintType(size: number): CType {
  return { size, kind: "uint" };
}

const SIGNED_OPS = new Set(["slt", "sle", "sdiv", "srem"]);

/**
 * Types of every variable of `fn` by {@link varKey}, from their uses and definitions;
 * `isString(address)` says whether an address holds a string.
 */
export function inferTypes(
  fn: IrFunction,
  isString: (address: number) => boolean,
): Map<string, CType> {
  const signed = new Set<string>();
  const pointer = new Set<string>();
  const strings = new Set<string>();
  const bools = new Set<string>();
  const sizes = new Map<string, number>();
  // Floating point: results and operands of the float operations, the float argument and
  // return registers (their ABI role fixes the type), and copies of float variables.
  const floats = new Set<string>();
  const copies: [string, string][] = [];
  const varOf = (e: Expr): string | undefined =>
    e.k === "reg" || e.k === "tmp" || e.k === "slot" ? varKey(e) : undefined;
  const baseOf = (addr: Expr): string | undefined => {
    const v = varOf(addr);
    if (v) return v;
    if (addr.k === "bin" && addr.op === "add") return varOf(addr.a);
    return undefined;
  };
  const visit = (e: Expr) => {
    const v = varOf(e);
    if (v) sizes.set(v, e.size);
    if (e.k === "bin" && SIGNED_OPS.has(e.op)) {
      for (const x of [e.a, e.b]) {
        const k = varOf(x);
        if (k) signed.add(k);
      }
    }
    if (e.k === "bin" && e.op === "sar") {
      const k = varOf(e.a);
      if (k) signed.add(k);
    }
    if (e.k === "ext" && e.signed) {
      const k = varOf(e.a);
      if (k) signed.add(k);
    }
    if (e.k === "intr") {
      e.args.forEach((x, i) => {
        const k = varOf(x);
        if (k && isFloatArg(e, i) && isFloatSize(x.size)) floats.add(k);
        // A signed integer converted to floating point.
        if (k && e.name === "__itof") signed.add(k);
      });
    }
    if (e.k === "reg" && isFloatRegister(e.name, e.ver) && isFloatSize(e.size) && v) {
      floats.add(v);
    }
    if (e.k === "load") {
      const k = baseOf(e.addr);
      if (k && e.addr.size === fn.arch.ptr) pointer.add(k);
    }
    forEachChild(e, visit);
  };
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) {
      stmtReads(s, visit);
      if (s.k === "store") {
        const k = baseOf(s.addr);
        if (k) pointer.add(k);
      }
      if (s.k === "call") {
        for (const d of s.defs) {
          if (/^(xmm0|st0|v0)$/.test(d.name) && isFloatSize(d.size)) floats.add(varKey(d));
        }
      }
      if (s.k === "set") {
        const k = varKey(s.dst);
        sizes.set(k, s.dst.size);
        if (isFloatResult(s.src) && isFloatSize(s.dst.size)) floats.add(k);
        if (s.dst.k === "reg" && isFloatRegister(s.dst.name, s.dst.ver)) floats.add(k);
        const from = varOf(s.src);
        if (from && s.src.size === s.dst.size) copies.push([from, k]);
        if (s.src.k === "const" && s.src.size === fn.arch.ptr && isString(Number(s.src.value))) {
          strings.add(k);
        }
        if (s.src.size === 1 && s.src.k === "bin" && COMPARES.has(s.src.op)) bools.add(k);
      }
    }
    for (const p of b.phis) sizes.set(varKey(p.dst), p.dst.size);
    termReads(b.term, visit);
  }
  for (let changed = true, round = 0; changed && round < 8; round++) {
    changed = false;
    for (const [from, to] of copies) {
      if (floats.has(from) && !floats.has(to)) {
        floats.add(to);
        changed = true;
      }
    }
  }
  const out = new Map<string, CType>();
  for (const [k, size] of sizes) {
    let kind: CType["kind"] = "uint";
    // No integer type has 10 bytes: such a value is an x87 extended one, whatever its use.
    if ((floats.has(k) && isFloatSize(size)) || size === 10) kind = "float";
    else if (strings.has(k)) kind = "char_ptr";
    else if (pointer.has(k) && size === fn.arch.ptr) kind = "ptr";
    else if (bools.has(k)) kind = "bool";
    else if (signed.has(k)) kind = "int";
    out.set(k, { size, kind });
  }
  return out;
}

/**
 * Registers whose values are floating point by the ABI: the entry values of the SSE argument
 * registers (`xmm0`…, AArch64's `v0`…, the low half) and of the x87 stack.
 */
export function isFloatRegister(name: string, ver: number | undefined): boolean {
  // The x87 stack holds floats only.
  if (/^(fp|fpm)\d+$|^st0$/.test(name)) return true;
  return ver === 0 && /^(xmm|v)\d+$/.test(name);
}
