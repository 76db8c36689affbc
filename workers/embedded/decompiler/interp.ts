/**
 * A reference interpreter of the IR: runs straight-line statements over concrete registers and
 * memory. Tests use it to check lifted semantics against the machine's (flags included), and the
 * passes' tests use it to check that a rewrite keeps a program's meaning.
 */

import type { Expr, Stmt, Var } from "./ir.ts";
import { varKey } from "./ir.ts";

/** Concrete machine state: variables by {@link varKey} (registers by name), bytes by address. */
export interface State {
  vars: Map<string, bigint>;
  mem: Map<number, number>;
  /** Calls and intrinsics seen, in order, with their argument values. */
  effects: { name: string; args: bigint[] }[];
}

/** A fresh state with `regs` set. */
export function stateOf(regs: Record<string, bigint | number>): State {
  const vars = new Map<string, bigint>();
  for (const [k, v] of Object.entries(regs)) vars.set(k, BigInt.asUintN(64, BigInt(v)));
  return { vars, mem: new Map(), effects: [] };
}

const mask = (v: bigint, size: number) => BigInt.asUintN(size * 8, v);
const signed = (v: bigint, size: number) => BigInt.asIntN(size * 8, v);

/** The state key of a variable: a register by name (version 0 = its input), SSA versions apart. */
function keyOf(v: Var): string {
  return v.k === "reg" ? (v.ver ? `${v.name}.${v.ver}` : v.name) : varKey(v);
}

function readVar(s: State, v: Var): bigint {
  const key = keyOf(v);
  const value = s.vars.get(key);
  if (value === undefined) throw new RangeError(`Read of unset ${key}`);
  return mask(value, v.size);
}

/** Reads `size` little-endian bytes at `addr` (unset bytes read as 0). */
export function readMem(s: State, addr: number, size: number): bigint {
  let v = 0n;
  for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(s.mem.get(addr + i) ?? 0);
  return v;
}

/** Writes `size` little-endian bytes at `addr`. */
export function writeMem(s: State, addr: number, size: number, value: bigint): void {
  for (let i = 0; i < size; i++) s.mem.set(addr + i, Number((value >> BigInt(8 * i)) & 0xffn));
}

/** The value of `e` in `s`. */
export function evaluate(s: State, e: Expr): bigint {
  switch (e.k) {
    case "const":
      return e.value;
    case "reg":
    case "tmp":
    case "slot":
      return readVar(s, e);
    case "load":
      return readMem(s, Number(evaluate(s, e.addr)), e.size);
    case "un": {
      const a = evaluate(s, e.a);
      if (e.op === "neg") return mask(-a, e.size);
      if (e.op === "not") return mask(~a, e.size);
      return a === 0n ? 1n : 0n;
    }
    case "ext": {
      const a = evaluate(s, e.a);
      return mask(e.signed ? signed(a, e.a.size) : a, e.size);
    }
    case "trunc":
      return mask(evaluate(s, e.a), e.size);
    case "select":
      return evaluate(s, e.c) !== 0n ? evaluate(s, e.t) : evaluate(s, e.f);
    case "intr": {
      const args = e.args.map((a) => evaluate(s, a));
      s.effects.push({ name: e.name, args });
      return 0n;
    }
    case "addr":
      return BigInt(e.slot.offset);
    case "bin":
      return binary(e.op, evaluate(s, e.a), evaluate(s, e.b), e.a.size, e.size);
  }
}

function binary(op: string, a: bigint, b: bigint, inSize: number, size: number): bigint {
  const sa = signed(a, inSize);
  const sb = signed(b, inSize);
  const bool = (c: boolean) => (c ? 1n : 0n);
  switch (op) {
    case "add":
      return mask(a + b, size);
    case "sub":
      return mask(a - b, size);
    case "mul":
      return mask(a * b, size);
    case "udiv":
      return b === 0n ? 0n : mask(a / b, size);
    case "urem":
      return b === 0n ? 0n : mask(a % b, size);
    case "sdiv":
      return sb === 0n ? 0n : mask(sa / sb, size);
    case "srem":
      return sb === 0n ? 0n : mask(sa % sb, size);
    case "and":
      return a & b;
    case "or":
      return a | b;
    case "xor":
      return a ^ b;
    case "shl":
      return mask(a << b, size);
    case "shr":
      return a >> b;
    case "sar":
      return mask(sa >> b, size);
    case "eq":
      return bool(a === b);
    case "ne":
      return bool(a !== b);
    case "ult":
      return bool(a < b);
    case "ule":
      return bool(a <= b);
    case "slt":
      return bool(sa < sb);
    case "sle":
      return bool(sa <= sb);
    case "land":
      return bool(a !== 0n && b !== 0n);
    case "lor":
      return bool(a !== 0n || b !== 0n);
  }
  throw new RangeError(`Unknown op ${op}`);
}

/** Runs statements in order. */
export function run(s: State, stmts: Stmt[]): void {
  for (const st of stmts) {
    switch (st.k) {
      case "set": {
        const v = evaluate(s, st.src);
        const key = keyOf(st.dst);
        s.vars.set(key, mask(v, st.dst.size));
        break;
      }
      case "store":
        writeMem(s, Number(evaluate(s, st.addr)), st.size, evaluate(s, st.value));
        break;
      case "call":
        s.effects.push({
          name: "call",
          args: [evaluate(s, st.target), ...st.args.map((a) => evaluate(s, a))],
        });
        for (const d of st.defs) s.vars.set(keyOf(d), 0n);
        break;
      case "asm": {
        s.effects.push({ name: st.name, args: st.args.map((a) => evaluate(s, a)) });
        for (const o of st.outs) s.vars.set(keyOf(o), 0n);
        break;
      }
    }
  }
}

/**
 * Runs a whole function from its entry (phis take the argument of the block control came from)
 * until a return; gives the returned value. Stops after `maxSteps` blocks.
 */
export function runFunction(
  s: State,
  fn: import("./ir.ts").IrFunction,
  maxSteps = 10_000,
): bigint | undefined {
  const preds = new Map<number, number[]>();
  for (const b of fn.blocks.values()) {
    for (const t of successorsOf(b.term)) {
      const list = preds.get(t) ?? [];
      list.push(b.start);
      preds.set(t, list);
    }
  }
  let at = fn.entry;
  let from: number | undefined;
  for (let step = 0; step < maxSteps; step++) {
    const b = fn.blocks.get(at);
    if (!b) throw new RangeError(`No block ${at}`);
    if (from !== undefined && b.phis.length > 0) {
      const i = (preds.get(at) ?? []).indexOf(from);
      const values = b.phis.map((p) => evaluate(s, p.args[i]!));
      b.phis.forEach((p, j) => s.vars.set(keyOf(p.dst), values[j]!));
    }
    run(s, b.stmts);
    const t = b.term;
    from = at;
    if (t.k === "jump") at = t.to;
    else if (t.k === "branch") at = evaluate(s, t.cond) !== 0n ? t.then : t.else;
    else if (t.k === "ret") return t.value ? evaluate(s, t.value) : undefined;
    else return undefined;
  }
  throw new RangeError("Step limit reached");
}

function successorsOf(t: import("./ir.ts").Term): number[] {
  if (t.k === "jump") return [t.to];
  if (t.k === "branch") return t.then === t.else ? [t.then] : [t.then, t.else];
  if (t.k === "switch") return [...new Set(t.cases.map((c) => c.to))];
  return [];
}
