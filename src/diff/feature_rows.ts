/**
 * The embedded backend's bulk feature transfer for diff_databases: every function's features in
 * one internal call, as one string of JSON rows (arrays, not keyed objects, and numbers for
 * addresses). The public function_features pages through the output cap with hex strings and
 * keyed objects — about 60 calls and as many serialise/parse rounds for a 5 MB binary — which
 * made reading features cost more than matching them. The rows travel as the result's text, not
 * inside its structured content (`textField` of workers/backend.ts): once on the wire instead of
 * twice, each time escaped into a JSON string, and parsed once by the supervisor.
 */
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import { defineTool, READ_ONLY } from "../protocol/catalog/spec.ts";
import type { FunctionFeatures } from "./features.ts";

/** `_function_features`: internal, never listed to clients nor capped (only the supervisor calls it). */
export const featureRowsSpec = defineTool({
  name: "_function_features",
  description: "Internal: every function's diffing features in one result, as JSON rows.",
  input: z.strictObject({}),
  output: z.object({
    functions: z.number().int(),
    /** Version of the row layout: a supervisor and a worker of different versions fall back. */
    layout: z.number().int(),
    /** JSON rows; sent as the result's text (see the module comment). */
    rows: z.string(),
    /** Functions whose features this call computed; the rest were kept or stored earlier. */
    computed: z.number().int(),
    /**
     * [slot, function start] for every pointer-sized data slot holding a function's start, in
     * slot order (the function-pointer tables round of the matcher); absent when the backend
     * cannot tell.
     */
    pointers: z.array(z.array(z.number()).length(2)).optional(),
  }),
  annotations: READ_ONLY,
  tags: ["internal"],
});

/** Bumped whenever the row layout changes (2: the rows travel as the result's text). */
export const ROW_LAYOUT = 2;

type Row = [
  name: string,
  start: number,
  size: number,
  instructions: number,
  blocks: number,
  edges: number,
  loops: number,
  bytes_hash: string,
  mnem_hash: string,
  mnem_set_hash: string,
  cfg_sig: string,
  histogram: number[],
  strings: string[],
  imports: string[],
  constants: number[],
  callees: number[],
];

/** Features as the rows string of `_function_features`. */
export function encodeRows(fs: readonly FunctionFeatures[]): string {
  return JSON.stringify(fs.map((f): Row => [
    f.name,
    f.start,
    f.size,
    f.instructions,
    f.blocks,
    f.edges,
    f.loops,
    f.bytes_hash,
    f.mnem_hash,
    f.mnem_set_hash,
    f.cfg_sig,
    f.histogram,
    f.strings,
    f.imports,
    f.constants,
    f.callees,
  ]));
}

/** The features a rows string of layout {@link ROW_LAYOUT} holds. */
export function decodeRows(rows: string): FunctionFeatures[] {
  const parsed: unknown = JSON.parse(rows);
  if (!Array.isArray(parsed) || parsed.some((r) => !Array.isArray(r) || r.length !== 16)) {
    throw new RemcpError("Internal", "_function_features returned rows of an unknown layout", {});
  }
  return (parsed as Row[]).map((r) => ({
    name: r[0],
    start: r[1],
    size: r[2],
    instructions: r[3],
    blocks: r[4],
    edges: r[5],
    loops: r[6],
    bytes_hash: r[7],
    mnem_hash: r[8],
    mnem_set_hash: r[9],
    cfg_sig: r[10],
    histogram: r[11],
    strings: r[12],
    imports: r[13],
    constants: r[14],
    callees: r[15],
  }));
}
