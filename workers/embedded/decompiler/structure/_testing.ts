/**
 * Test support: runs an input graph and a structured tree on the same
 * condition outcomes and records what each executes, so a test can assert
 * that structuring kept the meaning; and a seeded random graph generator.
 *
 * Conditions are pure functions of the program state, and the state is the
 * number of non-empty block bodies executed so far: both runs see the same
 * outcome at corresponding points, and evaluating a condition twice (or not
 * at all) changes nothing, as with real code.
 *
 * @module
 */

import type { Cond, Graph, Stmt, Terminator } from "./types.ts";
import { prng } from "../../_prng.ts";

/** Test graphs: a body is a string ("" is empty), a condition is its block's id. */
export type TestGraph = Graph<string, number>;
export type TestStmt = Stmt<string, number>;

/** How a run ended: `ret:ID`, `stop:ID`, `limit` (trace long enough) or `steps` (spinning). */
export interface Run {
  trace: string[];
  end: string;
}

/** Outcomes of conditions and switch values for one run. */
export interface Oracle {
  cond(block: number, state: number): boolean;
  pick(block: number, state: number, n: number): number;
}

/** An oracle from a seed: outcomes are a hash of (seed, block, state). */
export function oracle(seed: number): Oracle {
  const h = (block: number, state: number): number => {
    let x = (seed * 0x9e3779b1) ^ (block * 0x85ebca6b) ^ (state * 0xc2b2ae35);
    x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
    x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
    return (x ^ (x >>> 16)) >>> 0;
  };
  return {
    cond: (b, s) => (h(b, s) & 1) === 1,
    pick: (b, s, n) => h(b + 7919, s) % n,
  };
}

const LIMIT = 200;
const STEPS = 20_000;

function switchChoice(
  t: Extract<Terminator<number>, { kind: "switch" }>,
  block: number,
  state: number,
  o: Oracle,
): bigint | undefined {
  const values = t.cases.flatMap((c) => c.values);
  const n = values.length + (t.default === undefined ? 0 : 1);
  if (n === 0) return undefined;
  const i = o.pick(block, state, n);
  return i < values.length ? values[i] : undefined;
}

/** Runs the graph itself. */
export function runGraph(g: TestGraph, o: Oracle): Run {
  const byId = new Map(g.blocks.map((b) => [b.id, b]));
  const trace: string[] = [];
  let cur = g.entry;
  for (let steps = 0; steps < STEPS; steps++) {
    const b = byId.get(cur);
    if (b === undefined) return { trace, end: `lost:${cur}` };
    if (b.body !== "") trace.push(b.body);
    if (trace.length >= LIMIT) return { trace, end: "limit" };
    const t = b.term;
    switch (t.kind) {
      case "return":
        return { trace, end: `ret:${b.id}` };
      case "stop":
        return { trace, end: `stop:${b.id}` };
      case "jump":
        cur = t.to;
        break;
      case "branch":
        cur = o.cond(b.id, trace.length) ? t.then : t.else;
        break;
      case "switch": {
        const v = switchChoice(t, b.id, trace.length, o);
        const c = v === undefined ? undefined : t.cases.find((c) => c.values.includes(v));
        const to = c?.to ?? t.default;
        if (to === undefined) return { trace, end: `stop:${b.id}` };
        cur = to;
        break;
      }
    }
  }
  return { trace, end: "steps" };
}

type Op =
  | { op: "body"; text: string }
  | { op: "ifnot"; cond: Cond<number>; to: number }
  | { op: "jmp"; to: number }
  | { op: "goto"; label: number }
  | { op: "ret"; id: number }
  | { op: "stop"; id: number }
  | { op: "switch"; block: number; table: Array<[bigint, number]>; def: number; all: bigint[] };

/**
 * Compiles the tree to jumps with C's semantics (as a C compiler would) and
 * runs it. `terms` gives each switch block's case values, so the run picks
 * the same value as {@linkcode runGraph}.
 */
export function runTree(tree: TestStmt, g: TestGraph, o: Oracle): Run {
  const ops: Op[] = [];
  const labels = new Map<number, number>();
  // `continue` lands on a known loop top, or on a do-while's test compiled later.
  type Cont = { top: number } | { patch: number[] };
  const compile = (s: TestStmt, brk: number[], cont: Cont): void => {
    switch (s.kind) {
      case "seq":
        for (const x of s.items) compile(x, brk, cont);
        break;
      case "block":
        if (s.body !== "") ops.push({ op: "body", text: s.body });
        break;
      case "if": {
        const test = { op: "ifnot" as const, cond: s.cond, to: -1 };
        ops.push(test);
        compile(s.then, brk, cont);
        if (s.else === undefined) {
          test.to = ops.length;
        } else {
          const skip = { op: "jmp" as const, to: -1 };
          ops.push(skip);
          test.to = ops.length;
          compile(s.else, brk, cont);
          skip.to = ops.length;
        }
        break;
      }
      case "while": {
        const top = ops.length;
        const test = { op: "ifnot" as const, cond: s.cond, to: -1 };
        ops.push(test);
        const b: number[] = [];
        compile(s.body, b, { top });
        ops.push({ op: "jmp", to: top });
        test.to = ops.length;
        for (const i of b) (ops[i] as { to: number }).to = ops.length;
        break;
      }
      case "doWhile": {
        const top = ops.length;
        const b: number[] = [];
        const c: number[] = [];
        compile(s.body, b, { patch: c });
        const condAt = ops.length;
        ops.push({ op: "ifnot", cond: s.cond, to: condAt + 2 });
        ops.push({ op: "jmp", to: top });
        for (const i of b) (ops[i] as { to: number }).to = ops.length;
        for (const i of c) (ops[i] as { to: number }).to = condAt;
        break;
      }
      case "for": {
        const top = ops.length;
        const test = { op: "ifnot" as const, cond: s.cond, to: -1 };
        ops.push(test);
        const b: number[] = [];
        const c: number[] = [];
        compile(s.body, b, { patch: c });
        const stepAt = ops.length;
        compile(s.step, b, { top });
        ops.push({ op: "jmp", to: top });
        test.to = ops.length;
        for (const i of b) (ops[i] as { to: number }).to = ops.length;
        for (const i of c) (ops[i] as { to: number }).to = stepAt;
        break;
      }
      case "loop": {
        const top = ops.length;
        const b: number[] = [];
        compile(s.body, b, { top });
        ops.push({ op: "jmp", to: top });
        for (const i of b) (ops[i] as { to: number }).to = ops.length;
        break;
      }
      case "break":
        brk.push(ops.length);
        ops.push({ op: "jmp", to: -1 });
        break;
      case "continue":
        if ("top" in cont) {
          ops.push({ op: "jmp", to: cont.top });
        } else {
          cont.patch.push(ops.length);
          ops.push({ op: "jmp", to: -1 });
        }
        break;
      case "switch": {
        const sw: Extract<Op, { op: "switch" }> = {
          op: "switch",
          block: s.block,
          table: [],
          def: -1,
          all: [],
        };
        ops.push(sw);
        const b: number[] = [];
        for (const c of s.cases) {
          for (const v of c.values) sw.table.push([v, ops.length]);
          if (c.isDefault) sw.def = ops.length;
          compile(c.body, b, cont);
        }
        if (sw.def === -1) sw.def = ops.length;
        for (const i of b) (ops[i] as { to: number }).to = ops.length;
        break;
      }
      case "goto":
        ops.push({ op: "goto", label: s.label });
        break;
      case "label":
        labels.set(s.id, ops.length);
        break;
      case "return":
        ops.push({ op: "ret", id: s.block });
        break;
      case "stop":
        ops.push({ op: "stop", id: s.block });
        break;
    }
  };
  compile(tree, [], { patch: [] });
  const byId = new Map(g.blocks.map((b) => [b.id, b]));
  const trace: string[] = [];
  const evalCond = (c: Cond<number>): boolean => {
    switch (c.kind) {
      case "atom":
        return o.cond(c.block, trace.length);
      case "not":
        return !evalCond(c.of);
      case "and":
        return evalCond(c.left) && evalCond(c.right);
      case "or":
        return evalCond(c.left) || evalCond(c.right);
    }
  };
  let pc = 0;
  for (let steps = 0; steps < STEPS; steps++) {
    const op = ops[pc];
    if (op === undefined) return { trace, end: "fell off" };
    switch (op.op) {
      case "body":
        trace.push(op.text);
        if (trace.length >= LIMIT) return { trace, end: "limit" };
        pc++;
        break;
      case "ifnot":
        pc = evalCond(op.cond) ? pc + 1 : op.to;
        break;
      case "jmp":
        pc = op.to;
        break;
      case "goto": {
        const at = labels.get(op.label);
        if (at === undefined) return { trace, end: `lost:${op.label}` };
        pc = at;
        break;
      }
      case "ret":
        return { trace, end: `ret:${op.id}` };
      case "stop":
        return { trace, end: `stop:${op.id}` };
      case "switch": {
        const t = byId.get(op.block)?.term;
        if (t === undefined || t.kind !== "switch") return { trace, end: "bad switch" };
        const v = switchChoice(t, op.block, trace.length, o);
        if (v === undefined && t.default === undefined) return { trace, end: `stop:${op.block}` };
        pc = op.table.find(([x]) => x === v)?.[1] ?? op.def;
        break;
      }
    }
  }
  return { trace, end: "steps" };
}

/** A small deterministic generator (mulberry32). */
export const rng: (seed: number) => () => number = prng;

/**
 * A random graph of `n` blocks: mostly forward edges (as compiled code has),
 * some backward ones (loops, irreducible cycles), switches with shared and
 * fallthrough targets, empty branch blocks (short-circuit chains), returns
 * and stops (`exits` is their share: lower it to reach more of a large
 * graph). Block ids are sparse and shuffled.
 */
export function randomGraph(seed: number, n: number, exits = 0.11): TestGraph {
  const r = rng(seed);
  const ids = Array.from({ length: n }, (_, i) => 1000 + i * 7);
  const target = (i: number): number => {
    const x = r();
    if (x < 0.7) return ids[Math.min(n - 1, i + 1 + Math.floor(r() * 4))]!;
    if (x < 0.9 && i > 0) return ids[Math.max(0, i - 1 - Math.floor(r() * 6))]!;
    return ids[Math.floor(r() * n)]!;
  };
  const blocks = ids.map((id, i) => {
    const x = i === n - 1 ? 0.97 : r() * (0.85 + exits);
    let term: Terminator<number>;
    if (x < 0.25) {
      term = { kind: "jump", to: target(i) };
    } else if (x < 0.75) {
      term = { kind: "branch", cond: id, then: target(i), else: target(i) };
    } else if (x < 0.85) {
      const k = 2 + Math.floor(r() * 4);
      const cases = Array.from({ length: k }, (_, j) => ({
        values: r() < 0.3 ? [BigInt(j * 10), BigInt(j * 10 + 1)] : [BigInt(j * 10)],
        to: target(i),
      }));
      term = r() < 0.7
        ? { kind: "switch", value: id, cases, default: target(i) }
        : { kind: "switch", value: id, cases };
    } else if (x < 0.85 + exits * 0.8) {
      term = { kind: "return" };
    } else {
      term = { kind: "stop" };
    }
    const empty = term.kind === "branch" && r() < 0.35;
    return { id, body: empty ? "" : `b${id}`, term };
  });
  return { entry: ids[0]!, blocks };
}
