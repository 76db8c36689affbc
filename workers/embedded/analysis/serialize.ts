/**
 * The analysis cache's format: typed-array columns for every table, so a reopen reads a big
 * binary's analysis as views on one buffer instead of parsing and rebuilding objects.
 *
 *   "RMCA" · u32 format · u32 header length · header (JSON: version, arch, seconds, row counts,
 *   whether addresses are wide, and the texts: function names, string texts, section names,
 *   other names) · padding to 8 · the columns of {@link COLUMNS} in order, each padded to 8
 *   bytes; addresses are u32 unless one of them needs more (then f64)
 *
 * Instructions are not stored; they are decoded again on demand. A function's blocks and edges
 * become objects only when something asks for them. Label names (`loc_…`) are not stored but
 * made again from their address.
 */

import type { BinaryImage } from "../formats/image.ts";
import { Analysis, type NameRows } from "./analysis.ts";
import { cfgCounts, ColumnFunction, eachBlock, eachEdge } from "./_cfg_columns.ts";
import {
  ANALYSIS_VERSION,
  type AnalysisData,
  type Chunk,
  FUNCTION_FLAGS,
  type FunctionFlag,
  type FunctionInfo,
  type FunctionSource,
  type NameEntry,
  type StringInfo,
} from "./types.ts";
import { XrefTable } from "./xref_table.ts";

const MAGIC = 0x41434d52; // "RMCA" little-endian
/** Bumped when the layout below changes; with {@link ANALYSIS_VERSION} it keys the cache. */
export const CACHE_FORMAT = 2;

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

/** `addr`: addresses, as u32 when every address of the analysis fits, else f64. */
type ColumnType = "addr" | "u32" | "i32" | "u16" | "u8";
type Counts = Record<"f" | "b" | "c" | "e" | "x" | "s" | "n", number>;

/** Every column: name, element type, and its length from the row counts. */
const COLUMNS = [
  ["fStart", "addr", (c: Counts) => c.f],
  ["fEnd", "addr", (c: Counts) => c.f],
  ["fSource", "u8", (c: Counts) => c.f],
  ["fFlags", "u16", (c: Counts) => c.f],
  ["fBlocks", "u32", (c: Counts) => c.f + 1],
  ["fChunks", "u32", (c: Counts) => c.f + 1],
  ["fEdges", "u32", (c: Counts) => c.f + 1],
  ["blocks", "addr", (c: Counts) => 2 * c.b],
  ["chunks", "addr", (c: Counts) => 2 * c.c],
  ["edgeEnds", "addr", (c: Counts) => 2 * c.e],
  ["edgeKind", "u8", (c: Counts) => c.e],
  ["edgeValue", "i32", (c: Counts) => c.e],
  ["xFrom", "addr", (c: Counts) => c.x],
  ["xTo", "addr", (c: Counts) => c.x],
  ["xKind", "u8", (c: Counts) => c.x],
  ["xByTo", "u32", (c: Counts) => c.x],
  ["sAddress", "addr", (c: Counts) => c.s],
  ["sSize", "u32", (c: Counts) => c.s],
  ["sEncoding", "u8", (c: Counts) => c.s],
  ["sSection", "u32", (c: Counts) => c.s],
  ["nAddress", "addr", (c: Counts) => c.n],
  ["nKind", "u8", (c: Counts) => c.n],
  /** Index into the header's `names`, or -1 for a label named after its address. */
  ["nText", "i32", (c: Counts) => c.n],
] as const;

type ColumnName = typeof COLUMNS[number][0];
interface ArrayOf {
  addr: Float64Array | Uint32Array;
  u32: Uint32Array;
  i32: Int32Array;
  u16: Uint16Array;
  u8: Uint8Array;
}
type Columns = { [K in typeof COLUMNS[number] as K[0]]: ArrayOf[K[1]] };

const MAKERS: {
  [T in ColumnType]: (
    buffer: ArrayBuffer,
    offset: number,
    length: number,
    wide: boolean,
  ) => ArrayOf[T];
} = {
  addr: (b, o, n, wide) => wide ? new Float64Array(b, o, n) : new Uint32Array(b, o, n),
  u32: (b, o, n) => new Uint32Array(b, o, n),
  i32: (b, o, n) => new Int32Array(b, o, n),
  u16: (b, o, n) => new Uint16Array(b, o, n),
  u8: (b, o, n) => new Uint8Array(b, o, n),
};
const WIDTH: Record<ColumnType, number> = { addr: 4, u32: 4, i32: 4, u16: 2, u8: 1 };

interface Header {
  v: number;
  arch: string;
  sec: number;
  counts: Counts;
  /** Whether addresses are stored as f64 (some address is 2^32 or more) rather than u32. */
  wide: boolean;
  fnNames: string[];
  strings: string[];
  sections: string[];
  names: string[];
  /** ARM learnt modes, flattened: address, then 1 for Thumb or 0 for A32. */
  modes?: number[];
}

const pad8 = (n: number) => (n + 7) & ~7;
const hex = (a: number) => a.toString(16).toUpperCase();

/** Lays out `header` and columns of the given counts in one buffer; returns it with the views. */
function layout(
  header: Header,
  buffer?: ArrayBuffer,
  headerBytes?: Uint8Array,
): { buffer: ArrayBuffer; columns: Columns; headerBytes: Uint8Array } {
  const json = headerBytes ?? new TextEncoder().encode(JSON.stringify(header));
  let offset = pad8(12 + json.length);
  const spans: [ColumnName, ColumnType, number, number][] = [];
  for (const [name, type, length] of COLUMNS) {
    const n = length(header.counts);
    spans.push([name, type, offset, n]);
    offset = pad8(offset + n * (type === "addr" && header.wide ? 8 : WIDTH[type]));
  }
  if (buffer !== undefined && buffer.byteLength < offset) {
    throw new TypeError("Cannot read cached analysis: truncated");
  }
  const buf = buffer ?? new ArrayBuffer(offset);
  const columns: Record<string, unknown> = {};
  for (const [name, type, at, n] of spans) columns[name] = MAKERS[type](buf, at, n, header.wide);
  return { buffer: buf, columns: columns as Columns, headerBytes: json };
}

/** Encode an analysis for the cache. */
export function serializeAnalysis(a: Analysis): Uint8Array {
  const d = a.data;
  const counts: Counts = { f: d.functions.length, b: 0, c: 0, e: 0, x: 0, s: 0, n: 0 };
  for (const f of d.functions) {
    const n = cfgCounts(f);
    counts.b += n.blocks;
    counts.c += f.chunks.length;
    counts.e += n.edges;
  }
  counts.x = d.xrefs.length;
  counts.s = d.strings.length;
  counts.n = d.names.length;
  const sections: string[] = [];
  const sectionIndex = new Map<string, number>();
  for (const s of d.strings) {
    if (!sectionIndex.has(s.section)) {
      sectionIndex.set(s.section, sections.length);
      sections.push(s.section);
    }
  }
  const names: string[] = [];
  for (const n of d.names) if (!isDerivedLabel(n)) names.push(n.name);
  const header: Header = {
    v: d.version,
    arch: d.arch,
    sec: d.seconds,
    counts,
    wide: !fitsU32(d),
    fnNames: d.functions.map((f) => f.name),
    strings: d.strings.map((s) => s.text),
    sections,
    names,
  };
  if (d.armModes !== undefined) header.modes = d.armModes.flatMap((m) => [m.addr, m.thumb ? 1 : 0]);
  const { buffer, columns: c, headerBytes } = layout(header);
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, CACHE_FORMAT, true);
  view.setUint32(8, headerBytes.length, true);
  bytes.set(headerBytes, 12);

  let b = 0;
  let ch = 0;
  let e = 0;
  d.functions.forEach((f, i) => {
    c.fStart[i] = f.start;
    c.fEnd[i] = f.end;
    c.fSource[i] = SOURCES.indexOf(f.source);
    c.fFlags[i] = f.flags.reduce((bits, fl) => bits | (1 << FLAGS.indexOf(fl)), 0);
    c.fBlocks[i] = b;
    c.fChunks[i] = ch;
    c.fEdges[i] = e;
    eachBlock(f, (start, end) => {
      c.blocks[2 * b] = start;
      c.blocks[2 * b++ + 1] = end;
    });
    for (const k of f.chunks) {
      c.chunks[2 * ch] = k.start;
      c.chunks[2 * ch++ + 1] = k.end;
    }
    eachEdge(f, (from, to, kind, value) => {
      c.edgeEnds[2 * e] = from;
      c.edgeEnds[2 * e + 1] = to;
      c.edgeKind[e] = kind;
      c.edgeValue[e++] = value;
    });
  });
  c.fBlocks[counts.f] = b;
  c.fChunks[counts.f] = ch;
  c.fEdges[counts.f] = e;
  c.xFrom.set(d.xrefs.from);
  c.xTo.set(d.xrefs.to);
  c.xKind.set(d.xrefs.kind);
  c.xByTo.set(d.xrefs.byTo);
  d.strings.forEach((s, i) => {
    c.sAddress[i] = s.address;
    c.sSize[i] = s.size;
    c.sEncoding[i] = ENCODINGS.indexOf(s.encoding);
    c.sSection[i] = sectionIndex.get(s.section)!;
  });
  let t = 0;
  d.names.forEach((n, i) => {
    c.nAddress[i] = n.address;
    c.nKind[i] = NAME_KINDS.indexOf(n.kind);
    c.nText[i] = isDerivedLabel(n) ? -1 : t++;
  });
  return bytes;
}

/** Whether every address of `d` fits a u32 column. */
function fitsU32(d: AnalysisData): boolean {
  let fits = true;
  const see = (a: number) => {
    if (!(Number.isInteger(a) && a >= 0 && a <= 0xffffffff)) fits = false;
  };
  for (const f of d.functions) {
    see(f.start);
    see(f.end);
    eachBlock(f, (start, end) => (see(start), see(end)));
    for (const c of f.chunks) see(c.start), see(c.end);
    eachEdge(f, (from, to) => (see(from), see(to)));
  }
  for (const a of d.xrefs.from) see(a);
  for (const a of d.xrefs.to) see(a);
  for (const s of d.strings) see(s.address);
  for (const n of d.names) see(n.address);
  return fits;
}

function isDerivedLabel(n: NameEntry): boolean {
  return n.kind === "label" && n.name === `loc_${hex(n.address)}`;
}

/**
 * Decode what {@link serializeAnalysis} wrote, for `image`. Throws `TypeError` on bytes of
 * another format, version or shape: the caller then analyses again.
 */
export function deserializeAnalysis(bytes: Uint8Array, image: BinaryImage): Analysis {
  if (bytes.length < 12) throw new TypeError("Cannot read cached analysis: too short");
  // The columns are views at offsets from the start of a buffer of their own.
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const own = whole && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
  const view = new DataView(own.buffer, own.byteOffset, own.byteLength);
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== CACHE_FORMAT) {
    throw new TypeError("Cannot read cached analysis: unknown format");
  }
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > own.length) throw new TypeError("Cannot read cached analysis: truncated");
  const headerBytes = own.subarray(12, 12 + headerLength);
  const header = JSON.parse(new TextDecoder().decode(headerBytes)) as Header;
  if (header.v !== ANALYSIS_VERSION) {
    throw new TypeError("Cannot read cached analysis: unknown version");
  }
  const { columns: c } = layout(header, own.buffer as ArrayBuffer, headerBytes);
  const { counts } = header;

  const functions: FunctionInfo[] = [];
  for (let i = 0; i < counts.f; i++) {
    const chunks: Chunk[] = [];
    for (let k = c.fChunks[i]!; k < c.fChunks[i + 1]!; k++) {
      chunks.push({ start: c.chunks[2 * k]!, end: c.chunks[2 * k + 1]! });
    }
    const bits = c.fFlags[i]!;
    functions.push(
      new ColumnFunction(c, i, {
        start: c.fStart[i]!,
        end: c.fEnd[i]!,
        name: header.fnNames[i]!,
        source: SOURCES[c.fSource[i]!]!,
        flags: FLAGS.filter((_, k) => (bits & (1 << k)) !== 0),
        chunks,
      }),
    );
  }
  const strings: StringInfo[] = [];
  for (let i = 0; i < counts.s; i++) {
    strings.push({
      address: c.sAddress[i]!,
      size: c.sSize[i]!,
      encoding: ENCODINGS[c.sEncoding[i]!]!,
      text: header.strings[i]!,
      section: header.sections[c.sSection[i]!]!,
    });
  }
  // Names (a big binary has hundreds of thousands, most of them labels) become objects when
  // first asked for.
  let names: NameEntry[] | undefined;
  const entry = (i: number): NameEntry => {
    const address = c.nAddress[i]!;
    const t = c.nText[i]!;
    return {
      address,
      name: t < 0 ? `loc_${hex(address)}` : header.names[t]!,
      kind: NAME_KINDS[c.nKind[i]!]!,
    };
  };
  const readNames = (): NameEntry[] => {
    const out: NameEntry[] = [];
    for (let i = 0; i < counts.n; i++) out.push(entry(i));
    return out;
  };
  const rows: NameRows = {
    count: counts.n,
    address: (i) => c.nAddress[i]!,
    kind: (i) => NAME_KINDS[c.nKind[i]!]!,
    derived: (i) => c.nText[i]! < 0,
    entry,
  };
  const data: AnalysisData = {
    version: header.v,
    arch: header.arch,
    functions,
    xrefs: new XrefTable(c.xFrom, c.xTo, c.xKind, c.xByTo),
    strings,
    get names(): NameEntry[] {
      names ??= readNames();
      return names;
    },
    set names(value: NameEntry[]) {
      names = value;
    },
    seconds: header.sec,
  };
  const modes = header.modes;
  if (modes !== undefined) {
    data.armModes = [];
    for (let i = 0; i + 1 < modes.length; i += 2) {
      data.armModes.push({ addr: modes[i]!, thumb: modes[i + 1] === 1 });
    }
  }
  return new Analysis(data, image, rows);
}
