/**
 * Prints a {@link Decompiled} function as C: header, declarations, body; names variables
 * (`arg1`…, `local_18`…, `v1`…) and applies the user's local renames and types at print time.
 */

import type { Decompiled } from "./decompile.ts";
import { type EmitNames, type Line, Printer } from "./emit.ts";
import {
  type Expr,
  forEachChild,
  type Stmt,
  stmtDefs,
  stmtReads,
  termReads,
  type Var,
  varKey,
} from "./ir.ts";
import type { Cond, Stmt as SStmt } from "./structure/types.ts";
import { type CType, typeName, uintType } from "./types.ts";
import { countUses } from "./passes/uses.ts";

/** A user's annotation of one local variable (by its default name). */
export interface LocalAnnotation {
  name?: string;
  type?: string;
}

/** The printed function. */
export interface Rendered {
  code: string;
  /** 1-based line numbers with the instruction addresses each came from. */
  lines: { line: number; addresses: number[] }[];
  /** Default name → the variable's printed name and type, for the local-variable tools. */
  variables: { name: string; default: string; type: string; kind: "param" | "local" | "stack" }[];
  /**
   * Printing stopped before the end of the body (`why`: the byte cap or the time): the lines the
   * whole function has (user comments past the stop not counted), and the instruction addresses
   * of the body lines not printed.
   */
  stopped?: { why: "size" | "time"; total: number; rest: number[] };
}

/** Limits of one printing: a function's C past the result's cap is never formatted. */
export interface RenderLimits {
  /** Body bytes (text and line map, as fit.ts counts them) after which printing stops. */
  maxBytes?: number;
  /** Whether the function's time budget is used up (asked every {@link TIME_EVERY} lines). */
  outOfTime?: () => boolean;
}

/** Lines between two looks at the clock. */
const TIME_EVERY = 32;

/** Prints `d` as function `name`; `locals` are the user's annotations by default name. */
export function render(
  d: Decompiled,
  name: string,
  names: EmitNames,
  locals: ReadonlyMap<string, LocalAnnotation> = new Map(),
  limits: RenderLimits = {},
): Rendered {
  const ir = d.ir;
  const uses = countUses(ir);
  const defaults = new Map<string, string>();
  const kinds = new Map<string, "param" | "local" | "stack">();
  // The hidden address of a large result (AAPCS64's x8) is `result`; the others count from 1.
  const hidden = d.params.filter((p) => p.k === "reg" && p.name === d.cc.indirectResult).length;
  // The last-resort tier's registers are variables named as the machine's, parameters too.
  const machine = d.lastResort === true;
  d.params.forEach((p, i) => {
    const result = p.k === "reg" && p.name === d.cc.indirectResult;
    defaults.set(
      varKey(p),
      machine && p.k === "reg" ? p.name : result ? "result" : `arg${i + 1 - hidden}`,
    );
    kinds.set(varKey(p), "param");
  });
  let counter = 0;
  // Machine registers named as temporaries are (AArch64's v0-v31): those names are skipped.
  const taken = new Set<string>();
  if (machine) {
    const see = (e: Expr) => {
      if (e.k === "reg") taken.add(e.name);
      forEachChild(e, see);
    };
    for (const b of ir.blocks.values()) {
      for (const s of b.stmts) {
        for (const v of stmtDefs(s)) if (v.k === "reg") taken.add(v.name);
        stmtReads(s, see);
      }
      termReads(b.term, see);
    }
    for (const p of d.params) if (p.k === "reg") taken.add(p.name);
  }
  const nextName = (): string => {
    let name = `v${++counter}`;
    while (taken.has(name)) name = `v${++counter}`;
    return name;
  };
  const seen = new Map<string, Var>();
  const note = (v: Var) => {
    const k = varKey(v);
    if (!seen.has(k)) seen.set(k, v);
    if (defaults.has(k)) return;
    if (v.k === "slot") {
      const off = v.offset;
      defaults.set(k, off < 0 ? `local_${(-off).toString(16)}` : `stack_${off.toString(16)}`);
      kinds.set(k, "stack");
    } else if (machine && v.k === "reg") {
      defaults.set(k, v.name);
      kinds.set(k, "local");
    } else if (v.k === "reg" && v.ver === 0) {
      defaults.set(k, `in_${v.name}`);
      kinds.set(k, "param");
    } else {
      defaults.set(k, nextName());
      kinds.set(k, "local");
    }
  };
  const visit = (e: Expr) => {
    // Thread-local bases print as __readfsqword(...), never as variables.
    if (e.k === "reg" && e.name.endsWith("_base") && e.ver === 0) return;
    if (e.k === "reg" || e.k === "tmp" || e.k === "slot") note(e);
    if (e.k === "addr") note(e.slot);
    forEachChild(e, visit);
  };
  const order = [...ir.blocks.values()];
  for (const b of order) {
    for (const s of b.stmts) {
      for (const v of stmtDefs(s)) {
        if (
          s.k === "call" &&
          (v.k !== "reg" ||
            (v.name !== d.cc.ret && v.name !== d.cc.floatRet && v.name !== d.cc.retHigh?.pair) ||
            !(uses.count.get(varKey(v)) ?? 0))
        ) continue;
        note(v);
      }
      stmtReads(s, visit);
    }
    termReads(b.term, visit);
  }
  // A stack parameter read at several widths is a memory region of the frame, but a parameter
  // in C: its address is taken (`(uint8_t *)&arg3`), it is no array.
  const paramSlots = new Set(d.params.map(varKey));
  const arrays = new Set(
    [...d.frame.arrays.keys()].map((o) => `s${o}:${d.frame.arrays.get(o)}`)
      .filter((k) => !paramSlots.has(k)),
  );
  // Variables the body prints: only these are declared (a fold can leave one unprinted).
  const printed = new Set<string>();
  const nameOf = (v: Var): string => {
    const k = varKey(v);
    printed.add(k);
    if (!defaults.has(k)) note(v);
    const def = defaults.get(k)!;
    return locals.get(def)?.name ?? def;
  };
  const typeOf = (v: Var): CType => d.types.get(varKey(v)) ?? uintType(v.size);
  const userType = (v: Var): string | undefined => locals.get(defaults.get(varKey(v)) ?? "")?.type;
  const printer = new Printer(ir, names, {
    name: nameOf,
    type: typeOf,
    isArray: (v) => v.k === "slot" && arrays.has(varKey(v)),
    used: (v) => (uses.count.get(varKey(v)) ?? 0) > 0,
    retReg: d.cc.ret,
    ...(d.cc.retHigh ? { pairReg: d.cc.retHigh.pair } : {}),
    ...(d.cc.floatRet ? { floatRetReg: d.cc.floatRet } : {}),
  });

  const lines: Line[] = [];
  let depth = 1;
  // Past the byte cap or the time, the walk goes on without formatting (text is a thunk so
  // that no expression is printed then): it only counts the lines and keeps their addresses,
  // for the cut's note. Formatting is what costs; the walk is linear in the tree.
  let stopped: "size" | "time" | undefined;
  let bytes = 0;
  let dry = 0;
  const rest: number[] = [];
  const emit = (text: string | (() => string), addresses: number[] = []) => {
    if (stopped === undefined) {
      if (limits.maxBytes !== undefined && bytes > limits.maxBytes) stopped = "size";
      else if (lines.length % TIME_EVERY === TIME_EVERY - 1 && limits.outOfTime?.()) {
        stopped = "time";
      }
    }
    if (stopped !== undefined) {
      dry++;
      for (const a of addresses) rest.push(a);
      return;
    }
    const line = "    ".repeat(depth) + (typeof text === "string" ? text : text());
    bytes += lineBytes(line, addresses);
    lines.push({ text: line, addresses });
  };
  const blockStmt = (s: Stmt) => {
    // Every statement prints (Printer.stmt is undefined for none of them today).
    emit(() => printer.stmt(s) ?? "", [s.at]);
    // Past the stop the comments are not looked up (nor counted in the total).
    const c = stopped === undefined ? names.commentAt?.(s.at) : undefined;
    if (c) emit(`// ${c}`, [s.at]);
  };
  const retLine = (id: number) => {
    const b = ir.blocks.get(id);
    if (!b) return;
    const t = b.term;
    const value = t.k === "ret" ? t.value : undefined;
    if (value && d.floatReturn) {
      // A float return value is of the declared float type, whatever the expression's.
      const ty: CType = { size: d.floatReturn, kind: "float" };
      emit(() => `return ${printer.exprAs(value, ty, 2)};`, [t.at]);
    } else if (t.k === "ret") {
      emit(t.value ? () => `return ${printer.expr(value!, 2)};` : "return;", [t.at]);
    } else if (t.k === "tail") {
      const call = () =>
        `${printer.callee(t.target)}(${t.args.map((a) => printer.expr(a, 2)).join(", ")})`;
      if (t.value && d.returns) emit(() => `return ${call()};`, [t.at]);
      else {
        emit(() => `${call()};`, [t.at]);
        emit("return;", [t.at]);
      }
    }
  };
  // `v = x; return v;` prints as `return x;` (a shared return block copied after each
  // assignment leaves this pair at every early exit).
  const foldedReturn = (id: number, retId: number): boolean => {
    const b = ir.blocks.get(id);
    const r = ir.blocks.get(retId);
    if (!b || !r || (retId !== id && r.stmts.length > 0)) return false;
    const t = r.term;
    const last = b.stmts[b.stmts.length - 1];
    if (
      t.k !== "ret" || !t.value || last?.k !== "set" ||
      (t.value.k !== "reg" && t.value.k !== "tmp" && t.value.k !== "slot") ||
      varKey(t.value) !== varKey(last.dst)
    ) return false;
    for (const st of b.stmts.slice(0, -1)) blockStmt(st);
    emit(() => `return ${printer.valueOf(last.src, last.dst)};`, [last.at, t.at]);
    const c = stopped === undefined ? names.commentAt?.(last.at) : undefined;
    if (c) emit(`// ${c}`, [last.at]);
    return true;
  };
  const condAt = (c: Cond<Expr>): number[] => {
    switch (c.kind) {
      case "atom": {
        const at = ir.blocks.get(c.block)?.term.at;
        return at === undefined ? [] : [at];
      }
      case "not":
        return condAt(c.of);
      default:
        return [...condAt(c.left), ...condAt(c.right)];
    }
  };
  const label = (id: number) => `label_${id < 0 ? `x${-id}` : id.toString(16)}`;
  const walk = (s: SStmt<number, Expr>) => {
    switch (s.kind) {
      case "seq":
        for (let i = 0; i < s.items.length; i++) {
          const it = s.items[i]!;
          const nx = s.items[i + 1];
          if (it.kind === "block" && nx?.kind === "return" && foldedReturn(it.id, nx.block)) i++;
          else walk(it);
        }
        return;
      case "block":
        for (const st of ir.blocks.get(s.id)?.stmts ?? []) blockStmt(st);
        return;
      case "if": {
        emit(() => `if (${printer.cond(s.cond)}) {`, condAt(s.cond));
        depth++;
        walk(s.then);
        depth--;
        if (s.else) {
          emit("} else {");
          depth++;
          walk(s.else);
          depth--;
        }
        emit("}");
        return;
      }
      case "while":
        emit(() => `while (${printer.cond(s.cond)}) {`, condAt(s.cond));
        depth++;
        walk(s.body);
        depth--;
        emit("}");
        return;
      case "doWhile":
        emit("do {");
        depth++;
        walk(s.body);
        depth--;
        emit(() => `} while (${printer.cond(s.cond)});`, condAt(s.cond));
        return;
      case "for": {
        const st = s.step.kind === "block" ? ir.blocks.get(s.step.id)?.stmts[0] : undefined;
        const step = () => st ? (printer.stmt(st) ?? "").replace(/;$/, "") : "";
        emit(() => `for (; ${printer.cond(s.cond)}; ${step()}) {`, [
          ...condAt(s.cond),
          ...(st ? [st.at] : []),
        ]);
        depth++;
        walk(s.body);
        depth--;
        emit("}");
        return;
      }
      case "loop":
        emit("for (;;) {");
        depth++;
        walk(s.body);
        depth--;
        emit("}");
        return;
      case "break":
        emit("break;");
        return;
      case "continue":
        emit("continue;");
        return;
      case "switch": {
        const at = ir.blocks.get(s.block)?.term.at;
        emit(() => `switch (${printer.expr(s.value)}) {`, at === undefined ? [] : [at]);
        for (const c of s.cases) {
          for (const v of c.values) emit(`case ${v}:`);
          if (c.isDefault) emit("default:");
          depth++;
          walk(c.body);
          depth--;
        }
        emit("}");
        return;
      }
      case "goto":
        emit(`goto ${label(s.label)};`);
        return;
      case "label":
        depth--;
        emit(`${label(s.id)}:`, ir.blocks.has(s.id) && s.id >= 0 ? [s.id] : []);
        depth++;
        return;
      case "return":
        retLine(s.block);
        return;
      case "stop": {
        const t = ir.blocks.get(s.block)?.term;
        if (t?.k === "stop" && t.why !== "no-return call") {
          const why = t.why.replace(/[^A-Za-z0-9]+/g, "_");
          emit(`__stop_${why}();`, [t.at]);
        }
        return;
      }
    }
  };
  walk(d.tree);

  // Header and declarations.
  const paramKeys = new Set(d.params.map(varKey));
  const declared = (v: Var) => userType(v) ?? typeName(typeOf(v));
  const retType = d.returns ? returnType(d) : "void";
  const header = `${retType} ${name}(${
    d.params.length === 0 ? "void" : d.params.map((p) => `${declared(p)} ${nameOf(p)}`).join(", ")
  })`;
  const decls: Line[] = [];
  const variables: Rendered["variables"] = [];
  for (const p of d.params) {
    variables.push({
      name: nameOf(p),
      default: defaults.get(varKey(p))!,
      type: declared(p),
      kind: "param",
    });
  }
  for (const [k, v] of seen) {
    if (paramKeys.has(k) || !printed.has(k)) continue;
    if (v.k === "reg" && v.ver === 0) {
      // A register read before any write that is not a parameter: an input of unknown origin.
      decls.push({ text: `    ${declared(v)} ${nameOf(v)}; // ${v.name} on entry`, addresses: [] });
      continue;
    }
    const def = defaults.get(k)!;
    if (arrays.has(k)) {
      const size = d.frame.arrays.get((v as { offset: number }).offset) ?? v.size;
      decls.push({ text: `    uint8_t ${nameOf(v)}[${size}];`, addresses: [] });
      variables.push({ name: nameOf(v), default: def, type: `uint8_t[${size}]`, kind: "stack" });
      continue;
    }
    decls.push({ text: `    ${declared(v)} ${nameOf(v)};`, addresses: [] });
    variables.push({
      name: nameOf(v),
      default: def,
      type: declared(v),
      kind: kinds.get(k) ?? "local",
    });
  }
  const all: Line[] = [
    // The simplified tier says so where the reader starts, not only in the result's warnings.
    ...(d.degraded !== undefined
      ? [{
        text: `/* remcp: ${tierLabel(d)}: ${d.degraded.replaceAll("*/", "* /")} */`,
        addresses: [],
      }]
      : []),
    { text: header, addresses: [d.ir.entry] },
    { text: "{", addresses: [] },
    ...decls,
    ...(decls.length > 0 ? [{ text: "", addresses: [] }] : []),
    ...lines,
    { text: "}", addresses: [] },
  ];
  return {
    code: all.map((l) => l.text).join("\n") + "\n",
    lines: all.flatMap((l, i) =>
      l.addresses.length > 0
        ? [{ line: i + 1, addresses: [...new Set(l.addresses)].filter((a) => a >= 0) }]
        : []
    ),
    variables,
    ...(stopped !== undefined
      ? { stopped: { why: stopped, total: all.length + dry, rest: rest.filter((a) => a >= 0) } }
      : {}),
  };
}

/** How the note on a degraded result names its tier. */
export function tierLabel(d: Decompiled): string {
  return d.lastResort ? "last-resort output" : "simplified output";
}

function returnType(d: Decompiled): string {
  if (d.prototype) return d.prototype.ret;
  if (d.floatReturn) return typeName({ size: d.floatReturn, kind: "float" });
  for (const b of d.ir.blocks.values()) {
    if (b.term.k !== "ret" || !b.term.value) continue;
    const v = b.term.value;
    if (v.k === "reg" || v.k === "tmp" || v.k === "slot") {
      const t = d.types.get(varKey(v));
      if (t) return typeName(t);
    }
    if (v.k === "bin" && v.size === 1 && ["eq", "ne", "ult", "ule", "slt", "sle"].includes(v.op)) {
      return "bool";
    }
    if (v.k !== "const") return typeName(uintType(v.size));
  }
  for (const b of d.ir.blocks.values()) {
    if (b.term.k === "ret" && b.term.value) return typeName(uintType(b.term.value.size));
  }
  return typeName(uintType(d.ir.arch.ptr));
}

/**
 * What a line of code costs in a result, with its line-map entry (a line number of 6 digits):
 * the printer stops at a cap in these units before `fitRendered` (fit.ts) cuts exactly.
 */
export function lineBytes(text: string, addresses: readonly number[]): number {
  return text.length + 1 + (addresses.length > 0 ? 30 + addresses.length * 16 : 0);
}
