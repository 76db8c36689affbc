/**
 * Layout before emission: who owns each node (where its code goes), which
 * nodes go in place on their only forward edge, which exit of each loop is
 * its follow (the code right after the loop), and the immediate
 * post-dominators the switch emission uses.
 *
 * A node is owned by its immediate dominator, except that the chosen
 * follow of each loop is owned by the loop header so that it lands right
 * after the loop. The follow is the exit taken from the head or a latch
 * (what `while` and `do … while` leave by), then the one most exit edges
 * take; an exit other code also reaches is left to the enclosing region.
 *
 * @module
 */

import { dominates, type Dominators, inLoop, type Loops, postDominators } from "./_analysis.ts";
import type { Meter, Node } from "./_graph.ts";

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
