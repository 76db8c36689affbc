/** Specs: searching bytes, text and immediates. */
import { z } from "zod";
import { Address, Hex, PageInput, pageOutput } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";

const range = {
  start: Address.optional().describe("Search from here (default: image start)"),
  end: Address.optional().describe("Search up to here, exclusive (default: image end)"),
};

const hit = z.object({
  address: Hex,
  section: z.string().optional(),
  function: z.string().optional(),
  preview: z.string().optional(),
});

export const searchBytes = defineTool({
  name: "search_bytes",
  description: 'Search mapped memory for a hex byte pattern with "??" wildcards ' +
    '(e.g. "48 8b ?? 10"). Paged; results in address order.',
  input: z.strictObject({ pattern: z.string().min(2).max(1024), ...range, ...PageInput }),
  output: pageOutput(hit),
  annotations: READ_ONLY,
  tags: ["search", "bytes"],
});

export const searchText = defineTool({
  name: "search_text",
  description: "Search mapped memory for text, as ASCII/UTF-8 and as UTF-16LE. Paged.",
  input: z.strictObject({
    text: z.string().min(1).max(1024),
    case_sensitive: z.boolean().optional(),
    ...range,
    ...PageInput,
  }),
  output: pageOutput(hit.extend({ encoding: z.string() })),
  annotations: READ_ONLY,
  tags: ["search", "strings"],
});

export const searchImmediate = defineTool({
  name: "search_immediate",
  description: "Find instructions in code sections whose operands use an immediate or " +
    "displacement value (e.g. a magic constant). Paged.",
  input: z.strictObject({ value: z.union([z.number().int(), z.string()]), ...range, ...PageInput }),
  output: pageOutput(hit.extend({ instruction: z.string() })),
  annotations: READ_ONLY,
  tags: ["search", "code", "constants"],
});
