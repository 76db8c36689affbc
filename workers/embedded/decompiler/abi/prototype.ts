/**
 * C function declarations → what the decompiler needs: return type, parameter types and names,
 * whether the function is variadic. Accepts the subset of C declarations prototypes use
 * (qualifiers, pointers, calling-convention keywords, unnamed parameters, `void`, `...`).
 */

import { RemcpError } from "../../../../src/errors.ts";

/** One parameter. */
export interface Param {
  type: string;
  name?: string;
}

/** A parsed prototype. */
export interface Prototype {
  name: string;
  ret: string;
  params: Param[];
  variadic: boolean;
  /** Index of the printf/scanf-style format parameter, when there is one. */
  format?: number;
}

const KEYWORDS =
  /\b(extern|static|inline|__cdecl|__stdcall|__fastcall|__thiscall|WINAPI|APIENTRY|CALLBACK|__attribute__\s*\(\([^)]*\)\))\s*/g;

function splitTypeName(decl: string): Param {
  const d = decl.trim().replace(/\s+/g, " ").replace(/\s*\*\s*/g, " *").replace(/\* \*/g, "**")
    .replace(/\* \*/g, "**");
  const m = /^(.*?[\s*])([A-Za-z_]\w*)(\s*\[\s*\w*\s*\])?$/.exec(d);
  const typeOnly =
    /^(const |volatile |unsigned |signed |struct |enum |union )*(void|char|short|int|long|float|double|bool|_Bool|size_t|ssize_t|[A-Z_][A-Z0-9_]*|\w+_t)( (long|int|char|double))*( ?\*+)?( const)?$/;
  if (!m || typeOnly.test(d)) return { type: normalizeType(d) };
  return { type: normalizeType(m[1]! + (m[3] ? "*" : "")), name: m[2]! };
}

function normalizeType(t: string): string {
  return t.trim().replace(/\s+/g, " ").replace(/ \*/g, " *").replace(/\*(?=\w)/g, "* ");
}

/** Parses `text` as a C prototype; throws InvalidArgument saying what it expected. */
export function parsePrototype(text: string): Prototype {
  const src = text.replace(KEYWORDS, "").replace(/;\s*$/, "").trim();
  const m = /^(.*?)([A-Za-z_]\w*)\s*\((.*)\)\s*$/s.exec(src);
  if (!m) {
    throw new RemcpError(
      "InvalidArgument",
      `Cannot parse "${text}" as a C prototype: write e.g. "int parse(char *buf, size_t len)"`,
      { param: "prototype" },
    );
  }
  const ret = normalizeType(m[1]!) || "int";
  const inner = m[3]!.trim();
  const params: Param[] = [];
  let variadic = false;
  if (inner !== "" && inner !== "void") {
    // Split on commas outside parentheses (function-pointer parameters).
    let depth = 0;
    let cur = "";
    const parts: string[] = [];
    for (const ch of inner) {
      if (ch === "(") depth++;
      if (ch === ")") depth--;
      if (ch === "," && depth === 0) {
        parts.push(cur);
        cur = "";
      } else cur += ch;
    }
    parts.push(cur);
    for (const p of parts) {
      const t = p.trim();
      if (t === "...") variadic = true;
      else if (t.includes("(")) {
        params.push({ type: "void *", name: /\(\s*\*\s*(\w+)/.exec(t)?.[1] ?? "fn" });
      } else params.push(splitTypeName(t));
    }
  }
  const proto: Prototype = { name: m[2]!, ret, params, variadic };
  if (variadic) {
    const f = params.findIndex((p) => /^(format|fmt)$/.test(p.name ?? ""));
    if (f >= 0) proto.format = f;
  }
  return proto;
}

/** Whether a C type names no value (`void`). */
export function isVoid(type: string): boolean {
  return type.trim() === "void";
}

/** Whether a C type is floating point. */
export function isFloatType(type: string): boolean {
  return /^(float|double|long double)$/.test(type.trim());
}

/** Number of arguments a printf- or scanf-style format string consumes. */
export function formatArguments(format: string): number {
  let n = 0;
  const re =
    /%(?:\d+\$)?[-+ #0']*(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|L|q|j|z|Z|t)?([diouxXeEfFgGaAcspnCS%])/g;
  for (const m of format.matchAll(re)) {
    if (m[4] === "%") continue;
    n++;
    if (m[1] === "*") n++;
    if (m[2] === "*") n++;
  }
  return n;
}
