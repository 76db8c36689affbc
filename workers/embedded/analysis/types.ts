/**
 * The data shapes of an analysis result. They are what the cache stores and what the
 * {@link Analysis} query class indexes: plain objects, but cross-references as typed columns
 * (a big binary has hundreds of thousands).
 */

import type { XrefTable } from "./xref_table.ts";

/** How a function was first found, in decreasing order of trust. */
export type FunctionSource =
  | "symbol"
  | "export"
  | "import"
  | "exception_table"
  | "entry"
  | "call"
  | "tail_jump"
  | "code_pointer"
  | "data_pointer"
  | "prologue"
  | "gap";

/** Every function flag, in the order `FunctionInfo.flags` lists them. */
export const FUNCTION_FLAGS = [
  "import",
  "thunk",
  "noreturn",
  "library",
  "entry",
  "switch",
  "leaf",
  // A proven call target strictly inside another function's unwind or symbol extent.
  "nested",
] as const;

/** Facts about a function. */
export type FunctionFlag = typeof FUNCTION_FLAGS[number];

/** A non-contiguous part of a function (`foo.cold`, blocks placed after another function). */
export interface Chunk {
  start: number;
  /** Exclusive. */
  end: number;
}

/** A basic block: instructions at [start, end) executed in sequence. */
export interface Block {
  start: number;
  /** Exclusive. */
  end: number;
}

/**
 * A CFG edge between two blocks of one function (or to another function's start for a tail
 * jump): `true`/`false` of a conditional branch, `jump` unconditional, `fall` fallthrough,
 * `case` a switch-table target (with the case index in `value`), `tail` a jump to another function.
 */
export interface Edge {
  from: number;
  to: number;
  kind: "true" | "false" | "jump" | "fall" | "case" | "tail";
  /** The switch case index, for `case` edges. */
  value?: number;
}

/** A function and its control-flow graph. */
export interface FunctionInfo {
  start: number;
  /** Exclusive end of the chunk that holds `start`. */
  end: number;
  name: string;
  source: FunctionSource;
  flags: FunctionFlag[];
  /** Sorted by start. */
  blocks: Block[];
  /** Parts outside [start, end), sorted. */
  chunks: Chunk[];
  /** Sorted by `from`, then `to`. */
  edges: Edge[];
}

export type { Xref, XrefKind } from "./xref.ts";

/** A string found in the image. */
export interface StringInfo {
  address: number;
  /** Bytes, without the terminator. */
  size: number;
  encoding: "ascii" | "utf8" | "utf16le";
  text: string;
  /** Section name, or "" when the address has no section. */
  section: string;
}

/** A named address. */
export interface NameEntry {
  address: number;
  name: string;
  kind: "function" | "import" | "import_slot" | "symbol" | "string" | "label" | "object";
}

/** Everything the analysis produced, as plain data. */
export interface AnalysisData {
  /** Version of this shape; a cache entry of another version is re-analysed. */
  version: number;
  arch: string;
  /** Sorted by start. */
  functions: FunctionInfo[];
  /** Sorted by `from`, then `to`, as columns. */
  xrefs: XrefTable;
  /** Sorted by address. */
  strings: StringInfo[];
  /** Sorted by address; at most one name per address and kind. */
  names: NameEntry[];
  /** Seconds spent analysing. */
  seconds: number;
  /**
   * ARM without mapping symbols: the modes the analysis learnt, sorted (code from `addr` up to
   * the next mark runs in Thumb or A32); what decodes after the analysis must read them too.
   */
  armModes?: { addr: number; thumb: boolean }[];
}

/** The {@link AnalysisData.version} this code writes. */
export const ANALYSIS_VERSION = 6;
