/** `diff_function`: block- and instruction-level diff of one function in two databases. */
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import { defineTool, READ_ONLY } from "../protocol/catalog/spec.ts";
import { Address, Hex } from "../protocol/params.ts";
import { hex } from "../protocol/paging.ts";
import type { LocalHandler } from "../supervisor/host.ts";
import { matchBlocks } from "./blocks.ts";
import { callerFor, type ToolCaller } from "./gather.ts";
import { readFunction } from "./function_view.ts";
import { diffLines, lineSimilarity, renderDiff } from "./text_diff.ts";

const DatabaseId = z.string().min(1).max(128);

const BlockRow = z.object({ start: Hex, end: Hex, instructions: z.number(), text: z.string() });

export const diffFunctionSpec = defineTool({
  name: "diff_function",
  description: "Diff one function between two open databases: identical, changed, added " +
    "and removed basic blocks, with instruction-level diffs of the changed ones.\n" +
    "Blocks are matched entry to entry, equal blocks, then along CFG edges and by " +
    "similarity. In diffs, lines starting - are only in a, + only in b; addresses that merely " +
    "moved read as names or <func>/<data>/<local>. With a decompiler on both sides, also a " +
    "pseudo-C diff. Take the pair from diff_databases (a_start, b_start).",
  input: z.strictObject({
    a: DatabaseId.describe("Database id of the old version"),
    a_function: Address.describe("Function in a (address or name)"),
    b: DatabaseId.describe("Database id of the new version"),
    b_function: Address.describe("Function in b (address or name)"),
  }),
  output: z.object({
    a: z.object({ name: z.string(), start: Hex, blocks: z.number(), instructions: z.number() }),
    b: z.object({ name: z.string(), start: Hex, blocks: z.number(), instructions: z.number() }),
    similarity: z.number().describe("Share of instruction lines in common"),
    totals: z.object({
      identical: z.number(),
      changed: z.number(),
      added: z.number(),
      removed: z.number(),
    }),
    changed: z.array(z.object({
      a_start: Hex,
      b_start: Hex,
      similarity: z.number(),
      diff: z.string(),
    })),
    identical: z.array(z.object({ a_start: Hex, b_start: Hex })),
    added: z.array(BlockRow),
    removed: z.array(BlockRow),
    pseudo_c: z.object({ engine: z.string(), diff: z.string() }).optional(),
    truncated: z.boolean().optional(),
    warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
  }),
  annotations: READ_ONLY,
  tags: ["diff", "functions", "cfg"],
});

/** The pseudo-C diff when both backends decompile, else why not. */
async function pseudoC(callA: ToolCaller, a: string, callB: ToolCaller, b: string) {
  try {
    const [da, db] = await Promise.all([
      callA("decompile_function", { address: a }),
      callB("decompile_function", { address: b }),
    ]);
    const lines = (o: Record<string, unknown>) => String(o.code).split("\n");
    return {
      value: {
        engine: `${da.engine}` === `${db.engine}` ? `${da.engine}` : `${da.engine} / ${db.engine}`,
        diff: renderDiff(diffLines(lines(da), lines(db))),
      },
    };
  } catch (err) {
    if (err instanceof RemcpError && err.code === "Unsupported") {
      return {
        warning: {
          code: "no_decompiler",
          message: "No pseudo-C diff: a backend of a or b has no decompiler (" + err.message +
            ")",
        },
      };
    }
    throw err;
  }
}

export const diffFunctionHandler: LocalHandler = async (sup, args, ctx) => {
  const p = args as z.output<typeof diffFunctionSpec.input>;
  const callA = callerFor(sup, p.a, ctx);
  const callB = callerFor(sup, p.b, ctx);
  const [fa, fb] = await Promise.all([
    readFunction(callA, String(p.a_function)),
    readFunction(callB, String(p.b_function)),
  ]);
  const m = matchBlocks(fa.blocks, fb.blocks);
  const row = (blk: (typeof fa.blocks)[number]) => ({
    start: hex(blk.start),
    end: hex(blk.end),
    instructions: blk.lines.length,
    text: blk.lines.join("\n"),
  });
  const changed = [];
  const identical = [];
  for (const pr of m.pairs) {
    const ba = fa.blocks[pr.a]!;
    const bb = fb.blocks[pr.b]!;
    if (ba.lines.join("\n") === bb.lines.join("\n")) {
      identical.push({ a_start: hex(ba.start), b_start: hex(bb.start) });
    } else {
      changed.push({
        a_start: hex(ba.start),
        b_start: hex(bb.start),
        similarity: pr.similarity,
        diff: renderDiff(diffLines(ba.lines, bb.lines), 100),
      });
    }
  }
  const all = (f: typeof fa) => f.blocks.flatMap((b) => b.lines);
  const pc = await pseudoC(callA, hex(fa.start), callB, hex(fb.start));
  const count = (f: typeof fa) => ({
    name: f.name,
    start: hex(f.start),
    blocks: f.blocks.length,
    instructions: f.blocks.reduce((n, b) => n + b.lines.length, 0),
  });
  return {
    a: count(fa),
    b: count(fb),
    similarity: Math.round(lineSimilarity(all(fa), all(fb)) * 1000) / 1000,
    totals: {
      identical: identical.length,
      changed: changed.length,
      added: m.onlyB.length,
      removed: m.onlyA.length,
    },
    changed,
    identical,
    added: m.onlyB.map((j) => row(fb.blocks[j]!)),
    removed: m.onlyA.map((i) => row(fa.blocks[i]!)),
    ...(pc.value ? { pseudo_c: pc.value } : {}),
    ...(pc.warning ? { warnings: [pc.warning] } : {}),
  };
};
