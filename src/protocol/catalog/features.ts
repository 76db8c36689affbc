/** Spec: per-function diffing features in bulk (what diff_databases reads from a backend). */
import { z } from "zod";
import { FilteredPageInput, Hex, pageOutput } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";

/** One function's features as function_features lists them. */
export const FeatureItem = z.object({
  name: z.string(),
  start: Hex,
  size: z.number(),
  instructions: z.number(),
  blocks: z.number(),
  edges: z.number(),
  loops: z.number(),
  bytes_hash: z.string().describe("Instruction bytes with addresses masked"),
  mnem_hash: z.string().describe("Mnemonic and operand-kind sequence"),
  mnem_set_hash: z.string().describe("Mnemonic multiset (order-free)"),
  cfg_sig: z.string().describe(
    "blocks.edges.loops.hash of the block counts per (in, out)-degree class (a small-primes product, exactly)",
  ),
  histogram: z.array(z.number()),
  strings: z.array(z.string()),
  imports: z.array(z.string()),
  constants: z.array(z.number()),
  callees: z.array(Hex),
});

export const functionFeatures = defineTool({
  name: "function_features",
  description: "List every function's diffing features: hashes of its masked instruction " +
    "bytes, mnemonic sequence and mnemonic multiset, CFG signature, mnemonic histogram, " +
    "referenced strings, imports and constants, and callees. Paged, in address order; filter " +
    "is a regex over names.\nWith pointers=true the result also lists `pointers`: the " +
    "pointer-sized data slots that hold the start of one of the page's functions (from relocations in a " +
    "position-independent file, from the data itself otherwise), which diff_databases uses to " +
    "pair functions at the same place of two function-pointer tables. A backend that cannot " +
    "tell leaves `pointers` out, and that round then pairs nothing.\n" +
    "Used by diff_databases; call that instead to compare two binaries.",
  input: z.strictObject({
    ...FilteredPageInput,
    pointers: z.boolean().optional().describe(
      "Also list the data slots holding the starts of this page's functions",
    ),
  }),
  output: pageOutput(FeatureItem).extend({
    pointers: z.array(z.array(Hex).length(2)).optional().describe(
      "[slot, function start] for every pointer-sized data slot holding the start of one of " +
        "this page's functions, in slot order (only with pointers=true, and only from backends that can tell)",
    ),
  }),
  annotations: READ_ONLY,
  tags: ["functions", "diff"],
});
