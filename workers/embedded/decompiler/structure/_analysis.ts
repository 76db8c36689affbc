/**
 * Dominators and natural loops over a prepared graph (nodes indexed in
 * reverse postorder, node 0 the entry).
 *
 * @module
 */

import type { Meter, Node } from "./_graph.ts";

/** Dominator tree with constant-time dominance tests. */
export interface Dominators {
  idom: Int32Array;
  /** Preorder interval of each node in the dominator tree. */
  pre: Int32Array;
  post: Int32Array;
  /** Nodes in each dominator subtree. */
  size: Int32Array;
}

/**
 * Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast
 * Dominance Algorithm", 2001): near-linear on the graphs compilers produce.
 */
export function dominators<B, C>(nodes: Array<Node<B, C>>, meter: Meter): Dominators {
  const n = nodes.length;
  const idom = new Int32Array(n).fill(-1);
  if (n > 0) idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (a > b) a = idom[a]!;
      while (b > a) b = idom[b]!;
    }
    return a;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 1; i < n; i++) {
      let d = -1;
      for (const p of nodes[i]!.preds) {
        meter.tick();
        if (idom[p] === -1) continue;
        d = d === -1 ? p : intersect(p, d);
      }
      if (d !== idom[i]) {
        idom[i] = d;
        changed = true;
      }
    }
  }
  const kids: number[][] = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) kids[idom[i]!]!.push(i);
  const pre = new Int32Array(n);
  const post = new Int32Array(n);
  const size = new Int32Array(n);
  let clock = 0;
  const stack: Array<[number, number]> = n > 0 ? [[0, 0]] : [];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const [v, i] = top;
    if (i === 0) pre[v] = clock++;
    const k = kids[v]!;
    if (i < k.length) {
      top[1] = i + 1;
      stack.push([k[i]!, 0]);
    } else {
      post[v] = clock;
      size[v] = clock - pre[v]!;
      stack.pop();
    }
  }
  return { idom, pre, post, size };
}

/** Whether `a` dominates `b` (every node dominates itself). */
export function dominates(d: Dominators, a: number, b: number): boolean {
  return d.pre[a]! <= d.pre[b]! && d.post[b]! <= d.post[a]!;
}

/** Natural loops, one per header, properly nested. */
export interface Loops {
  /** Innermost loop header containing each node (a header contains itself), or -1. */
  loopOf: Int32Array;
  /** Header of the enclosing loop of each header, or -1. */
  parent: Int32Array;
  /** Whether the node heads a natural loop. */
  isHeader: Uint8Array;
  /** Latches (sources of back edges) of each header. */
  latches: Map<number, number[]>;
}

/**
 * Finds natural loops: a back edge is an edge to a dominator. Inner headers
 * come later in reverse postorder, so scanning headers from the last one
 * finds inner loops first and collapses them into their header (Havlak's
 * union-find idea), which keeps the scan linear in the graph size.
 */
export function loops<B, C>(nodes: Array<Node<B, C>>, dom: Dominators, meter: Meter): Loops {
  const n = nodes.length;
  const loopOf = new Int32Array(n).fill(-1);
  const parent = new Int32Array(n).fill(-1);
  const isHeader = new Uint8Array(n);
  const latches = new Map<number, number[]>();
  for (let h = 0; h < n; h++) {
    for (const p of nodes[h]!.preds) {
      meter.tick();
      if (dominates(dom, h, p)) {
        isHeader[h] = 1;
        const l = latches.get(h);
        if (l === undefined) latches.set(h, [p]);
        else l.push(p);
      }
    }
  }
  const rep = new Int32Array(n);
  for (let i = 0; i < n; i++) rep[i] = i;
  const find = (x: number): number => {
    let r = x;
    while (rep[r] !== r) r = rep[r]!;
    while (rep[x] !== r) {
      const next = rep[x]!;
      rep[x] = r;
      x = next;
    }
    return r;
  };
  const mark = new Int32Array(n).fill(-1);
  for (let h = n - 1; h >= 0; h--) {
    if (isHeader[h] === 0) continue;
    loopOf[h] = h;
    mark[h] = h;
    const work: number[] = [];
    for (const l of latches.get(h)!) work.push(l);
    const members: number[] = [];
    while (work.length > 0) {
      meter.tick();
      const u = find(work.pop()!);
      if (mark[u] === h) continue;
      mark[u] = h;
      members.push(u);
      if (loopOf[u] === -1) loopOf[u] = h;
      else parent[u] = h; // u is an inner header, collapsed earlier
      for (const p of nodes[u]!.preds) {
        // A predecessor not dominated by h enters the region from outside
        // (an irreducible entry); it is not part of this natural loop.
        if (dominates(dom, h, p)) work.push(p);
      }
    }
    for (const u of members) rep[u] = h;
  }
  return { loopOf, parent, isHeader, latches };
}

/** Whether node `v` lies in the loop headed by `h`. */
export function inLoop(lp: Loops, h: number, v: number): boolean {
  let l = lp.loopOf[v]!;
  while (l !== -1) {
    if (l === h) return true;
    l = lp.parent[l]!;
  }
  return false;
}

/**
 * Immediate post-dominators: the same algorithm on the reversed graph, from
 * a virtual exit (index `nodes.length`) that every block without successor
 * reaches. A node that cannot reach the exit (an endless loop) gets -1, and
 * so does a node whose paths only meet at the exit.
 */
export function postDominators<B, C>(nodes: Array<Node<B, C>>, meter: Meter): Int32Array {
  const n = nodes.length;
  const exit = n;
  // Reverse-graph successors of node v are its forward predecessors; the
  // exit's are the blocks without successors.
  const exitPreds: number[] = [];
  for (let v = 0; v < n; v++) if (nodes[v]!.succ.length === 0) exitPreds.push(v);
  const rsucc = (v: number): number[] => (v === exit ? exitPreds : nodes[v]!.preds);
  // Postorder of the reversed graph from the exit.
  const order: number[] = [];
  const seen = new Uint8Array(n + 1);
  seen[exit] = 1;
  const stack: Array<[number, number]> = [[exit, 0]];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const list = rsucc(top[0]);
    meter.tick();
    if (top[1] < list.length) {
      const w = list[top[1]++]!;
      if (seen[w] === 0) {
        seen[w] = 1;
        stack.push([w, 0]);
      }
    } else {
      order.push(top[0]);
      stack.pop();
    }
  }
  order.reverse();
  const num = new Int32Array(n + 1).fill(-1);
  order.forEach((v, i) => (num[v] = i));
  const ipdom = new Int32Array(n + 1).fill(-1);
  ipdom[exit] = exit;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (num[a]! > num[b]!) a = ipdom[a]!;
      while (num[b]! > num[a]!) b = ipdom[b]!;
    }
    return a;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 1; i < order.length; i++) {
      const v = order[i]!;
      // Reverse-graph predecessors are forward successors (or the exit).
      const ps = nodes[v]!.succ.length === 0 ? [exit] : nodes[v]!.succ;
      let d = -1;
      for (const p of ps) {
        meter.tick();
        if (num[p] === -1 || ipdom[p] === -1) continue;
        d = d === -1 ? p : intersect(p, d);
      }
      if (d !== ipdom[v]) {
        ipdom[v] = d;
        changed = true;
      }
    }
  }
  const out = new Int32Array(n);
  for (let v = 0; v < n; v++) out[v] = ipdom[v] === exit ? -1 : ipdom[v]!;
  return out;
}
