/**
 * The structurer's private view of the input graph: reachable blocks in
 * reverse postorder, with short-circuit conditions already folded, and the
 * analyses the emitter needs (dominators, natural loops).
 *
 * @module
 */

import type { Cond, Graph, Terminator } from "./types.ts";

/**
 * A terminator over node indices, with the branch condition as a
 * {@linkcode Cond} tree. A target `>= nodes.length` is an unknown block id.
 */
export type NodeTerm<C> =
  | Exclude<Terminator<C>, { kind: "branch" }>
  | { kind: "branch"; cond: Cond<C>; then: number; else: number };

/** A reachable block; its index is its reverse-postorder number. */
export interface Node<B, C> {
  id: number;
  body: B;
  empty: boolean;
  term: NodeTerm<C>;
  /** Distinct known successors. */
  succ: number[];
  /** Distinct predecessors. */
  preds: number[];
}

/** Raised when the step budget runs out; the caller falls back to the goto form. */
export class BudgetExceeded extends Error {}

/** Counts work against the budget. */
export class Meter {
  steps = 0;
  constructor(readonly budget: number) {}
  /** Adds `n` steps; throws {@linkcode BudgetExceeded} past the budget. */
  tick(n = 1): void {
    this.steps += n;
    if (this.steps > this.budget) throw new BudgetExceeded("budget");
  }
}

/** Negation that does not stack: `!!a` is `a`. */
export function not<C>(c: Cond<C>): Cond<C> {
  return c.kind === "not" ? c.of : { kind: "not", of: c };
}

/** A terminator over block ids, with conditions already as {@linkcode Cond} trees. */
type MutTerm<C> = NodeTerm<C>;

interface Mut<B, C> {
  id: number;
  body: B;
  empty: boolean;
  term: MutTerm<C>;
}

function targets<C>(t: MutTerm<C>): number[] {
  switch (t.kind) {
    case "jump":
      return [t.to];
    case "branch":
      return t.then === t.else ? [t.then] : [t.then, t.else];
    case "switch": {
      const out: number[] = [];
      for (const c of t.cases) if (!out.includes(c.to)) out.push(c.to);
      if (t.default !== undefined && !out.includes(t.default)) out.push(t.default);
      return out;
    }
    default:
      return [];
  }
}

/** The prepared graph. */
export interface Prepared<B, C> {
  nodes: Array<Node<B, C>>;
  /** Block ids of unknown targets, indexed by `target - nodes.length`. */
  lost: number[];
  warnings: string[];
}

/**
 * Keeps the blocks reachable from the entry, folds the condition of an empty
 * single-predecessor branch block into its predecessor's (`a && b`, `a || b`),
 * and numbers the rest in reverse postorder.
 */
export function prepare<B, C>(
  graph: Graph<B, C>,
  isEmpty: (body: B) => boolean,
  meter: Meter,
): Prepared<B, C> {
  const warnings: string[] = [];
  const byId = new Map<number, Mut<B, C>>();
  for (const b of graph.blocks) {
    meter.tick();
    if (byId.has(b.id)) {
      warnings.push(`block ${b.id} is defined twice: the first definition is used`);
      continue;
    }
    const t = b.term;
    let term: MutTerm<C>;
    switch (t.kind) {
      case "branch":
        term = {
          kind: "branch",
          cond: { kind: "atom", cond: t.cond, block: b.id },
          then: t.then,
          else: t.else,
        };
        break;
      case "switch":
        term = t.default === undefined
          ? { kind: "switch", value: t.value, cases: t.cases }
          : { kind: "switch", value: t.value, cases: t.cases, default: t.default };
        break;
      default:
        term = t;
    }
    byId.set(b.id, { id: b.id, body: b.body, empty: isEmpty(b.body), term });
  }
  const lostIds: number[] = [];
  if (!byId.has(graph.entry)) {
    warnings.push(`entry block ${graph.entry} is not in the graph`);
    return { nodes: [], lost: [graph.entry], warnings };
  }
  const entry = threadJumps(graph.entry, byId, meter);

  // Reachability and predecessor counts (edges counted once per distinct pair).
  const preds = new Map<number, Set<number>>();
  const seen = new Set<number>([entry]);
  const stack = [entry];
  while (stack.length > 0) {
    const id = stack.pop()!;
    const blk = byId.get(id)!;
    for (const s of targets(blk.term)) {
      meter.tick();
      if (!byId.has(s)) {
        if (!lostIds.includes(s)) {
          lostIds.push(s);
          warnings.push(`block ${id} jumps to unknown block ${s}: kept as a goto`);
        }
        continue;
      }
      const ps = preds.get(s);
      if (ps === undefined) preds.set(s, new Set([id]));
      else ps.add(id);
      if (!seen.has(s)) {
        seen.add(s);
        stack.push(s);
      }
    }
  }

  foldShortCircuits(entry, byId, seen, preds, meter);

  // Reverse postorder by an iterative depth-first search; successors are
  // visited in terminator order so the layout follows the source's order.
  const order: number[] = [];
  const visited = new Set<number>([entry]);
  const work: Array<{ id: number; succ: number[]; i: number }> = [{
    id: entry,
    succ: targets(byId.get(entry)!.term),
    i: 0,
  }];
  while (work.length > 0) {
    const top = work[work.length - 1]!;
    meter.tick();
    if (top.i < top.succ.length) {
      const s = top.succ[top.i++]!;
      if (byId.has(s) && !visited.has(s)) {
        visited.add(s);
        work.push({ id: s, succ: targets(byId.get(s)!.term), i: 0 });
      }
    } else {
      order.push(top.id);
      work.pop();
    }
  }
  order.reverse();
  const index = new Map<number, number>();
  order.forEach((id, i) => index.set(id, i));
  const n = order.length;
  const lostIndex = new Map<number, number>();
  lostIds.forEach((id, i) => lostIndex.set(id, n + i));
  const map = (id: number): number => index.get(id) ?? lostIndex.get(id)!;

  const nodes: Array<Node<B, C>> = order.map((id) => {
    const m = byId.get(id)!;
    const t = m.term;
    let term: NodeTerm<C>;
    switch (t.kind) {
      case "jump":
        term = { kind: "jump", to: map(t.to) };
        break;
      case "branch":
        term = t.then === t.else
          ? { kind: "jump", to: map(t.then) }
          : { kind: "branch", cond: t.cond, then: map(t.then), else: map(t.else) };
        break;
      case "switch": {
        const cases = t.cases.map((c) => ({ values: c.values, to: map(c.to) }));
        const tos = new Set(cases.map((c) => c.to));
        if (t.default !== undefined) tos.add(map(t.default));
        if (tos.size === 1) {
          term = { kind: "jump", to: [...tos][0]! };
        } else if (tos.size === 0) {
          // No case and no default: nothing can follow.
          term = { kind: "stop" };
        } else {
          term = t.default === undefined
            ? { kind: "switch", value: t.value, cases }
            : { kind: "switch", value: t.value, cases, default: map(t.default) };
        }
        break;
      }
      default:
        term = t;
    }
    return { id, body: m.body, empty: m.empty, term, succ: [], preds: [] };
  });
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!;
    const t = node.term;
    const tos = t.kind === "jump"
      ? [t.to]
      : t.kind === "branch"
      ? [t.then, t.else]
      : t.kind === "switch"
      ? [...t.cases.map((c) => c.to), ...(t.default === undefined ? [] : [t.default])]
      : [];
    for (const s of tos) {
      meter.tick();
      if (s < n && !node.succ.includes(s)) {
        node.succ.push(s);
        nodes[s]!.preds.push(i);
      }
    }
  }
  return { nodes, lost: lostIds, warnings };
}

/**
 * Sends every edge to an empty block that only jumps on straight to where it
 * jumps (such a block does nothing), and returns the new entry.
 */
function threadJumps<B, C>(entry: number, byId: Map<number, Mut<B, C>>, meter: Meter): number {
  const through = new Map<number, number>();
  const resolve = (id: number): number => {
    const chain = new Set<number>();
    let cur = id;
    for (;;) {
      meter.tick();
      const known = through.get(cur);
      if (known !== undefined) {
        cur = known;
        break;
      }
      const b = byId.get(cur);
      if (b === undefined || !b.empty || b.term.kind !== "jump" || chain.has(cur)) break;
      chain.add(cur);
      cur = b.term.to;
    }
    for (const c of chain) through.set(c, cur);
    return cur;
  };
  for (const b of byId.values()) {
    const t = b.term;
    switch (t.kind) {
      case "jump": {
        const to = resolve(t.to);
        // An empty cycle stays: it is an endless loop.
        if (to !== t.to && !(b.empty && to === b.id)) b.term = { kind: "jump", to };
        break;
      }
      case "branch":
        b.term = { ...t, then: resolve(t.then), else: resolve(t.else) };
        break;
      case "switch": {
        const cases = t.cases.map((c) => ({ values: c.values, to: resolve(c.to) }));
        b.term = t.default === undefined
          ? { kind: "switch", value: t.value, cases }
          : { kind: "switch", value: t.value, cases, default: resolve(t.default) };
        break;
      }
    }
  }
  return resolve(entry);
}

/**
 * Folds `A: if (a) X else B; B (empty, only reached from A): if (b) X else Y`
 * into `A: if (a || b) X else Y`, and the three sibling shapes, until no
 * more apply. Evaluating the folded condition visits the blocks in the same
 * order as the graph did, so the result means the same.
 */
function foldShortCircuits<B, C>(
  entry: number,
  byId: Map<number, Mut<B, C>>,
  live: Set<number>,
  preds: Map<number, Set<number>>,
  meter: Meter,
): void {
  const foldable = (id: number, from: number): Mut<B, C> | undefined => {
    const b = byId.get(id);
    if (
      b === undefined || id === entry || id === from || !live.has(id) || !b.empty ||
      b.term.kind !== "branch" || preds.get(id)?.size !== 1
    ) return undefined;
    return b;
  };
  // A fold can make the predecessors of the folded block foldable in turn:
  // they go back on the work list.
  const work = [...live].sort((x, y) => y - x);
  while (work.length > 0) {
    const id = work.pop()!;
    if (!live.has(id)) continue;
    const a = byId.get(id)!;
    let folded = false;
    for (;;) {
      meter.tick();
      const t = a.term;
      if (t.kind !== "branch" || t.then === t.else) break;
      const next = foldOnce(t, foldable(t.else, id), foldable(t.then, id));
      if (next === undefined) break;
      const b = next.absorbed;
      const bt = b.term;
      // B disappears: its targets now have A as predecessor instead.
      for (const x of targets(bt)) {
        const ps = preds.get(x);
        ps?.delete(b.id);
        ps?.add(id);
      }
      live.delete(b.id);
      a.term = next.term;
      folded = true;
    }
    if (folded) {
      for (const p of preds.get(id) ?? []) if (live.has(p)) work.push(p);
    }
  }
}

/** The folded terminator of A when B (its else or then side) shares a target with it. */
function foldOnce<B, C>(
  t: Extract<MutTerm<C>, { kind: "branch" }>,
  inElse: Mut<B, C> | undefined,
  inThen: Mut<B, C> | undefined,
): { term: MutTerm<C>; absorbed: Mut<B, C> } | undefined {
  const fold = (
    op: "and" | "or",
    b: Mut<B, C>,
    right: Cond<C>,
    then: number,
    els: number,
  ) => ({
    term: { kind: "branch" as const, cond: { kind: op, left: t.cond, right }, then, else: els },
    absorbed: b,
  });
  // A: if (a) X else B; B: if (b) X else Y  =>  if (a || b) X else Y (B's sides either way).
  const e = inElse?.term;
  if (inElse !== undefined && e?.kind === "branch") {
    if (e.then === t.then) return fold("or", inElse, e.cond, t.then, e.else);
    if (e.else === t.then) return fold("or", inElse, not(e.cond), t.then, e.then);
  }
  // A: if (a) B else Y; B: if (b) X else Y  =>  if (a && b) X else Y.
  const h = inThen?.term;
  if (inThen !== undefined && h?.kind === "branch") {
    if (h.else === t.else) return fold("and", inThen, h.cond, h.then, t.else);
    if (h.then === t.else) return fold("and", inThen, not(h.cond), h.else, t.else);
  }
  return undefined;
}
