/**
 * The fallback: every block in reverse postorder behind its own label, every
 * edge a goto unless it leads to the next block. Linear, and always right.
 *
 * @module
 */

import { Meter, not, prepare } from "./_graph.ts";
import { pruneLabels, seq } from "./_simplify.ts";
import type { Graph, Stmt, Structured } from "./types.ts";

/** The plain goto form of `graph`. */
export function gotoForm<B, C>(
  graph: Graph<B, C>,
  isEmpty: (body: B) => boolean,
): Omit<Structured<B, C>, "steps"> {
  try {
    const { nodes, lost, warnings } = prepare(graph, isEmpty, new Meter(Infinity));
    const n = nodes.length;
    const label = (v: number): number => (v < n ? nodes[v]!.id : lost[v - n]!);
    const out: Array<Stmt<B, C>> = [];
    const go = (v: number, next: number): Array<Stmt<B, C>> =>
      v === next ? [] : [{ kind: "goto", label: label(v) }];
    nodes.forEach((node, i) => {
      out.push({ kind: "label", id: node.id });
      if (!node.empty) out.push({ kind: "block", id: node.id, body: node.body });
      const t = node.term;
      const next = i + 1;
      switch (t.kind) {
        case "return":
          out.push({ kind: "return", block: node.id });
          break;
        case "stop":
          out.push({ kind: "stop", block: node.id });
          break;
        case "jump":
          out.push(...go(t.to, next));
          break;
        case "branch":
          if (t.then === next) {
            out.push({ kind: "if", cond: not(t.cond), then: seq(go(t.else, -1)) });
          } else {
            out.push({ kind: "if", cond: t.cond, then: seq(go(t.then, -1)) });
            out.push(...go(t.else, next));
          }
          break;
        case "switch": {
          const cases = t.cases.map((c) => ({
            values: c.values,
            isDefault: false,
            body: seq(go(c.to, -1)),
          }));
          if (t.default !== undefined) {
            cases.push({ values: [], isDefault: true, body: seq(go(t.default, -1)) });
          }
          out.push({ kind: "switch", value: t.value, block: node.id, cases });
          break;
        }
      }
    });
    const { list, gotos } = pruneLabels(out);
    return { body: seq(list), gotos, warnings };
  } catch (e) {
    // Only a graph that breaks its own type (a terminator of unknown kind) gets here.
    return {
      body: { kind: "seq", items: [] },
      gotos: 0,
      warnings: [`graph not understood: ${e instanceof Error ? e.message : String(e)}`],
    };
  }
}
