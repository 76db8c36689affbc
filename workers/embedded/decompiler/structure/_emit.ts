/**
 * Turns a prepared graph into a statement tree.
 *
 * Every node is emitted once, under its owner: its immediate dominator,
 * except that the chosen exit of each loop (its follow) is owned by the
 * loop header so that it lands right after the loop. A node owned by its
 * only forward predecessor is emitted in place, on that edge (the arm of an
 * `if`, a case body); other owned nodes come after their owner's code, in
 * reverse postorder. Then every edge is a jump with a known landing place:
 * nothing when the target is what runs next, `break`/`continue` when it is
 * the innermost loop's follow or header, `goto` otherwise. Correctness never
 * depends on the shape — only the number of gotos does.
 *
 * @module
 */

import { dominates, type Dominators, inLoop, type Loops, postDominators } from "./_analysis.ts";
import { type Meter, type Node, not } from "./_graph.ts";
import { canComplete } from "./_simplify.ts";
import type { Cond, Stmt, SwitchCase } from "./types.ts";

/** Raised when nesting passes the depth limit; the caller falls back to the goto form. */
export class TooDeep extends Error {}

interface Ctx {
  /** Node that runs when the code completes normally; -1: none. */
  next: number;
  /** Where `break` lands (the innermost loop or switch's follow); -2: no `break` here. */
  brk: number;
  /** Header of the innermost loop; -1: none. */
  cont: number;
}

/** Ownership and layout decided before emission. */
export interface Layout {
  owner: Int32Array;
  /** The node on whose edge a node is emitted in place, or -1. */
  inlineAt: Int32Array;
  /** Owned nodes laid out after their owner, in order. */
  followers: number[][];
  /** Chosen follow of each loop header, or -1. */
  loopFollow: Int32Array;
  /** For a loop without an owned follow: the exit other code shares, or -1. */
  loopForeign: Int32Array;
  /** Immediate post-dominator of each node, or -1. */
  ipdom: Int32Array;
}

/** Decides owners, loop follows and in-place nodes. */
export function layout<B, C>(
  nodes: Array<Node<B, C>>,
  dom: Dominators,
  lp: Loops,
  meter: Meter,
): Layout {
  const n = nodes.length;
  const owner = new Int32Array(n);
  for (let i = 0; i < n; i++) owner[i] = i === 0 ? -1 : dom.idom[i]!;

  // Exit edges per loop: an edge u -> v leaves every loop holding u but not v.
  interface Exit {
    count: number;
    fromHeadOrLatch: boolean;
  }
  const exits = new Map<number, Map<number, Exit>>();
  for (let u = 0; u < n; u++) {
    for (const v of nodes[u]!.succ) {
      let l = lp.loopOf[u]!;
      while (l !== -1 && !inLoop(lp, l, v)) {
        meter.tick();
        let m = exits.get(l);
        if (m === undefined) exits.set(l, m = new Map());
        const e = m.get(v) ?? { count: 0, fromHeadOrLatch: false };
        e.count++;
        if (u === l || lp.latches.get(l)!.includes(u)) e.fromHeadOrLatch = true;
        m.set(v, e);
        l = lp.parent[l]!;
      }
    }
  }
  const ipdom = postDominators(nodes, meter);
  const flowsInto = (v: number, w: number): boolean => {
    for (let i = 0; i < 32 && v !== -1; i++, v = ipdom[v]!) if (v === w) return true;
    return false;
  };
  const loopFollow = new Int32Array(n).fill(-1);
  const loopForeign = new Int32Array(n).fill(-1);
  const taken = new Uint8Array(n);
  for (let h = n - 1; h >= 0; h--) {
    const m = exits.get(h);
    if (m === undefined) continue;
    const outer = lp.parent[h]!;
    let best = -1;
    let bestExit: Exit | undefined;
    let foreign = -1;
    let foreignExit: Exit | undefined;
    for (const [v, e] of m) {
      meter.tick();
      if (outer !== -1 && !inLoop(lp, outer, v)) continue;
      if (!dominates(dom, h, v)) {
        // An exit other code also reaches: it can only be the follow as
        // code after the loop's whole region; remember the best.
        if (foreignExit === undefined || better(e, v, foreignExit, foreign)) {
          foreign = v;
          foreignExit = e;
        }
        continue;
      }
      if (taken[v] === 1) continue;
      if (bestExit === undefined || better(e, v, bestExit, best)) {
        best = v;
        bestExit = e;
      }
    }
    // An owned exit that flows into the shared one is better emitted in
    // place, ending in `break`, with the shared exit as the follow.
    if (
      best !== -1 && foreign !== -1 &&
      (rank(foreignExit!, bestExit!) > 0 || flowsInto(best, foreign))
    ) best = -1;
    if (best === -1) loopForeign[h] = foreign;
    if (best !== -1) {
      loopFollow[h] = best;
      taken[best] = 1;
      owner[best] = h;
    }
  }
  // Exits from the head or a latch are what `while` and `do … while` leave
  // by; then the exit most edges take.
  function rank(a: Exit, b: Exit): number {
    if (a.fromHeadOrLatch !== b.fromHeadOrLatch) return a.fromHeadOrLatch ? 1 : -1;
    return a.count - b.count;
  }
  function better(e: Exit, v: number, b: Exit, bv: number): boolean {
    const r = rank(e, b);
    if (r !== 0) return r > 0;
    // Of two exits where one runs into the other, the later one is the follow.
    if (flowsInto(bv, v)) return true;
    if (flowsInto(v, bv)) return false;
    if (dom.size[v] !== dom.size[bv]) return dom.size[v]! > dom.size[bv]!;
    return v < bv;
  }

  const inlineAt = new Int32Array(n).fill(-1);
  const followers: number[][] = Array.from({ length: n }, () => []);
  for (let v = 1; v < n; v++) {
    meter.tick();
    let fp = -1;
    let count = 0;
    for (const p of nodes[v]!.preds) {
      if (p < v) {
        fp = p;
        count++;
      }
    }
    const o = owner[v]!;
    if (count === 1 && fp === o && taken[v] === 0) inlineAt[v] = o;
    else followers[o]!.push(v);
  }
  // Pushed in increasing index order: already in reverse postorder. A loop's
  // follow goes first among the nodes outside that loop.
  for (let h = 0; h < n; h++) {
    const f = loopFollow[h]!;
    if (f === -1) continue;
    const list = followers[h]!;
    const inside = list.filter((v) => inLoop(lp, h, v));
    const outside = list.filter((v) => v !== f && !inLoop(lp, h, v));
    followers[h] = [...inside, f, ...outside];
  }
  return { owner, inlineAt, followers, loopFollow, loopForeign, ipdom };
}

/** Emits the statement tree of a prepared, analysed graph. */
export class Emitter<B, C> {
  /** Block ids that some goto targets. */
  readonly gotoTargets = new Set<number>();

  constructor(
    private readonly nodes: Array<Node<B, C>>,
    private readonly lost: number[],
    private readonly lp: Loops,
    private readonly lay: Layout,
    private readonly meter: Meter,
    private readonly maxDepth: number,
    private readonly dom: Dominators,
    private readonly duplicate: (body: B) => boolean,
  ) {}

  /** The whole function. */
  run(): Array<Stmt<B, C>> {
    if (this.nodes.length === 0) {
      return this.lost.map((id) => ({ kind: "goto", label: id }));
    }
    return this.emit(0, { next: -1, brk: -2, cont: -1 }, 0);
  }

  /** Code for `x`, everything it owns, and any tail it hands on. */
  private emit(x: number, ctx: Ctx, depth: number): Array<Stmt<B, C>> {
    if (depth > this.maxDepth) throw new TooDeep("depth");
    const out: Array<Stmt<B, C>> = [];
    let cur = x;
    while (cur !== -1) cur = this.step(cur, ctx, depth, out);
    return out;
  }

  /** Emits `cur` into `out`; returns a node to continue with in the same context, or -1. */
  private step(cur: number, ctx: Ctx, depth: number, out: Array<Stmt<B, C>>): number {
    this.meter.tick();
    if (depth > this.maxDepth) throw new TooDeep("depth");
    out.push({ kind: "label", id: this.nodes[cur]!.id });
    const followers = this.lay.followers[cur]!;
    if (this.lp.isHeader[cur] === 0) return this.plain(cur, followers, ctx, depth, out);
    const inside: number[] = [];
    const outside: number[] = [];
    for (const f of followers) (inLoop(this.lp, cur, f) ? inside : outside).push(f);
    const body: Array<Stmt<B, C>> = [];
    // `break` lands after the loop: on the first node laid out there, or,
    // when none is, on the shared exit reached by one jump after the loop.
    const foreign = outside.length === 0 ? this.lay.loopForeign[cur]! : -1;
    const brk = outside[0] ?? (foreign !== -1 ? foreign : ctx.next);
    const bodyCtx: Ctx = { next: cur, brk, cont: cur };
    let t = this.plain(cur, inside, bodyCtx, depth + 1, body);
    while (t !== -1) t = this.step(t, bodyCtx, depth + 1, body);
    out.push({ kind: "loop", body: { kind: "seq", items: body } });
    if (foreign !== -1) out.push(...this.jump(foreign, ctx));
    return this.sequence(outside, ctx, depth, out);
  }

  /** Emits `list` one after the other; returns the last as the tail. */
  private sequence(list: number[], ctx: Ctx, depth: number, out: Array<Stmt<B, C>>): number {
    for (let i = 0; i + 1 < list.length; i++) {
      out.push(...this.emit(list[i]!, { ...ctx, next: list[i + 1]! }, depth + 1));
    }
    return list.length === 0 ? -1 : list[list.length - 1]!;
  }

  /** The block, its terminator, then its followers. */
  private plain(
    cur: number,
    followers: number[],
    ctx: Ctx,
    depth: number,
    out: Array<Stmt<B, C>>,
  ): number {
    const node = this.nodes[cur]!;
    if (!node.empty) out.push({ kind: "block", id: node.id, body: node.body });
    const t = node.term;
    switch (t.kind) {
      case "return":
        out.push({ kind: "return", block: node.id });
        return this.sequence(followers, ctx, depth, out);
      case "stop":
        out.push({ kind: "stop", block: node.id });
        return this.sequence(followers, ctx, depth, out);
      case "jump": {
        const tctx = { ...ctx, next: followers[0] ?? ctx.next };
        if (this.inlineHere(cur, t.to)) {
          if (followers.length === 0) return t.to;
          out.push(...this.emit(t.to, tctx, depth + 1));
        } else {
          out.push(...this.jump(t.to, tctx));
        }
        return this.sequence(followers, ctx, depth, out);
      }
      case "branch": {
        const tctx = { ...ctx, next: followers[0] ?? ctx.next };
        // `if (c) { …; return; } rest`: when one side cannot complete, the
        // other continues at this level instead of nesting, so a long chain
        // of early exits stays flat (and within the depth limit).
        const tIn = followers.length === 0 && this.inlineHere(cur, t.then);
        const eIn = followers.length === 0 && this.inlineHere(cur, t.else);
        const tailThen = tIn && (!eIn || this.dom.size[t.then]! > this.dom.size[t.else]!);
        const tailElse = eIn && !tailThen;
        if (tailThen || tailElse) {
          const other = tailThen
            ? this.arm(cur, t.else, tctx, depth)
            : this.arm(cur, t.then, tctx, depth);
          if (other.length > 0 && !canComplete(other)) {
            out.push({ kind: "if", cond: tailThen ? not(t.cond) : t.cond, then: seq(other) });
            return tailThen ? t.then : t.else;
          }
          const rest = tailThen
            ? this.arm(cur, t.then, tctx, depth)
            : this.arm(cur, t.else, tctx, depth);
          this.branch(t.cond, tailThen ? rest : other, tailThen ? other : rest, out);
          return -1;
        }
        const then = this.arm(cur, t.then, tctx, depth);
        const els = this.arm(cur, t.else, tctx, depth);
        this.branch(t.cond, then, els, out);
        return this.sequence(followers, ctx, depth, out);
      }
      case "switch":
        return this.switch(cur, t, followers, ctx, depth, out);
    }
  }

  /** `if (cond) then else els`, without empty sides. */
  private branch(
    cond: Cond<C>,
    then: Array<Stmt<B, C>>,
    els: Array<Stmt<B, C>>,
    out: Array<Stmt<B, C>>,
  ): void {
    if (then.length === 0 && els.length === 0) {
      // Both ways land on the next code; the condition has no effect.
    } else if (els.length === 0) {
      out.push({ kind: "if", cond, then: seq(then) });
    } else if (then.length === 0) {
      out.push({ kind: "if", cond: not(cond), then: seq(els) });
    } else {
      out.push({ kind: "if", cond, then: seq(then), else: seq(els) });
    }
  }

  private switch(
    cur: number,
    t: Extract<Node<B, C>["term"], { kind: "switch" }>,
    followers: number[],
    ctx: Ctx,
    depth: number,
    out: Array<Stmt<B, C>>,
  ): number {
    // Group case values by target, in the order targets first appear.
    const groups = new Map<number, { values: bigint[]; isDefault: boolean }>();
    for (const c of t.cases) {
      const g = groups.get(c.to);
      if (g === undefined) groups.set(c.to, { values: [...c.values], isDefault: false });
      else g.values.push(...c.values);
    }
    if (t.default !== undefined) {
      const g = groups.get(t.default);
      if (g === undefined) groups.set(t.default, { values: [], isDefault: true });
      else g.isDefault = true;
    }
    const isCase = (v: number): boolean => groups.has(v);
    // The switch's exit, where `break` lands: the place most edges reach,
    // among the owned followers (a case may go there directly: `case k:
    // break;`) and, when no owned code but cases has to come after the
    // switch, what follows the whole region (-1). Ties go to where all paths
    // meet, then to a follower that is no case.
    const followerSet = new Set(followers);
    const meet = this.lay.ipdom[cur]!;
    const nextOk = ctx.next >= 0 && followers.every(isCase);
    let exit = -1;
    let best = nextOk
      ? this.nodes[ctx.next]!.preds.filter((p) => dominates(this.dom, cur, p)).length
      : 0;
    const rank = (f: number): number => (f === meet ? 2 : isCase(f) ? 0 : 1);
    for (const f of followers) {
      const score = this.nodes[f]!.preds.length;
      if (
        score > best ||
        (score === best && (exit === -1 ? ctx.next !== meet : rank(f) > rank(exit)))
      ) {
        exit = f;
        best = score;
      }
    }
    // The exit must come first after the switch: that is where `break` lands.
    const after = [
      ...(exit === -1 ? [] : [exit]),
      ...followers.filter((f) => f !== exit && !isCase(f)),
    ];
    const exitNext = exit !== -1 ? exit : ctx.next;
    const segmentSet = new Set(
      [...groups.keys()].filter((v) =>
        v !== exit && (this.inlineHere(cur, v) || followerSet.has(v))
      ),
    );
    const order = this.caseOrder(cur, groups, segmentSet, exitNext);
    const cases: Array<SwitchCase<B, C>> = [];
    order.forEach((v, i) => {
      this.meter.tick();
      const g = groups.get(v)!;
      if (!segmentSet.has(v)) {
        const jctx: Ctx = { next: -3, brk: exitNext, cont: ctx.cont };
        cases.push({ values: g.values, isDefault: g.isDefault, body: seq(this.jump(v, jctx)) });
        return;
      }
      // A segment falls through only into the segment it jumps to; before
      // anything else its every path ends in an explicit jump (-3 is no node).
      const after = order[i + 1];
      const next = after === undefined ? exitNext : segmentSet.has(after) ? after : -3;
      const sctx: Ctx = { next, brk: exitNext, cont: ctx.cont };
      cases.push({
        values: g.values,
        isDefault: g.isDefault,
        body: seq(this.emit(v, sctx, depth + 1)),
      });
    });
    out.push({ kind: "switch", value: t.value, block: this.nodes[cur]!.id, cases });
    return this.sequence(after, ctx, depth, out);
  }

  /**
   * Case order: by smallest value, `default` last, except that a case whose
   * code continues into another case's code (C fallthrough) comes right
   * before it. Only the number of gotos depends on the order.
   */
  private caseOrder(
    cur: number,
    groups: Map<number, { values: bigint[]; isDefault: boolean }>,
    segments: Set<number>,
    exitNext: number,
  ): number[] {
    // Which segment each segment falls into: the closest earlier segment
    // holding one of its predecessors.
    const into = new Map<number, number>();
    const from = new Map<number, number>();
    const sorted = [...segments].sort((a, b) => a - b);
    for (const b of sorted) {
      if (this.inlineHere(cur, b)) continue;
      let best = -1;
      for (const p of this.nodes[b]!.preds) {
        let a = p;
        while (a !== -1 && a !== cur && this.lay.owner[a] !== cur) {
          this.meter.tick();
          a = this.lay.owner[a]!;
        }
        if (a !== -1 && a !== b && a < b && segments.has(a) && !into.has(a) && a > best) best = a;
      }
      if (best !== -1) {
        into.set(best, b);
        from.set(b, best);
      }
    }
    const key = (v: number): bigint | undefined => {
      const vals = groups.get(v)!.values;
      return vals.length === 0 ? undefined : vals.reduce((m, x) => (x < m ? x : m));
    };
    const units: Array<{ key: bigint | undefined; first: number; list: number[] }> = [];
    for (const [v, g] of groups) {
      if (segments.has(v)) {
        if (from.has(v)) continue;
        const list = [v];
        for (let x = into.get(v); x !== undefined; x = into.get(x)) list.push(x);
        const ks = list.map(key).filter((k): k is bigint => k !== undefined);
        const k = ks.length === 0 ? undefined : ks.reduce((m, x) => (x < m ? x : m));
        units.push({ key: k, first: v, list });
      } else if (!(v === exitNext && g.isDefault)) {
        // A default that only leaves the switch is the same as no default,
        // and so are the cases that share it.
        units.push({ key: key(v), first: v, list: [v] });
      }
    }
    units.sort((a, b) => {
      if (a.key === undefined || b.key === undefined) {
        if (a.key !== b.key) return a.key === undefined ? 1 : -1;
        return a.first - b.first;
      }
      return a.key < b.key ? -1 : a.key > b.key ? 1 : a.first - b.first;
    });
    return units.flatMap((u) => u.list);
  }

  private inlineHere(cur: number, v: number): boolean {
    return v < this.nodes.length && this.lay.inlineAt[v] === cur;
  }

  private arm(cur: number, v: number, ctx: Ctx, depth: number): Array<Stmt<B, C>> {
    return this.inlineHere(cur, v) ? this.emit(v, ctx, depth + 1) : this.jump(v, ctx);
  }

  /** The statement that takes control to node `v` from a tail position. */
  private jump(v: number, ctx: Ctx): Array<Stmt<B, C>> {
    const n = this.nodes.length;
    if (v >= n) return [{ kind: "goto", label: this.lost[v - n]! }];
    if (v === ctx.next) return [];
    if (v === ctx.brk) return [{ kind: "break" }];
    if (v === ctx.cont) return [{ kind: "continue" }];
    const node = this.nodes[v]!;
    const t = node.term.kind;
    if ((t === "return" || t === "stop") && this.duplicate(node.body)) {
      // A copy of the function's end reads better than a jump to it.
      const end: Stmt<B, C> = { kind: t, block: node.id };
      return node.empty ? [end] : [{ kind: "block", id: node.id, body: node.body }, end];
    }
    this.gotoTargets.add(node.id);
    return [{ kind: "goto", label: node.id }];
  }
}

function seq<B, C>(list: Array<Stmt<B, C>>): Stmt<B, C> {
  return list.length === 1 ? list[0]! : { kind: "seq", items: list };
}
