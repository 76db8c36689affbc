/**
 * The order of a switch's cases. C runs a case body on into the next one
 * (fallthrough), so a case whose code continues into another case's code
 * must come right before it; otherwise cases go by their smallest value,
 * `default` last. Only the number of gotos depends on the order.
 *
 * @module
 */

import type { Meter, Node } from "./_graph.ts";
import type { Layout } from "./_layout.ts";

/**
 * The cases of the switch ending node `cur`, by target node, in emission
 * order. `groups` maps each target to its values; `segments` are the
 * targets whose code goes inside the switch (the others are one jump);
 * `exitNext` is where `break` lands.
 */
export function caseOrder<B, C>(
  nodes: Array<Node<B, C>>,
  lay: Layout,
  meter: Meter,
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
    if (lay.inlineAt[b] === cur) continue;
    let best = -1;
    for (const p of nodes[b]!.preds) {
      let a = p;
      while (a !== -1 && a !== cur && lay.owner[a] !== cur) {
        meter.tick();
        a = lay.owner[a]!;
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
