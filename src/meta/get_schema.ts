/** `get_schema`: JSON Schemas and the execute-side TypeScript declaration of tools. */
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import { defineTool, READ_ONLY } from "../protocol/catalog/spec.ts";
import { inputJsonSchema, outputJsonSchema } from "../protocol/validate.ts";
import type { LocalHandler } from "../supervisor/host.ts";
import { invokeSignature } from "./typings.ts";

export const getSchemaSpec = defineTool({
  name: "get_schema",
  description: "Get tools' input and output JSON Schemas, annotations, full descriptions, and " +
    "a TypeScript declaration of each as code inside execute calls it.",
  input: z.strictObject({
    names: z.array(z.string().min(1).max(64)).min(1).max(50).describe("Tool names"),
  }),
  output: z.object({
    items: z.array(z.object({
      name: z.string(),
      description: z.string(),
      input_schema: z.record(z.string(), z.unknown()),
      output_schema: z.record(z.string(), z.unknown()),
      annotations: z.record(z.string(), z.boolean()),
      typescript: z.string(),
    })),
  }),
  annotations: READ_ONLY,
  tags: ["meta"],
});

export const getSchemaHandler: LocalHandler = (sup, args) => {
  const a = args as z.output<typeof getSchemaSpec.input>;
  const items = a.names.map((name) => {
    const entry = sup.find(name);
    if (!entry || name.startsWith("_")) {
      throw new RemcpError("NotFound", `No tool named "${name}": use search_tools to find one`, {
        name,
      });
    }
    const input = sup.routedInput(entry);
    return {
      name,
      description: entry.spec.description,
      input_schema: inputJsonSchema(input),
      output_schema: outputJsonSchema(entry.spec.output),
      annotations: { ...entry.spec.annotations },
      typescript: invokeSignature(name, input, entry.spec.output),
    };
  });
  return Promise.resolve({ items });
};
