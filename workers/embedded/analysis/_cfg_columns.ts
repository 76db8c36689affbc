/**
 * Functions whose blocks and edges live in typed-array columns shared by every function, and
 * become objects only when something asks for one function's. A big binary has over a million
 * blocks and edges: as objects they stay alive for the whole session and every full garbage
 * collection traces them all. Both the analysis (as it builds the CFG) and the cache (as it reads
 * back) hand out these functions.
 */

import type { Block, Chunk, Edge, FunctionFlag, FunctionInfo, FunctionSource } from "./types.ts";

/** Edge kinds by their code in the `edgeKind` column. */
export const EDGE_KINDS: readonly Edge["kind"][] = [
  "true",
  "false",
  "jump",
  "fall",
  "case",
  "tail",
];
const EDGE_CODE = Object.fromEntries(EDGE_KINDS.map((k, i) => [k, i])) as Record<
  Edge["kind"],
  number
>;

/** Blocks and edges of many functions; function `i` owns rows `fBlocks[i]…fBlocks[i + 1]`. */
export interface CfgColumns {
  /** Start and end of each block, in pairs. */
  blocks: Float64Array | Uint32Array;
  fBlocks: Uint32Array;
  /** From and to of each edge, in pairs. */
  edgeEnds: Float64Array | Uint32Array;
  /** {@link EDGE_KINDS} code of each edge. */
  edgeKind: Uint8Array;
  /** Case index of each edge, -1 for none. */
  edgeValue: Int32Array;
  fEdges: Uint32Array;
}

/** What a function is besides its blocks and edges. */
export type FunctionHead = Omit<FunctionInfo, "blocks" | "edges">;

/** A function whose blocks and edges are rows of {@link CfgColumns}. */
export class ColumnFunction implements FunctionInfo {
  start: number;
  end: number;
  name: string;
  source: FunctionSource;
  flags: FunctionFlag[];
  chunks: Chunk[];
  readonly #c: CfgColumns;
  readonly #i: number;
  #blocks: Block[] | undefined;
  #edges: Edge[] | undefined;

  constructor(c: CfgColumns, i: number, head: FunctionHead) {
    this.#c = c;
    this.#i = i;
    this.start = head.start;
    this.end = head.end;
    this.name = head.name;
    this.source = head.source;
    this.flags = head.flags;
    this.chunks = head.chunks;
  }

  get blocks(): Block[] {
    if (this.#blocks === undefined) {
      const out: Block[] = [];
      this.eachBlock((start, end) => out.push({ start, end }));
      this.#blocks = out;
    }
    return this.#blocks;
  }

  set blocks(blocks: Block[]) {
    this.#blocks = blocks;
  }

  get edges(): Edge[] {
    if (this.#edges === undefined) {
      const out: Edge[] = [];
      this.eachEdge((from, to, kind, value) => {
        const edge: Edge = { from, to, kind: EDGE_KINDS[kind]! };
        if (value >= 0) edge.value = value;
        out.push(edge);
      });
      this.#edges = out;
    }
    return this.#edges;
  }

  set edges(edges: Edge[]) {
    this.#edges = edges;
  }

  /** How many blocks it has, without making them objects. */
  get blockCount(): number {
    return this.#blocks?.length ?? this.#c.fBlocks[this.#i + 1]! - this.#c.fBlocks[this.#i]!;
  }

  /** How many edges it has, without making them objects. */
  get edgeCount(): number {
    return this.#edges?.length ?? this.#c.fEdges[this.#i + 1]! - this.#c.fEdges[this.#i]!;
  }

  /** Calls `f` with each block, in order, without making it an object. */
  eachBlock(f: (start: number, end: number) => void): void {
    if (this.#blocks !== undefined) {
      for (const b of this.#blocks) f(b.start, b.end);
      return;
    }
    const c = this.#c;
    for (let k = c.fBlocks[this.#i]!; k < c.fBlocks[this.#i + 1]!; k++) {
      f(c.blocks[2 * k]!, c.blocks[2 * k + 1]!);
    }
  }

  /** Calls `f` with each edge (kind as its code, value -1 for none), without an object. */
  eachEdge(f: (from: number, to: number, kind: number, value: number) => void): void {
    if (this.#edges !== undefined) {
      for (const e of this.#edges) f(e.from, e.to, EDGE_CODE[e.kind], e.value ?? -1);
      return;
    }
    const c = this.#c;
    for (let k = c.fEdges[this.#i]!; k < c.fEdges[this.#i + 1]!; k++) {
      f(c.edgeEnds[2 * k]!, c.edgeEnds[2 * k + 1]!, c.edgeKind[k]!, c.edgeValue[k]!);
    }
  }
}

/** Calls `f` with each block of `fn`, without making objects of a {@link ColumnFunction}'s. */
export function eachBlock(fn: FunctionInfo, f: (start: number, end: number) => void): void {
  if (fn instanceof ColumnFunction) fn.eachBlock(f);
  else for (const b of fn.blocks) f(b.start, b.end);
}

/** Calls `f` with each edge of `fn` (kind as its code, value -1 for none). */
export function eachEdge(
  fn: FunctionInfo,
  f: (from: number, to: number, kind: number, value: number) => void,
): void {
  if (fn instanceof ColumnFunction) fn.eachEdge(f);
  else for (const e of fn.edges) f(e.from, e.to, EDGE_CODE[e.kind], e.value ?? -1);
}

/** Block and edge counts of `fn`, without making objects of a {@link ColumnFunction}'s. */
export function cfgCounts(fn: FunctionInfo): { blocks: number; edges: number } {
  return fn instanceof ColumnFunction
    ? { blocks: fn.blockCount, edges: fn.edgeCount }
    : { blocks: fn.blocks.length, edges: fn.edges.length };
}

/**
 * Columns that grow as the CFG pass adds functions: {@link columns} is the one object every
 * {@link ColumnFunction} of the pass reads through, so {@link finish} can trim its arrays.
 */
export class CfgColumnsBuilder {
  readonly columns: CfgColumns = {
    blocks: new Float64Array(2048),
    fBlocks: new Uint32Array(256),
    edgeEnds: new Float64Array(2048),
    edgeKind: new Uint8Array(1024),
    edgeValue: new Int32Array(1024),
    fEdges: new Uint32Array(256),
  };
  #functions = 0;
  #blocks = 0;
  #edges = 0;

  /** Adds a function's blocks and edges; returns its row. */
  add(blocks: readonly Block[], edges: readonly Edge[]): number {
    const c = this.columns;
    const i = this.#functions++;
    if (i + 2 > c.fBlocks.length) {
      c.fBlocks = grow(c.fBlocks, new Uint32Array(c.fBlocks.length * 2));
      c.fEdges = grow(c.fEdges, new Uint32Array(c.fEdges.length * 2));
    }
    let b = this.#blocks;
    while (2 * (b + blocks.length) > c.blocks.length) {
      c.blocks = grow(c.blocks, new Float64Array(c.blocks.length * 2));
    }
    c.fBlocks[i] = b;
    for (const k of blocks) {
      c.blocks[2 * b] = k.start;
      c.blocks[2 * b++ + 1] = k.end;
    }
    c.fBlocks[i + 1] = b;
    this.#blocks = b;
    let e = this.#edges;
    while (e + edges.length > c.edgeKind.length) {
      const n = c.edgeKind.length * 2;
      c.edgeEnds = grow(c.edgeEnds, new Float64Array(2 * n));
      c.edgeKind = grow(c.edgeKind, new Uint8Array(n));
      c.edgeValue = grow(c.edgeValue, new Int32Array(n));
    }
    c.fEdges[i] = e;
    for (const k of edges) {
      c.edgeEnds[2 * e] = k.from;
      c.edgeEnds[2 * e + 1] = k.to;
      c.edgeKind[e] = EDGE_CODE[k.kind];
      c.edgeValue[e++] = k.value ?? -1;
    }
    c.fEdges[i + 1] = e;
    this.#edges = e;
    return i;
  }

  /** Trims the columns to what was added. */
  finish(): void {
    const c = this.columns;
    c.blocks = c.blocks.slice(0, 2 * this.#blocks);
    c.fBlocks = c.fBlocks.slice(0, this.#functions + 1);
    c.edgeEnds = c.edgeEnds.slice(0, 2 * this.#edges);
    c.edgeKind = c.edgeKind.slice(0, this.#edges);
    c.edgeValue = c.edgeValue.slice(0, this.#edges);
    c.fEdges = c.fEdges.slice(0, this.#functions + 1);
  }
}

function grow<T extends Float64Array | Uint32Array | Uint8Array | Int32Array>(a: T, b: T): T {
  b.set(a);
  return b;
}
