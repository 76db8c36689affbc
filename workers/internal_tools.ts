/**
 * Tools every worker serves for its supervisor (names start with `_`, never shown to clients):
 * analysis status and save.
 */
import { z } from "zod";
import { defineTool, READ_ONLY, STATEFUL } from "../src/protocol/catalog/spec.ts";
import { WorkerStatusSchema } from "../src/protocol/worker_status.ts";
import { type Backend, impl, type ToolImpl } from "./backend.ts";

/** `_status`: the worker's analysis state. */
export const statusSpec = defineTool({
  name: "_status",
  description: "Internal: analysis status of this worker's database.",
  input: z.strictObject({}),
  output: WorkerStatusSchema,
  annotations: READ_ONLY,
  tags: ["internal"],
});

/** `_save`: flush annotations. */
export const saveSpec = defineTool({
  name: "_save",
  description: "Internal: save this worker's database.",
  input: z.strictObject({}),
  output: z.object({ saved: z.boolean(), path: z.string().optional() }),
  annotations: STATEFUL,
  tags: ["internal"],
});

/** `_open`: give a standby worker its file (the supervisor keeps one ready to save a start). */
export const openSpec = defineTool({
  name: "_open",
  description: "Internal: open this standby worker's file.",
  input: z.strictObject({
    path: z.string().min(1),
    options: z.record(z.string(), z.unknown()),
  }),
  output: z.object({ opened: z.boolean() }),
  annotations: STATEFUL,
  tags: ["internal"],
});

/** The `_open` tool of a standby worker. */
export function openTool(open: (path: string, options: Record<string, unknown>) => void): ToolImpl {
  return impl(openSpec, (args) => {
    open(args.path, args.options);
    return { opened: true };
  }, { duringAnalysis: true });
}

/** The internal tools bound to `backend`. */
export function internalTools(backend: Backend): ToolImpl[] {
  return [
    impl(statusSpec, () => ({ ...backend.status() }), { duringAnalysis: true }),
    impl(saveSpec, () => backend.save(), { duringAnalysis: true }),
  ];
}
