/**
 * Compact serialization of an analysis for the cache: JSON with every table flattened into
 * number arrays (no per-object keys), so a reopen parses a few flat arrays instead of
 * re-running discovery. Instructions are not stored; they are decoded again on demand.
 */

import type { BinaryImage } from "../formats/image.ts";
import { Analysis } from "./analysis.ts";
import {
  ANALYSIS_VERSION,
  type AnalysisData,
  type Edge,
  FUNCTION_FLAGS,
  type FunctionFlag,
  type FunctionInfo,
  type FunctionSource,
  type NameEntry,
  type StringInfo,
  type XrefKind,
} from "./types.ts";

const SOURCES: FunctionSource[] = [
  "symbol",
  "export",
  "import",
  "exception_table",
  "entry",
  "call",
  "tail_jump",
  "code_pointer",
  "data_pointer",
  "prologue",
  "gap",
];
const FLAGS: readonly FunctionFlag[] = FUNCTION_FLAGS;
const EDGE_KINDS: Edge["kind"][] = ["true", "false", "jump", "fall", "case", "tail"];
const XREF_KINDS: XrefKind[] = ["call", "jump", "read", "write", "offset", "string"];
const NAME_KINDS: NameEntry["kind"][] = [
  "function",
  "import",
  "import_slot",
  "symbol",
  "string",
  "label",
  "object",
];
const ENCODINGS: StringInfo["encoding"][] = ["ascii", "utf8", "utf16le"];

/** The stored form; tuples keep the JSON small and fast to parse. */
interface Stored {
  v: number;
  arch: string;
  sec: number;
  /** [start, end, name, source, flagBits, blocks (start,end)*, chunks (start,end)*, edges (from,to,kind,value)*] */
  f: [number, number, string, number, number, number[], number[], number[]][];
  /** (from, to, kind)* */
  x: number[];
  /** [address, size, encoding, text, section] */
  s: [number, number, number, string, string][];
  /** (address, kind)* with names in `nn` */
  n: number[];
  nn: string[];
}

/** Encode an analysis for the cache. */
export function serializeAnalysis(a: Analysis): Uint8Array {
  const d = a.data;
  const stored: Stored = {
    v: d.version,
    arch: d.arch,
    sec: d.seconds,
    f: d.functions.map((f) => [
      f.start,
      f.end,
      f.name,
      SOURCES.indexOf(f.source),
      f.flags.reduce((bits, fl) => bits | (1 << FLAGS.indexOf(fl)), 0),
      f.blocks.flatMap((b) => [b.start, b.end]),
      f.chunks.flatMap((c) => [c.start, c.end]),
      f.edges.flatMap((e) => [e.from, e.to, EDGE_KINDS.indexOf(e.kind), e.value ?? -1]),
    ]),
    x: d.xrefs.flatMap((x) => [x.from, x.to, XREF_KINDS.indexOf(x.kind)]),
    s: d.strings.map((s) => [s.address, s.size, ENCODINGS.indexOf(s.encoding), s.text, s.section]),
    n: d.names.flatMap((n) => [n.address, NAME_KINDS.indexOf(n.kind)]),
    nn: d.names.map((n) => n.name),
  };
  return new TextEncoder().encode(JSON.stringify(stored));
}

/**
 * Decode what {@link serializeAnalysis} wrote, for `image`. Throws `TypeError` on bytes of
 * another version or shape: the caller then analyses again.
 */
export function deserializeAnalysis(bytes: Uint8Array, image: BinaryImage): Analysis {
  const s = JSON.parse(new TextDecoder().decode(bytes)) as Stored;
  if (typeof s !== "object" || s === null || s.v !== ANALYSIS_VERSION || !Array.isArray(s.f)) {
    throw new TypeError("Cannot read cached analysis: unknown version");
  }
  const functions: FunctionInfo[] = s.f.map(([start, end, name, src, bits, b, c, e]) => {
    const blocks = [];
    for (let i = 0; i < b.length; i += 2) blocks.push({ start: b[i]!, end: b[i + 1]! });
    const chunks = [];
    for (let i = 0; i < c.length; i += 2) chunks.push({ start: c[i]!, end: c[i + 1]! });
    const edges: Edge[] = [];
    for (let i = 0; i < e.length; i += 4) {
      const edge: Edge = { from: e[i]!, to: e[i + 1]!, kind: EDGE_KINDS[e[i + 2]!]! };
      if (e[i + 3]! >= 0) edge.value = e[i + 3]!;
      edges.push(edge);
    }
    return {
      start,
      end,
      name,
      source: SOURCES[src]!,
      flags: FLAGS.filter((_, i) => (bits & (1 << i)) !== 0),
      blocks,
      chunks,
      edges,
    };
  });
  const xrefs = [];
  for (let i = 0; i < s.x.length; i += 3) {
    xrefs.push({ from: s.x[i]!, to: s.x[i + 1]!, kind: XREF_KINDS[s.x[i + 2]!]! });
  }
  const names: NameEntry[] = s.nn.map((name, i) => ({
    address: s.n[2 * i]!,
    name,
    kind: NAME_KINDS[s.n[2 * i + 1]!]!,
  }));
  const data: AnalysisData = {
    version: s.v,
    arch: s.arch,
    functions,
    xrefs,
    strings: s.s.map(([address, size, enc, text, section]) => ({
      address,
      size,
      encoding: ENCODINGS[enc]!,
      text,
      section,
    })),
    names,
    seconds: s.sec,
  };
  return new Analysis(data, image);
}
