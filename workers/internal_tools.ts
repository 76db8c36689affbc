/**
 * Tools every worker serves for its supervisor (names start with `_`, never shown to clients):
 * analysis status and save.
 */
import { z } from "zod";
import { defineTool, READ_ONLY, STATEFUL } from "../src/protocol/catalog/spec.ts";
import { type Backend, impl, type ToolImpl } from "./backend.ts";

/** `_status`: the worker's analysis state. */
export const statusSpec = defineTool({
  name: "_status",
  description: "Internal: analysis status of this worker's database.",
  input: z.strictObject({}),
  output: z.object({
    state: z.string(),
    progress: z.number().optional(),
    message: z.string().optional(),
    seconds: z.number().optional(),
    error: z.object({
      error: z.string(),
      error_type: z.string(),
      detail: z.record(z.string(), z.unknown()),
    }).optional(),
  }),
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

/** The internal tools bound to `backend`. */
export function internalTools(backend: Backend): ToolImpl[] {
  return [
    impl(statusSpec, () => ({ ...backend.status() }), { duringAnalysis: true }),
    impl(saveSpec, () => backend.save(), { duringAnalysis: true }),
  ];
}
