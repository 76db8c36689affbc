/** Specs: imports, exports and names. */
import { z } from "zod";
import { FilteredPageInput, Hex, pageOutput } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";

export const listImports = defineTool({
  name: "list_imports",
  description: "List imported functions and data: name, library, ordinal, the address code " +
    "calls (PLT/stub) and the pointer slot (GOT/IAT). Paged; filter is a regex over " +
    "library!name.",
  input: z.strictObject({ ...FilteredPageInput }),
  output: pageOutput(z.object({
    name: z.string(),
    library: z.string().optional(),
    ordinal: z.number().optional(),
    address: Hex,
    slot: Hex.optional(),
    delay_load: z.boolean().optional(),
  })),
  annotations: READ_ONLY,
  tags: ["symbols", "imports", "overview"],
  pinned: true,
});

export const listExports = defineTool({
  name: "list_exports",
  description: "List exported symbols: name, address, ordinal, forwarder. Paged; filter is a " +
    "regex over names.",
  input: z.strictObject({ ...FilteredPageInput }),
  output: pageOutput(z.object({
    name: z.string(),
    address: Hex,
    ordinal: z.number().optional(),
    forwarder: z.string().optional(),
  })),
  annotations: READ_ONLY,
  tags: ["symbols", "exports"],
});

export const listNames = defineTool({
  name: "list_names",
  description: "List every named address (symbols, imports, exports, user names): name, " +
    "address, size, kind, source. Paged, sorted by address; filter is a regex over names.\n" +
    "Use it to find a symbol's address; names here are valid address expressions.",
  input: z.strictObject({
    ...FilteredPageInput,
    kind: z.enum(["function", "object", "other", "any"]).optional().describe(
      "Only this kind (default any)",
    ),
  }),
  output: pageOutput(z.object({
    name: z.string(),
    address: Hex,
    size: z.number(),
    kind: z.string(),
    source: z.string(),
  })),
  annotations: READ_ONLY,
  tags: ["symbols", "names"],
});
