/** `batch`: up to 100 tool calls in order, with per-item results and progress. */
import { z } from "zod";
import { defineTool, OPEN_WORLD } from "../protocol/catalog/spec.ts";
import { toErrorPayload } from "../errors.ts";
import { byteLength, resultError, resultValue } from "../protocol/results.ts";
import type { LocalHandler } from "../supervisor/host.ts";

export const batchSpec = defineTool({
  name: "batch",
  description: "Run up to 100 analysis tool calls in order in one request; each item reports " +
    "its result or its error. stop_on_error ends the batch at the first failure.\n" +
    "For logic between calls (loops, filtering), use execute instead.",
  input: z.strictObject({
    calls: z.array(z.strictObject({
      tool: z.string().min(1).max(64),
      arguments: z.record(z.string(), z.unknown()).optional(),
    })).min(1).max(100),
    stop_on_error: z.boolean().optional(),
  }),
  output: z.object({
    results: z.array(z.object({
      index: z.number(),
      tool: z.string(),
      result: z.record(z.string(), z.unknown()).optional(),
      error: z.object({
        error: z.string(),
        error_type: z.string(),
        detail: z.record(z.string(), z.unknown()),
      }).optional(),
    })),
    completed: z.number(),
    failed: z.number(),
    stopped: z.boolean(),
    truncated: z.boolean().optional(),
  }),
  annotations: OPEN_WORLD,
  tags: ["meta"],
});

type Item = {
  index: number;
  tool: string;
  result?: Record<string, unknown>;
  error?: { error: string; error_type: string; detail: Record<string, unknown> };
};

export const batchHandler: LocalHandler = async (sup, args, ctx) => {
  const a = args as z.output<typeof batchSpec.input>;
  const results: Item[] = [];
  let failed = 0;
  let stopped = false;
  for (const [index, c] of a.calls.entries()) {
    if (ctx.signal.aborted) {
      stopped = true;
      break;
    }
    ctx.progress(index, a.calls.length, `${c.tool} (${index + 1}/${a.calls.length})`);
    const r = await sup.callTool(c.tool, c.arguments ?? {}, { ...ctx, via: "batch" });
    if (r.isError) {
      failed++;
      results.push({ index, tool: c.tool, error: toErrorPayload(resultError(r, c.tool)) });
      if (a.stop_on_error) {
        stopped = true;
        break;
      }
    } else {
      results.push({ index, tool: c.tool, result: resultValue(r, c.tool) });
    }
  }
  ctx.progress(a.calls.length, a.calls.length, "done");
  const out: Record<string, unknown> = {
    results,
    completed: results.length - failed,
    failed,
    stopped,
  };
  return shrinkToCap(out, results, sup.config.maxOutputBytes);
};

// Each item already obeys the cap; together they may not. Replace the largest results by an
// OutputTooLarge error until the whole fits, so the caller sees which ones to redo alone.
function shrinkToCap(out: Record<string, unknown>, results: Item[], max: number) {
  let size = byteLength(JSON.stringify(out));
  if (size <= max) return out;
  const bySize = results
    .filter((r) => r.result)
    .map((r) => ({ r, bytes: byteLength(JSON.stringify(r.result)) }))
    .sort((x, y) => y.bytes - x.bytes);
  for (const { r, bytes } of bySize) {
    if (size <= max) break;
    delete r.result;
    r.error = {
      error: `This result (${bytes} bytes) did not fit in the batch's output cap: call ` +
        `${r.tool} on its own`,
      error_type: "OutputTooLarge",
      detail: { bytes },
    };
    size = byteLength(JSON.stringify(out));
  }
  out.truncated = true;
  return out;
}
