/** Specs: cross-references. */
import { z } from "zod";
import { Address, Hex, PageInput, pageOutput } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";

/** One cross-reference. */
export const XrefItem = z.object({
  from: Hex,
  to: Hex,
  type: z.enum(["call", "jump", "read", "write", "offset", "string"]),
  function: z.string().optional().describe("Function containing `from`"),
  to_name: z.string().optional(),
  instruction: z.string().optional(),
});

export const xrefsTo = defineTool({
  name: "xrefs_to",
  description: "List references to an address (calls, jumps, data reads/writes, pointers), " +
    "each with the referencing function and instruction. Paged.",
  input: z.strictObject({
    address: Address,
    type: z.enum(["code", "data", "any"]).optional(),
    ...PageInput,
  }),
  output: pageOutput(XrefItem),
  annotations: READ_ONLY,
  tags: ["xrefs"],
  pinned: true,
});

export const xrefsFrom = defineTool({
  name: "xrefs_from",
  description: "List references made from an address or, when it is a function start, from " +
    "the whole function. Paged.",
  input: z.strictObject({
    address: Address,
    type: z.enum(["code", "data", "any"]).optional(),
    ...PageInput,
  }),
  output: pageOutput(XrefItem),
  annotations: READ_ONLY,
  tags: ["xrefs"],
  pinned: true,
});

export const findCodeByString = defineTool({
  name: "find_code_by_string",
  description: "Find the functions and instructions that use strings matching a regex. Paged.",
  input: z.strictObject({
    pattern: z.string().min(1).max(500).describe("Case-insensitive regex over string text"),
    ...PageInput,
  }),
  output: pageOutput(z.object({
    string_address: Hex,
    text: z.string(),
    from: Hex,
    function: z.string().optional(),
    function_start: Hex.optional(),
  })),
  annotations: READ_ONLY,
  tags: ["xrefs", "strings"],
  pinned: true,
});
