/** `call`: run any tool by name, hidden ones included. */
import { z } from "zod";
import { resultValue } from "../protocol/results.ts";
import { defineTool, OPEN_WORLD } from "../protocol/catalog/spec.ts";
import type { LocalHandler } from "../supervisor/host.ts";

export const callSpec = defineTool({
  name: "call",
  description: "Call any analysis tool by name — including tools not listed — with its " +
    "arguments; returns that tool's result unchanged.\n" +
    "Find tools with search_tools and their parameters with get_schema. Management and meta " +
    "tools are called directly, not through call.",
  input: z.strictObject({
    name: z.string().min(1).max(64),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
  output: z.looseObject({}),
  // What `call` does depends on the tool it runs; the strictest hints apply.
  annotations: OPEN_WORLD,
  tags: ["meta"],
});

export const callHandler: LocalHandler = async (sup, args, ctx) => {
  const a = args as z.output<typeof callSpec.input>;
  const result = await sup.callTool(a.name, a.arguments ?? {}, { ...ctx, via: "call" });
  return resultValue(result, a.name);
};
