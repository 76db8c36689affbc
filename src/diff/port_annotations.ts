/**
 * `port_annotations`: carry names, comments, prototypes and bookmarks from one database to
 * another through the function matches of diff_databases, writing with the target's own
 * annotation tools so every change is journaled and undoable there.
 */
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import { ANNOTATE, defineTool } from "../protocol/catalog/spec.ts";
import { Hex } from "../protocol/params.ts";
import { hex } from "../protocol/paging.ts";
import type { LocalHandler } from "../supervisor/host.ts";
import type { FunctionFeatures } from "./features.ts";
import { callerFor, type ToolCaller } from "./gather.ts";
import type { DiffService } from "./service.ts";
import { identical } from "./similarity.ts";
import { matchBlocks } from "./blocks.ts";
import { readFunction } from "./function_view.ts";
import { diffLines } from "./text_diff.ts";

const DatabaseId = z.string().min(1).max(128);
const KINDS = ["name", "comment", "prototype", "bookmark"] as const;
type Kind = typeof KINDS[number];

const Item = z.object({
  kind: z.enum(KINDS),
  from_address: Hex,
  to_address: Hex.optional(),
  value: z.string(),
  status: z.enum(["carried", "unchanged", "skipped", "unmatched"]),
  reason: z.string().optional(),
});

export const portAnnotationsSpec = defineTool({
  name: "port_annotations",
  description: "Carry names, comments, prototypes and bookmarks from one open database to " +
    "another (e.g. to a new build) through matched functions; journaled and undoable there.\n" +
    "Matches come from diff_databases. An annotation inside a function lands on the matching " +
    "instruction (same offset in an identical function, else through the matched blocks). " +
    "Each write goes through the target's own tools: `undo` in `to` reverts one change at a " +
    "time (`changes` says how many). Reports each annotation as carried, unchanged (already " +
    "there), skipped (a different annotation is already there, or the write was refused) or " +
    "unmatched (no match at min_similarity, or no matching instruction). dry_run reports " +
    "without writing.",
  input: z.strictObject({
    from: DatabaseId.describe("Database id holding the annotations"),
    to: DatabaseId.describe("Database id to annotate"),
    min_similarity: z.number().min(0).max(1).optional().describe(
      "Least similarity of a function match to carry through (default 0.5)",
    ),
    dry_run: z.boolean().optional().describe("Report what would be carried; write nothing"),
    limit: z.number().int().min(0).max(5000).optional().describe(
      "Most report items to return (default 200; the counts cover all)",
    ),
  }),
  output: z.object({
    from: z.string(),
    to: z.string(),
    dry_run: z.boolean(),
    carried: z.number(),
    unchanged: z.number(),
    skipped: z.number(),
    unmatched: z.number(),
    changes: z.number().describe("Journal entries written in `to` (undo reverts them one each)"),
    items: z.array(Item),
    items_total: z.number(),
    truncated: z.boolean().optional(),
    warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
  }),
  annotations: ANNOTATE,
  tags: ["diff", "annotations"],
});

type Annotation = { kind: Kind; address: number; value: string };
type Row = z.infer<typeof Item>;

/** The user annotations of a database, from export_annotations (or user names alone). */
async function annotationsOf(
  call: ToolCaller,
): Promise<{ list: Annotation[]; complete: boolean }> {
  try {
    const doc = JSON.parse(String((await call("export_annotations", { format: "json" })).document));
    const list: Annotation[] = [];
    const add = (kind: Kind, rows: Record<string, string>[], field: string) => {
      for (const r of rows ?? []) {
        list.push({ kind, address: Number(r.address), value: String(r[field]) });
      }
    };
    add("name", doc.names, "name");
    add("comment", doc.comments, "comment");
    add("prototype", doc.prototypes, "prototype");
    add("bookmark", doc.bookmarks, "note");
    return { list, complete: true };
  } catch (err) {
    if (!(err instanceof RemcpError && err.code === "Unsupported")) throw err;
  }
  const list: Annotation[] = [];
  let offset = 0;
  for (;;) {
    const page = await call("list_functions", { offset, limit: 10_000 });
    for (const f of page.items as { name: string; start: string; flags: string[] }[]) {
      if (f.flags.includes("user_named")) {
        list.push({ kind: "name", address: Number(f.start), value: f.name });
      }
    }
    if (page.has_more !== true || typeof page.next_offset !== "number") break;
    offset = page.next_offset;
  }
  return { list, complete: false };
}

/** The function of `fs` (sorted by start) whose extent holds `address`. */
function containing(fs: FunctionFeatures[], address: number): number | undefined {
  let lo = 0;
  let hi = fs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fs[mid]!.start <= address) lo = mid + 1;
    else hi = mid;
  }
  const i = lo - 1;
  const f = fs[i];
  return f !== undefined && address < f.start + Math.max(f.size, 1) ? i : undefined;
}

/** Maps instruction addresses of one function to its match through matched blocks. */
async function instructionMap(
  callFrom: ToolCaller,
  callTo: ToolCaller,
  from: number,
  to: number,
): Promise<Map<number, number>> {
  const [fa, fb] = await Promise.all([
    readFunction(callFrom, hex(from)),
    readFunction(callTo, hex(to)),
  ]);
  const out = new Map<number, number>();
  for (const p of matchBlocks(fa.blocks, fb.blocks).pairs) {
    const ba = fa.blocks[p.a]!;
    const bb = fb.blocks[p.b]!;
    let i = 0;
    let j = 0;
    for (const l of diffLines(ba.lines, bb.lines)) {
      if (l.op === " ") out.set(ba.addresses[i++]!, bb.addresses[j++]!);
      else if (l.op === "-") i++;
      else j++;
    }
  }
  return out;
}

const WRITE: Record<Kind, (address: string, value: string) => [string, Record<string, unknown>]> = {
  name: (address, name) => ["rename", { address, name }],
  comment: (address, comment) => ["set_comment", { address, comment }],
  prototype: (address, prototype) => ["set_function_prototype", { address, prototype }],
  bookmark: (address, note) => ["add_bookmark", { address, note }],
};

/**
 * The default least similarity of a match whose annotations are carried. Over every pair of
 * bench/diff.ts (9,267 judged matches, 165 of them wrong, 0.982 precision) 0.5 carries 91.6% of
 * the right pairs at 0.988 precision; there is no knee: each 0.1 higher avoids one wrong name
 * per 10 (0.3 → 0.4), 14 (0.4 → 0.5) and 20 (0.5 → 0.6) right ones given up, and 0.99 takes
 * 0.55 and 12.6% of the right pairs. A pair below it is still listed by diff_databases, and
 * `min_similarity` moves it either way.
 */
const DEFAULT_MIN_SIMILARITY = 0.5;

/** The handler, over the service the diff tools share. */
export function portAnnotationsHandler(service: DiffService): LocalHandler {
  return async (sup, args, ctx) => {
    const p = args as z.output<typeof portAnnotationsSpec.input>;
    const minSim = p.min_similarity ?? DEFAULT_MIN_SIMILARITY;
    const dryRun = p.dry_run ?? false;
    const d = await service.diff(sup, p.from, p.to, ctx);
    const callFrom = callerFor(sup, p.from, ctx);
    const callTo = callerFor(sup, p.to, ctx);
    const [source, target] = await Promise.all([annotationsOf(callFrom), annotationsOf(callTo)]);
    const existing = new Map(target.list.map((t) => [`${t.kind}@${t.address}`, t.value]));
    const fa = [...d.a.features.keys()].sort((x, y) =>
      d.a.features[x]!.start - d.a.features[y]!.start
    );
    const sorted = fa.map((i) => d.a.features[i]!);
    const partner = new Map(d.result.matches.map((m) => [m.a, m]));
    const maps = new Map<number, Map<number, number>>();
    const rows: Row[] = [];
    let changes = 0;
    for (const ann of source.list.sort((x, y) => x.address - y.address)) {
      if (ctx.signal.aborted) throw new RemcpError("Cancelled", "port_annotations was cancelled");
      const base = { kind: ann.kind, from_address: hex(ann.address), value: ann.value };
      const k = containing(sorted, ann.address);
      const m = k === undefined ? undefined : partner.get(fa[k]!);
      if (k === undefined || m === undefined) {
        rows.push({ ...base, status: "unmatched", reason: "not inside a matched function" });
        continue;
      }
      if (m.similarity < minSim) {
        rows.push({
          ...base,
          status: "unmatched",
          reason: `match similarity ${m.similarity} is below min_similarity ${minSim}`,
        });
        continue;
      }
      const f = d.a.features[m.a]!;
      const g = d.b.features[m.b]!;
      let to: number | undefined;
      if (ann.address === f.start) to = g.start;
      else if (identical(f, g)) to = g.start + (ann.address - f.start);
      else {
        let map = maps.get(m.a);
        if (!map) {
          map = await instructionMap(callFrom, callTo, f.start, g.start);
          maps.set(m.a, map);
        }
        to = map.get(ann.address);
      }
      if (to === undefined) {
        rows.push({ ...base, status: "unmatched", reason: "no matching instruction in b" });
        continue;
      }
      const row = { ...base, to_address: hex(to) };
      const there = existing.get(`${ann.kind}@${to}`);
      if (there === ann.value) {
        rows.push({ ...row, status: "unchanged" });
        continue;
      }
      if (there !== undefined) {
        rows.push({ ...row, status: "skipped", reason: `conflict: already "${there}"` });
        continue;
      }
      if (!dryRun) {
        const [tool, a] = WRITE[ann.kind](hex(to), ann.value);
        try {
          await callTo(tool, a);
          changes++;
        } catch (err) {
          if (!(err instanceof RemcpError) || err.code === "Cancelled") throw err;
          rows.push({ ...row, status: "skipped", reason: err.message });
          continue;
        }
      }
      rows.push({ ...row, status: "carried" });
    }
    const count = (s: Row["status"]) => rows.filter((r) => r.status === s).length;
    const limit = p.limit ?? 200;
    const warnings = [];
    if (!target.complete) {
      warnings.push({
        code: "no_conflict_check",
        message: "The target backend cannot export annotations: only user names were checked " +
          "for conflicts",
      });
    }
    return {
      from: p.from,
      to: p.to,
      dry_run: dryRun,
      carried: count("carried"),
      unchanged: count("unchanged"),
      skipped: count("skipped"),
      unmatched: count("unmatched"),
      changes,
      items: rows.slice(0, limit),
      items_total: rows.length,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  };
}
