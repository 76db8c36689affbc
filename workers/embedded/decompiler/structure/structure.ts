/**
 * Control-flow structuring: a generic graph in, a C-like statement tree out.
 *
 * @module
 */

import { dominators, loops } from "./_analysis.ts";
import { Emitter, TooDeep } from "./_emit.ts";
import { layout } from "./_layout.ts";
import { gotoForm } from "./_goto_form.ts";
import { BudgetExceeded, Meter, prepare } from "./_graph.ts";
import { nestGotos, pruneLabels, seq, simplify } from "./_simplify.ts";
import type { Graph, Structured, StructureOptions } from "./types.ts";

/** The default of {@linkcode StructureOptions.isEmpty}. */
export function defaultIsEmpty(body: unknown): boolean {
  return body === null || body === undefined || body === "" ||
    (Array.isArray(body) && body.length === 0);
}

/**
 * Structures `graph` into `if`/`else`, `while`/`do … while`/`for (;;)`,
 * `switch` with fallthrough, `break`/`continue` and `&&`/`||` conditions,
 * with `goto` only where the graph leaves no nesting (irreducible loops,
 * jumps across nested regions). Every reachable block with a body appears
 * once (a small end block may also be copied: `options.duplicate`); empty
 * blocks that only jump are passed through, and empty branch blocks become
 * part of their predecessor's condition — so pass `options.isEmpty` when
 * bodies are not arrays or strings. For every outcome of the conditions the
 * tree runs the non-empty blocks in the graph's order.
 *
 * Method: each block is emitted under its immediate dominator (a loop's
 * chosen exit under the loop header), in place when that is its only
 * forward predecessor, else after the owner's code in reverse postorder;
 * switch and loop exits come from post-dominators and exit edge counts;
 * every edge then becomes fallthrough, `break`, `continue`, a copied end
 * block or `goto`. Rewrites after that give `while`/`do … while`, drop
 * `else` after an arm that cannot complete, and turn gotos to the end of a
 * loop body into `continue`.
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
    const emitter = new Emitter(
      prep.nodes,
      prep.lost,
      lp,
      lay,
      meter,
      maxDepth,
      dom,
      options.duplicate ?? isEmpty,
    );
    const raw = emitter.run();
    const first = pruneLabels(raw);
    const second = pruneLabels(
      simplify(first.list, first.counts, options.isStep ?? (() => false)),
    );
    const { list, gotos } = second.gotos === 0
      ? second
      : pruneLabels(nestGotos(second.list, options.duplicate ?? isEmpty));
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

/**
 * The plain goto form of `graph` (one label per block, every edge that does not fall through a
 * `goto`): linear in the graph's size, for callers out of time for {@linkcode structure}.
 */
export function gotoOnly<B, C>(
  graph: Graph<B, C>,
  isEmpty: (body: B) => boolean = defaultIsEmpty,
): Structured<B, C> {
  return { ...gotoForm(graph, isEmpty), steps: 0 };
}
