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
    "is a regex over names.\nUsed by diff_databases; call that instead to compare two binaries.",
  input: z.strictObject({ ...FilteredPageInput }),
  output: pageOutput(FeatureItem),
  annotations: READ_ONLY,
  tags: ["functions", "diff"],
});
