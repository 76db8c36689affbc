/** `diff_databases`: match the functions of two open databases and say what changed. */
import { z } from "zod";
import { defineTool, READ_ONLY } from "../protocol/catalog/spec.ts";
import { Hex } from "../protocol/params.ts";
import { hex, pageOf } from "../protocol/paging.ts";
import { compileFilter } from "../protocol/pattern.ts";
import type { LocalHandler } from "../supervisor/host.ts";
import type { FunctionFeatures } from "./features.ts";
import { evidenceOf } from "./match.ts";
import { identical } from "./similarity.ts";
import type { Diff, DiffService, Side } from "./service.ts";

const DatabaseId = z.string().min(1).max(128);

const PairRow = z.object({
  a_name: z.string(),
  a_start: Hex,
  b_name: z.string(),
  b_start: Hex,
  similarity: z.number().describe("1 = same instructions (addresses masked)"),
  round: z.string().describe("The matching round that paired them"),
  evidence: z.array(z.string()).describe("Features the two share"),
  a_size: z.number(),
  b_size: z.number(),
  a_blocks: z.number(),
  b_blocks: z.number(),
});

const SideOut = z.object({
  database: z.string(),
  functions: z.number(),
  features_computed: z.number().optional().describe(
    "Functions whose diffing features were computed for this call; the rest were read from " +
      "the database's store or kept from an earlier diff (absent when the backend does not say)",
  ),
});

const OnlyRow = z.object({ name: z.string(), start: Hex, size: z.number(), blocks: z.number() });

export const diffDatabasesSpec = defineTool({
  name: "diff_databases",
  description: "Compare the functions of two open databases (e.g. two versions of a binary): " +
    "changed, deleted and new functions, with similarity and evidence.\n" +
    "list picks the part: `changed` (matched but not identical, most changed first; default), " +
    "`matched` (every pair, in a's address order), `only_a` (gone in b) or `only_b` (new in " +
    "b). Totals and the pairs each matching round found come with every page. Works across " +
    "backends.\n" +
    "Rounds run from the most certain to the least: non-default names, masked instruction " +
    "bytes (bodies under 6 instructions later, and only where a matched caller, callee or " +
    "address-order neighbour places them), mnemonic sequence, strings, mnemonic multiset + CFG, imports + CFG, constants, CFG " +
    "shape, then callers/callees of matched pairs, position in the call graph (matched callers " +
    "and callees in common), address order between matched pairs and similarity, until nothing " +
    "new matches, then callees by the order their matched callers call them; a tie is never " +
    "guessed (identical duplicates are told apart only by their matched callers and callees, or " +
    "their places between matched pairs). Last, a pair of equal code that matched callers call " +
    "where the partners' callers call another function moves there (or is withdrawn when they " +
    "disagree), a pair whose matched callers and callees mostly " +
    "correspond to functions elsewhere is withdrawn and the structural rounds run once more; " +
    "then unmatched functions pair by their places between matched pairs in address order, by " +
    "their places in function-pointer tables lined up by matched pairs (backends that list " +
    "data pointers: the embedded one; a pair such a table contradicts moves to the function at " +
    "its slot, or is withdrawn), and by call-graph position once more (not with matching " +
    "broad). Paged " +
    "(offset/limit, default 50); filter is a regex over either " +
    "name. Results are cached until either database's annotations change. Follow up with " +
    "diff_function on a changed pair, or port_annotations.",
  input: z.strictObject({
    a: DatabaseId.describe("Database id of the old version"),
    b: DatabaseId.describe("Database id of the new version"),
    list: z.enum(["changed", "matched", "only_a", "only_b"]).optional().describe(
      "Which part to list (default changed)",
    ),
    min_similarity: z.number().min(0).max(1).optional().describe(
      "List only pairs at least this similar (changed/matched)",
    ),
    filter: z.string().max(500).optional().describe("Case-insensitive regex over names"),
    offset: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(1000).optional().describe("Default 50"),
    matching: z.enum(["precise", "broad"]).optional().describe(
      "precise (default) pairs functions only when their code or their place agrees clearly; " +
        "broad then also pairs by matched callers and callees alone (two in common, mutual " +
        "best) and withdraws nothing: across compilers or optimisation levels it finds more " +
        "pairs, more of them wrong",
    ),
    features: z.enum(["auto", "portable"]).optional().describe(
      "auto (default) uses the backend's bulk feature tool when it has one; portable reads " +
        "through the tools every backend shares (slower)",
    ),
  }),
  output: z.object({
    a: SideOut,
    b: SideOut,
    totals: z.object({
      matched: z.number(),
      identical: z.number(),
      changed: z.number(),
      only_a: z.number(),
      only_b: z.number(),
    }),
    rounds: z.array(z.object({ round: z.string(), matched: z.number() })),
    list: z.string(),
    items: z.array(z.union([PairRow, OnlyRow])),
    total: z.number(),
    offset: z.number(),
    limit: z.number(),
    has_more: z.boolean(),
    next_offset: z.number().optional(),
    seconds: z.number(),
    cached: z.boolean(),
    truncated: z.boolean().optional(),
    warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
  }),
  annotations: READ_ONLY,
  tags: ["diff", "functions"],
});

/** A matched pair as results show it. */
export function pairRow(fa: FunctionFeatures, fb: FunctionFeatures, sim: number, round: string) {
  return {
    a_name: fa.name,
    a_start: hex(fa.start),
    b_name: fb.name,
    b_start: hex(fb.start),
    similarity: sim,
    round,
    evidence: evidenceOf(fa, fb),
    a_size: fa.size,
    b_size: fb.size,
    a_blocks: fa.blocks,
    b_blocks: fb.blocks,
  };
}

const onlyRow = (f: FunctionFeatures) => ({
  name: f.name,
  start: hex(f.start),
  size: f.size,
  blocks: f.blocks,
});

/** Totals of a diff. */
export function totalsOf(d: Diff) {
  const same = d.result.matches.filter((m) => identical(d.a.features[m.a]!, d.b.features[m.b]!));
  return {
    matched: d.result.matches.length,
    identical: same.length,
    changed: d.result.matches.length - same.length,
    only_a: d.result.onlyA.length,
    only_b: d.result.onlyB.length,
  };
}

/** The handler, over the service the diff tools share. */
export function diffDatabasesHandler(service: DiffService): LocalHandler {
  return async (sup, args, ctx) => {
    const p = args as z.output<typeof diffDatabasesSpec.input>;
    const d = await service.diff(sup, p.a, p.b, ctx, p.features ?? "auto", p.matching);
    const re = compileFilter(p.filter);
    const fa = d.a.features;
    const fb = d.b.features;
    const list = p.list ?? "changed";
    const paging = { offset: p.offset, limit: p.limit ?? 50 };
    let page;
    if (list === "only_a" || list === "only_b") {
      const fs = list === "only_a" ? fa : fb;
      const idx = list === "only_a" ? d.result.onlyA : d.result.onlyB;
      const kept = idx.map((i) => fs[i]!).filter((f) => !re || re.test(f.name))
        .sort((x, y) => x.start - y.start);
      page = pageOf(kept, paging, onlyRow);
    } else {
      let pairs = d.result.matches.filter((m) =>
        (!re || re.test(fa[m.a]!.name) || re.test(fb[m.b]!.name)) &&
        (p.min_similarity === undefined || m.similarity >= p.min_similarity)
      );
      if (list === "changed") {
        pairs = pairs.filter((m) => !identical(fa[m.a]!, fb[m.b]!))
          .sort((x, y) => x.similarity - y.similarity || fa[x.a]!.start - fa[y.a]!.start);
      } else {
        pairs = [...pairs].sort((x, y) => fa[x.a]!.start - fa[y.a]!.start);
      }
      page = pageOf(pairs, paging, (m) => pairRow(fa[m.a]!, fb[m.b]!, m.similarity, m.round));
    }
    return {
      a: sideOut(d.a),
      b: sideOut(d.b),
      totals: totalsOf(d),
      rounds: roundsOf(d),
      list,
      ...page,
      seconds: d.seconds,
      cached: d.cached,
    };
  };
}

function sideOut(s: Side) {
  return {
    database: s.database,
    functions: s.features.length,
    ...(s.computed !== undefined ? { features_computed: s.computed } : {}),
  };
}

/** Pairs per matching round, in the order the rounds first matched something. */
function roundsOf(d: Diff) {
  const by = new Map<string, number>();
  for (const m of d.result.matches) by.set(m.round, (by.get(m.round) ?? 0) + 1);
  return [...by].map(([round, matched]) => ({ round, matched }));
}
