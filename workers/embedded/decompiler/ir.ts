/**
 * The decompiler's one intermediate language, for every ISA: values are registers, temporaries,
 * stack slots and constants, each with a size in bytes; statements assign, store, call, or run an
 * intrinsic; each block ends in one terminator. Every statement keeps the address of the
 * instruction it came from, so the C printed at the end maps back to the disassembly.
 *
 * Expressions are trees (as in angr's AIL) rather than three-address code: propagation then
 * means substituting a subtree, and the printer sees the nesting it prints.
 */

/** A machine register, by its full-width name (`rax`, `eax` in 32-bit code, `x0`, `xmm0`). */
export interface Reg {
  k: "reg";
  name: string;
  size: number;
  /** SSA version; 0 = the value on entry to the function, undefined before SSA. */
  ver?: number;
}

/** A temporary of one instruction's lifting; assigned once in the whole function. */
export interface Tmp {
  k: "tmp";
  id: number;
  size: number;
}

/** A stack slot at `offset` from the stack pointer on entry (negative: locals; positive: args). */
export interface Slot {
  k: "slot";
  offset: number;
  size: number;
}

/** Something a value can be assigned to. */
export type Var = Reg | Tmp | Slot;

/** An integer constant, kept to `size` bytes (two's complement, unsigned in `value`). */
export interface Const {
  k: "const";
  value: bigint;
  size: number;
}

/** Binary operators; comparisons produce a 1-byte boolean. */
export type BinOp =
  | "add"
  | "sub"
  | "mul"
  | "udiv"
  | "sdiv"
  | "urem"
  | "srem"
  | "and"
  | "or"
  | "xor"
  | "shl"
  | "shr"
  | "sar"
  | "eq"
  | "ne"
  | "ult"
  | "ule"
  | "slt"
  | "sle"
  | "land"
  | "lor";

/** Operators whose result is a boolean. */
export const COMPARES: ReadonlySet<BinOp> = new Set([
  "eq",
  "ne",
  "ult",
  "ule",
  "slt",
  "sle",
  "land",
  "lor",
]);

/** Unary operators: `neg` two's complement, `not` bitwise, `lnot` logical. */
export type UnOp = "neg" | "not" | "lnot";

/** An expression tree. */
export type Expr =
  | Const
  | Var
  | { k: "load"; addr: Expr; size: number }
  | { k: "bin"; op: BinOp; a: Expr; b: Expr; size: number }
  | { k: "un"; op: UnOp; a: Expr; size: number }
  /** Zero or sign extension of `a` to `size`. */
  | { k: "ext"; signed: boolean; a: Expr; size: number }
  /** The low `size` bytes of `a`. */
  | { k: "trunc"; a: Expr; size: number }
  /** `c ? t : f`. */
  | { k: "select"; c: Expr; t: Expr; f: Expr; size: number }
  /** A pure operation the IR has no op for (float, vector, parity, …), typed by `size`. */
  | { k: "intr"; name: string; args: Expr[]; size: number }
  /** The address of a stack slot (the slot escapes). */
  | { k: "addr"; slot: Slot; size: number };

/** A statement. `at` is the address of the instruction it came from. */
export type Stmt =
  | { k: "set"; dst: Var; src: Expr; at: number }
  | { k: "store"; addr: Expr; value: Expr; size: number; at: number }
  /**
   * A call. `args` and `ret` are filled by the calling-convention pass; `defs` lists the
   * registers the call may change (its return value and the caller-saved ones).
   */
  | { k: "call"; target: Expr; args: Expr[]; ret?: Var; defs: Reg[]; at: number }
  /**
   * An instruction the lifter does not model: named `__asm_<mnemonic>` (or a known intrinsic),
   * reading `args` and writing `outs` (each written register gets its own result).
   */
  | { k: "asm"; name: string; args: Expr[]; outs: Var[]; at: number };

/** How a block ends. */
export type Term =
  | { k: "jump"; to: number; at: number }
  | { k: "branch"; cond: Expr; then: number; else: number; at: number }
  /** An indirect jump; `cases` when the engine resolved it as a switch. */
  | {
    k: "switch";
    value: Expr;
    cases: { values: number[]; to: number }[];
    default?: number;
    at: number;
  }
  | { k: "ijump"; target: Expr; at: number }
  | { k: "ret"; value?: Expr; at: number }
  /** A tail call: the function ends by jumping to another function. */
  | { k: "tail"; target: Expr; args: Expr[]; value?: Expr; at: number }
  /** Execution stops (a no-return call, a trap, undecodable bytes). */
  | { k: "stop"; at: number; why: string };

/** A basic block, keyed by its start address. */
export interface IrBlock {
  start: number;
  /** Exclusive end address. */
  end: number;
  stmts: Stmt[];
  term: Term;
  /** SSA phi nodes at the block's head, one per merged variable. */
  phis: Phi[];
}

/** `dst = φ(args)`, one argument per predecessor in {@link IrFunction.preds} order. */
export interface Phi {
  dst: Var;
  args: Expr[];
}

/** One function in IR. */
export interface IrFunction {
  entry: number;
  /** By start address, in address order. */
  blocks: Map<number, IrBlock>;
  /** Architecture facts the passes need. */
  arch: IrArch;
  /** Warnings collected along the pipeline (where it gave up and why). */
  warnings: string[];
}

/** What passes need to know about the machine without knowing which one it is. */
export interface IrArch {
  /** Pointer size in bytes. */
  ptr: number;
  /** The stack pointer's full name. */
  sp: string;
  /** Bytes the call instruction pushes (the return address); 0 on link-register machines. */
  retAddr: number;
}

/** A constant of `size` bytes; `value` is wrapped to the size. */
export function constant(value: bigint | number, size: number): Const {
  return { k: "const", value: BigInt.asUintN(size * 8, BigInt(value)), size };
}

/** `hi:lo` as one value of twice their size (a `long long` in two 32-bit registers). */
export function joinHalves(hi: Expr, lo: Expr): Expr {
  const size = hi.size * 2;
  return {
    k: "bin",
    op: "or",
    a: {
      k: "bin",
      op: "shl",
      a: { k: "ext", signed: false, a: hi, size },
      b: { k: "const", value: BigInt(hi.size * 8), size: 1 },
      size,
    },
    b: { k: "ext", signed: false, a: lo, size },
    size,
  };
}

/** A register reference. */
export function reg(name: string, size: number): Reg {
  return { k: "reg", name, size };
}

/** Whether two variables are the same storage (and, for SSA registers, the same version). */
export function sameVar(a: Var, b: Var): boolean {
  if (a.k === "reg") return b.k === "reg" && a.name === b.name && a.ver === b.ver;
  if (a.k === "tmp") return b.k === "tmp" && a.id === b.id;
  return b.k === "slot" && a.offset === b.offset && a.size === b.size;
}

/**
 * Keys made so far, by register name and version and by temporary id: the passes ask for the
 * same keys over and over, and a key made once (and hashed once, as a map key) costs no new
 * string.
 */
const regKeys = new Map<string, string[]>();
const tmpKeys: string[] = [];
/** Slot keys by offset, then by size (-O0 code keeps every local in a slot). */
const slotKeys = new Map<number, string[]>();

/** A stable key of a variable (register with version, temp, slot). */
export function varKey(v: Var): string {
  if (v.k === "reg") {
    const ver = v.ver;
    if (ver === undefined) return v.name;
    if (!Number.isInteger(ver) || ver < 0 || ver > 1 << 20) return `${v.name}.${ver}`;
    let byVer = regKeys.get(v.name);
    if (!byVer) regKeys.set(v.name, byVer = []);
    return byVer[ver] ??= `${v.name}.${ver}`;
  }
  if (v.k === "tmp") {
    const id = v.id;
    if (!Number.isInteger(id) || id < 0 || id > 1 << 20) return `t${id}`;
    return tmpKeys[id] ??= `t${id}`;
  }
  const { offset, size } = v;
  if (!Number.isInteger(size) || size < 0 || size > 1 << 10) return `s${offset}:${size}`;
  let bySize = slotKeys.get(offset);
  if (!bySize) slotKeys.set(offset, bySize = []);
  return bySize[size] ??= `s${offset}:${size}`;
}

/** Signed value of a constant. */
export function signedValue(c: Const): bigint {
  return BigInt.asIntN(c.size * 8, c.value);
}

/** Calls `f` on each direct subexpression of `e`. */
export function forEachChild(e: Expr, f: (child: Expr) => void): void {
  switch (e.k) {
    case "load":
      f(e.addr);
      return;
    case "bin":
      f(e.a);
      f(e.b);
      return;
    case "un":
    case "ext":
    case "trunc":
      f(e.a);
      return;
    case "select":
      f(e.c);
      f(e.t);
      f(e.f);
      return;
    case "intr":
      for (const a of e.args) f(a);
      return;
  }
}

/** Whether `f` holds for a direct subexpression of `e` (in {@link forEachChild}'s order). */
export function someChild(e: Expr, f: (child: Expr) => boolean): boolean {
  switch (e.k) {
    case "load":
      return f(e.addr);
    case "bin":
      return f(e.a) || f(e.b);
    case "un":
    case "ext":
    case "trunc":
      return f(e.a);
    case "select":
      return f(e.c) || f(e.t) || f(e.f);
    case "intr":
      return e.args.some(f);
    default:
      return false;
  }
}

/** Rebuilds `e` with each direct subexpression replaced by `f(child)` (shares unchanged nodes). */
export function mapChildren(e: Expr, f: (child: Expr) => Expr): Expr {
  switch (e.k) {
    case "load": {
      const addr = f(e.addr);
      return addr === e.addr ? e : { ...e, addr };
    }
    case "bin": {
      const a = f(e.a);
      const b = f(e.b);
      return a === e.a && b === e.b ? e : { ...e, a, b };
    }
    case "un":
    case "ext":
    case "trunc": {
      const a = f(e.a);
      return a === e.a ? e : { ...e, a };
    }
    case "select": {
      const c = f(e.c);
      const t = f(e.t);
      const fl = f(e.f);
      return c === e.c && t === e.t && fl === e.f ? e : { ...e, c, t, f: fl };
    }
    case "intr": {
      const args = mapList(e.args, f);
      return args === e.args ? e : { ...e, args };
    }
    default:
      return e;
  }
}

/** Calls `f` on every expression a statement reads (not its destination variable). */
export function stmtReads(s: Stmt, f: (e: Expr) => void): void {
  switch (s.k) {
    case "set":
      f(s.src);
      return;
    case "store":
      f(s.addr);
      f(s.value);
      return;
    case "call":
      f(s.target);
      for (const a of s.args) f(a);
      return;
    case "asm":
      for (const a of s.args) f(a);
      return;
  }
}

/** Rewrites every expression a statement reads (`s` itself when none changes). */
export function mapStmt(s: Stmt, f: (e: Expr) => Expr): Stmt {
  switch (s.k) {
    case "set": {
      const src = f(s.src);
      return src === s.src ? s : { ...s, src };
    }
    case "store": {
      const addr = f(s.addr);
      const value = f(s.value);
      return addr === s.addr && value === s.value ? s : { ...s, addr, value };
    }
    case "call": {
      const target = f(s.target);
      const args = mapList(s.args, f);
      return target === s.target && args === s.args ? s : { ...s, target, args };
    }
    case "asm": {
      const args = mapList(s.args, f);
      return args === s.args ? s : { ...s, args };
    }
  }
}

/** `list.map(f)`, or `list` itself when `f` changes no element. */
function mapList(list: Expr[], f: (e: Expr) => Expr): Expr[] {
  let out: Expr[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!;
    const r = f(e);
    if (r !== e && !out) out = list.slice(0, i);
    out?.push(r);
  }
  return out ?? list;
}

/** Variables a statement writes. */
export function stmtDefs(s: Stmt): Var[] {
  switch (s.k) {
    case "set":
      return [s.dst];
    case "store":
      return [];
    case "call":
      return s.ret ? [s.ret, ...s.defs] : s.defs;
    case "asm":
      return s.outs;
  }
}

/** Calls `f` on every expression a terminator reads. */
export function termReads(t: Term, f: (e: Expr) => void): void {
  switch (t.k) {
    case "branch":
      f(t.cond);
      return;
    case "switch":
      f(t.value);
      return;
    case "ijump":
      f(t.target);
      return;
    case "ret":
      if (t.value) f(t.value);
      return;
    case "tail":
      f(t.target);
      for (const a of t.args) f(a);
      if (t.value) f(t.value);
      return;
  }
}

/** The machine registers a function's statements and terminators read, and those they write. */
export function namedRegisters(fn: IrFunction): { read: Set<string>; written: Set<string> } {
  const read = new Set<string>();
  const written = new Set<string>();
  const visit = (e: Expr): void => {
    if (e.k === "reg") read.add(e.name);
    forEachChild(e, visit);
  };
  for (const b of fn.blocks.values()) {
    for (const s of b.stmts) {
      stmtReads(s, visit);
      for (const d of stmtDefs(s)) if (d.k === "reg") written.add(d.name);
    }
    termReads(b.term, visit);
  }
  return { read, written };
}

/** Rewrites every expression a terminator reads (`t` itself when none changes). */
export function mapTerm(t: Term, f: (e: Expr) => Expr): Term {
  switch (t.k) {
    case "branch": {
      const cond = f(t.cond);
      return cond === t.cond ? t : { ...t, cond };
    }
    case "switch": {
      const value = f(t.value);
      return value === t.value ? t : { ...t, value };
    }
    case "ijump": {
      const target = f(t.target);
      return target === t.target ? t : { ...t, target };
    }
    case "ret": {
      if (!t.value) return t;
      const value = f(t.value);
      return value === t.value ? t : { ...t, value };
    }
    case "tail": {
      const target = f(t.target);
      const args = mapList(t.args, f);
      const value = t.value ? f(t.value) : undefined;
      return target === t.target && args === t.args && value === t.value
        ? t
        : { ...t, target, args, ...(value ? { value } : {}) };
    }
    default:
      return t;
  }
}

/** Successor block addresses of a terminator. */
export function successors(t: Term): number[] {
  switch (t.k) {
    case "jump":
      return [t.to];
    case "branch":
      return t.then === t.else ? [t.then] : [t.then, t.else];
    case "switch": {
      const out = new Set(t.cases.map((c) => c.to));
      if (t.default !== undefined) out.add(t.default);
      return [...out];
    }
    default:
      return [];
  }
}

/** Predecessors of every block, in block order (the order phi arguments follow). */
export function predecessors(fn: IrFunction): Map<number, number[]> {
  const preds = new Map<number, number[]>();
  for (const b of fn.blocks.keys()) preds.set(b, []);
  for (const b of fn.blocks.values()) {
    for (const s of successors(b.term)) preds.get(s)?.push(b.start);
  }
  return preds;
}
