/**
 * The plain form of a graph: blocks in order, each followed by `if (c) goto` / `goto` to its
 * successors — the structured tree's shape, with no structure recovered. Used when the
 * structurer gives up, and as its stand-in before it exists.
 */

import type { Graph, Stmt } from "./structure/types.ts";

/** Blocks of `g` in its order with explicit jumps; a jump to the next block is left out. */
export function gotoTree<B, C>(g: Graph<B, C>): Stmt<B, C> {
  const items: Stmt<B, C>[] = [];
  const targets = new Set<number>();
  g.blocks.forEach((b, i) => {
    const next = g.blocks[i + 1]?.id;
    const t = b.term;
    const jump = (to: number): Stmt<B, C>[] => {
      if (to === next) return [];
      targets.add(to);
      return [{ kind: "goto", label: to }];
    };
    items.push({ kind: "label", id: b.id }, { kind: "block", id: b.id, body: b.body });
    switch (t.kind) {
      case "jump":
        items.push(...jump(t.to));
        break;
      case "branch":
        targets.add(t.then);
        items.push({
          kind: "if",
          cond: { kind: "atom", cond: t.cond, block: b.id },
          then: { kind: "goto", label: t.then },
        });
        items.push(...jump(t.else));
        break;
      case "switch":
        for (const c of t.cases) targets.add(c.to);
        if (t.default !== undefined) targets.add(t.default);
        items.push({
          kind: "switch",
          value: t.value,
          block: b.id,
          cases: [
            ...t.cases.map((c) => ({
              values: c.values,
              isDefault: false,
              body: { kind: "goto", label: c.to } as Stmt<B, C>,
            })),
            ...(t.default !== undefined
              ? [{
                values: [],
                isDefault: true,
                body: { kind: "goto", label: t.default } as Stmt<B, C>,
              }]
              : []),
          ],
        });
        break;
      case "return":
        items.push({ kind: "return", block: b.id });
        break;
      case "stop":
        items.push({ kind: "stop", block: b.id });
        break;
    }
  });
  return {
    kind: "seq",
    items: items.filter((s) => s.kind !== "label" || targets.has(s.id)),
  };
}
