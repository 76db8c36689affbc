/**
 * Control-flow structuring: a generic graph in, a C-like statement tree out.
 *
 * @module
 */

import { dominators, loops } from "./_analysis.ts";
import { Emitter, layout, TooDeep } from "./_emit.ts";
import { gotoForm } from "./_goto_form.ts";
import { BudgetExceeded, Meter, prepare } from "./_graph.ts";
import { pruneLabels, seq, simplify } from "./_simplify.ts";
import type { Graph, Structured, StructureOptions } from "./types.ts";

/** The default of {@linkcode StructureOptions.isEmpty}. */
export function defaultIsEmpty(body: unknown): boolean {
  return body === null || body === undefined || body === "" ||
    (Array.isArray(body) && body.length === 0);
}

/**
 * Structures `graph` into `if`/`else`, loops, `switch`, `break`/`continue`
 * and short-circuit conditions, with `goto` only where the graph leaves no
 * nesting (irreducible loops, jumps across nested regions). Every reachable
 * block appears exactly once, and the tree runs the blocks in the graph's
 * order for every outcome of the conditions.
 *
 * Never throws: past the step budget or the depth limit, or on an internal
 * fault, the result is the plain goto form (one label per block) with a
 * warning. Deterministic: the same graph gives the same tree.
 */
export function structure<B, C>(
  graph: Graph<B, C>,
  options: StructureOptions<B> = {},
): Structured<B, C> {
  const isEmpty = options.isEmpty ?? defaultIsEmpty;
  let edges = 0;
  for (const b of graph.blocks) {
    const t = b.term;
    edges += t.kind === "branch" ? 2 : t.kind === "switch" ? t.cases.length + 1 : 1;
  }
  const budget = options.budget ?? 64 * (graph.blocks.length + edges) + 100_000;
  const maxDepth = options.maxDepth ?? 400;
  const meter = new Meter(budget);
  try {
    const prep = prepare(graph, isEmpty, meter);
    const dom = dominators(prep.nodes, meter);
    const lp = loops(prep.nodes, dom, meter);
    const lay = layout(prep.nodes, dom, lp, meter);
    const emitter = new Emitter(prep.nodes, prep.lost, lp, lay, meter, maxDepth);
    const raw = emitter.run();
    const first = pruneLabels(raw).list;
    const { list, gotos } = pruneLabels(simplify(first));
    return { body: seq(list), gotos, warnings: prep.warnings, steps: meter.steps };
  } catch (e) {
    const why = e instanceof BudgetExceeded
      ? `structuring stopped at its budget of ${budget} steps: plain goto form`
      : e instanceof TooDeep
      ? `nesting deeper than ${maxDepth}: plain goto form`
      : `structuring failed (${e instanceof Error ? e.message : String(e)}): plain goto form`;
    const flat = gotoForm(graph, isEmpty);
    return { ...flat, warnings: [...flat.warnings, why], steps: meter.steps };
  }
}
