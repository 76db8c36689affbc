/**
 * `execute`: run model-written JavaScript in the QuickJS sandbox, where the only way out is
 * `await invoke(tool, args)`. Every invoke goes through the same routing, validation and output
 * cap as a direct call.
 */
import { z } from "zod";
import { defineTool, OPEN_WORLD } from "../protocol/catalog/spec.ts";
import type { LocalHandler } from "../supervisor/host.ts";
import { MAX_EXECUTE_SECONDS } from "../sandbox/limits.ts";
import { shrinkValue } from "../sandbox/shrink.ts";
import { runScript } from "./run_script.ts";

export const executeSpec = defineTool({
  name: "execute",
  description: "Run JavaScript in a sandbox that can call tools: `await invoke(name, args)` " +
    "returns a tool's result object (or throws an Error with .code and .detail). Returns the " +
    "value of the last expression or `return`, plus console output.\n" +
    "Use it to chain many calls in one round trip and return only what matters. `database` " +
    "is filled in from execute's argument unless args give one; Promise.all over databases " +
    "runs in parallel. No fetch, timers, files or imports. Limits: 64 MiB, timeout_s " +
    "(default 60, max 600), 10,000 invokes, 64 KiB of logs.",
  input: z.strictObject({
    code: z.string().min(1).max(1_000_000).describe("JavaScript; top-level await works"),
    database: z.string().min(1).max(128).optional().describe("Default database for invoke"),
    timeout_s: z.number().min(0.1).max(MAX_EXECUTE_SECONDS).optional(),
  }),
  output: z.object({
    result: z.unknown(),
    logs: z.string().optional(),
    invokes: z.number(),
    seconds: z.number(),
    truncated: z.boolean().optional(),
    warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
  }),
  annotations: OPEN_WORLD,
  tags: ["meta", "script", "pipeline"],
});

export const executeHandler: LocalHandler = async (sup, args, ctx) => {
  const a = args as z.output<typeof executeSpec.input>;
  // Results up to 16 MiB are cut to the output cap structurally, inside the sandbox, so a big
  // result never crosses to the supervisor; beyond 16 MiB the script is told to return less.
  const run = await runScript(sup, ctx, {
    code: a.code,
    database: a.database,
    timeoutMs: (a.timeout_s ?? 60) * 1000,
    fitResultBytes: sup.config.maxOutputBytes,
  });
  const notes: string[] = [...run.cut];
  // Leave room for logs and the envelope inside the output cap.
  const logs = run.logs.length > 0 ? run.logs : undefined;
  const budget = Math.max(1024, sup.config.maxOutputBytes - (logs?.length ?? 0) - 512);
  const result = shrinkValue(run.result ?? null, budget, notes);
  const out: Record<string, unknown> = {
    result,
    invokes: run.stats.invokes,
    seconds: Math.round(run.stats.wallMs) / 1000,
  };
  if (logs) out.logs = logs;
  if (notes.length > 0) {
    out.truncated = true;
    out.warnings = [{
      code: "truncated",
      message: `The result was cut to fit the output cap: ${notes.slice(0, 5).join("; ")}. ` +
        `Return less (aggregate or page inside the script)`,
    }];
  }
  return out;
};
