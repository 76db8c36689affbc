/**
 * Turns a prepared graph into a statement tree, following the layout
 * decided before (`_layout.ts`): every node is emitted once, under its
 * owner — in place when that is its only forward predecessor (the arm of an
 * `if`, a case body), else after the owner's code in reverse postorder.
 * Then every edge is a jump with a known landing place: nothing when the
 * target is what runs next, `break`/`continue` when it is the innermost
 * loop's follow or header, a copied end block, or `goto` otherwise.
 * Correctness never depends on the shape — only the number of gotos does.
 *
 * @module
 */

import { dominates, type Dominators, inLoop, type Loops } from "./_analysis.ts";
import type { Layout } from "./_layout.ts";
import { caseOrder } from "./_switch.ts";
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
    const order = caseOrder(
      this.nodes,
      this.lay,
      this.meter,
      cur,
      groups,
      segmentSet,
      exitNext,
    );
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
