/**
 * The query side of an analysis: functions, blocks, edges, cross-references, call graph,
 * strings and names, indexed for the lookups tools make. Built from plain {@link AnalysisData},
 * either fresh from `analyze()` or read back from the cache.
 */

import type { DecodeOptions, Decoder, Insn } from "../arch/types.ts";
import type { BinaryImage } from "../formats/image.ts";
import type {
  AnalysisData,
  Block,
  Edge,
  FunctionInfo,
  NameEntry,
  StringInfo,
  Xref,
  XrefKind,
} from "./types.ts";

/** An address shown as the nearest preceding name plus an offset (`main+0x10`). */
export interface NearName {
  name: string;
  address: number;
  offset: number;
}

/** A reference to a string from code. */
export interface CodeRef {
  from: number;
  kind: XrefKind;
  /** The function holding `from`, when one does. */
  function?: FunctionInfo;
}

const NAME_PRIORITY: Record<NameEntry["kind"], number> = {
  function: 0,
  import: 1,
  symbol: 2,
  object: 3,
  import_slot: 4,
  string: 5,
  label: 6,
};

interface NameIndexes {
  /** The best name per address, but for labels named after their address (`loc_…`). */
  names: Map<number, NameEntry>;
  /** Name → address of its first entry, but for labels named after their address. */
  lookup: Map<string, number>;
  /** Addresses of labels named after their address, sorted. */
  labels: Float64Array;
  /** Names usable as a base for `name+offset` (labels excluded), sorted by address. */
  anchors: NameEntry[];
}

/**
 * The names of an analysis read from the cache, as rows: a big binary has a couple of hundred
 * thousand, most of them labels named after their address, which the index then keeps as
 * addresses only.
 */
export interface NameRows {
  count: number;
  address(i: number): number;
  kind(i: number): NameEntry["kind"];
  /** The entry; only asked for rows that are not labels named after their address. */
  entry(i: number): NameEntry;
  /** Whether row `i` is a label named after its address. */
  derived(i: number): boolean;
}

const hex = (a: number) => a.toString(16).toUpperCase();

/** The label name made from an address. */
function labelName(address: number): string {
  return `loc_${hex(address)}`;
}

/** Whether sorted `labels` holds `addr`. */
function hasLabel(labels: Float64Array, addr: number): boolean {
  const i = lowerBound(labels.length, (k) => labels[k]!, addr);
  return labels[i] === addr;
}

/** Binary search: the first index in [0, n) whose key is ≥ `value`. */
function lowerBound(n: number, key: (i: number) => number, value: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(mid) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An analysed image, with the queries tools use. */
export class Analysis {
  /** The plain data (what the cache stores). */
  readonly data: AnalysisData;
  /** The image the analysis describes. */
  readonly image: BinaryImage;
  readonly #byStart = new Map<number, FunctionInfo>();
  readonly #byName = new Map<string, FunctionInfo>();
  /** Function extents (main part and chunks), sorted by start. */
  readonly #extents: { start: number; end: number; fn: FunctionInfo }[] = [];
  #maxExtent = 0;
  /** Best name per address, names to addresses, and anchors for `name+offset`. */
  #nameIndex: NameIndexes | undefined;
  readonly #strings = new Map<number, StringInfo>();
  readonly #nameRows: NameRows | undefined;

  /** `nameRows`: the names as rows (a cached analysis), read instead of `data.names`. */
  constructor(data: AnalysisData, image: BinaryImage, nameRows?: NameRows) {
    this.data = data;
    this.image = image;
    this.#nameRows = nameRows;
    for (const f of data.functions) {
      this.#byStart.set(f.start, f);
      if (!this.#byName.has(f.name)) this.#byName.set(f.name, f);
      this.#extents.push({ start: f.start, end: Math.max(f.end, f.start + 1), fn: f });
      for (const c of f.chunks) this.#extents.push({ start: c.start, end: c.end, fn: f });
    }
    this.#extents.sort((a, b) => a.start - b.start);
    for (const e of this.#extents) this.#maxExtent = Math.max(this.#maxExtent, e.end - e.start);
    for (const s of data.strings) this.#strings.set(s.address, s);
  }

  /**
   * The name indexes, built on first use: a reopened analysis of a big binary has a couple of
   * hundred thousand names, and the first tool call that needs them is soon enough.
   */
  #index(): NameIndexes {
    if (this.#nameIndex !== undefined) return this.#nameIndex;
    const names = new Map<number, NameEntry>();
    const lookup = new Map<string, number>();
    const labels: number[] = [];
    const add = (n: NameEntry) => {
      const cur = names.get(n.address);
      if (cur === undefined || NAME_PRIORITY[n.kind] < NAME_PRIORITY[cur.kind]) {
        names.set(n.address, n);
      }
      if (!lookup.has(n.name)) lookup.set(n.name, n.address);
    };
    // Labels named after their address (most names) are kept as sorted addresses: the
    // lowest-priority name of an address, found again by parsing their name.
    const rows = this.#nameRows;
    if (rows !== undefined) {
      for (let i = 0; i < rows.count; i++) {
        if (rows.derived(i)) labels.push(rows.address(i));
        else add(rows.entry(i));
      }
    } else {
      for (const n of this.data.names) {
        if (n.kind === "label" && n.name === labelName(n.address)) labels.push(n.address);
        else add(n);
      }
    }
    const anchors = [...names.values()].filter((n) => n.kind !== "label")
      .sort((a, b) => a.address - b.address);
    this.#nameIndex = { names, lookup, labels: new Float64Array(labels), anchors };
    return this.#nameIndex;
  }

  /** Every function, sorted by start. */
  functions(): readonly FunctionInfo[] {
    return this.data.functions;
  }

  /** The function starting at `addr`. */
  functionStartingAt(addr: number): FunctionInfo | undefined {
    return this.#byStart.get(addr);
  }

  /** The function whose main part or a chunk contains `addr` (the innermost when nested). */
  functionAt(addr: number): FunctionInfo | undefined {
    const ex = this.#extents;
    let i = lowerBound(ex.length, (k) => ex[k]!.start, addr + 1) - 1;
    let best: FunctionInfo | undefined;
    for (; i >= 0; i--) {
      const e = ex[i]!;
      if (addr - e.start >= this.#maxExtent) break;
      if (addr < e.end && (best === undefined || e.start > best.start)) {
        best = e.fn;
        break;
      }
    }
    return best;
  }

  /** The function named `name`. */
  functionByName(name: string): FunctionInfo | undefined {
    return this.#byName.get(name);
  }

  /** Basic blocks of `fn`, sorted by start. */
  blocksOf(fn: FunctionInfo): readonly Block[] {
    return fn.blocks;
  }

  /** The block of `fn` containing `addr`. */
  blockAt(fn: FunctionInfo, addr: number): Block | undefined {
    const b = fn.blocks;
    const i = lowerBound(b.length, (k) => b[k]!.start, addr + 1) - 1;
    const blk = b[i];
    return blk !== undefined && addr < blk.end ? blk : undefined;
  }

  /** CFG edges of `fn`, sorted by source block. */
  edgesOf(fn: FunctionInfo): readonly Edge[] {
    return fn.edges;
  }

  /** References to `addr` (optionally of one kind), sorted by source. */
  xrefsTo(addr: number, kind?: XrefKind): Xref[] {
    const xs = this.data.xrefs;
    const by = xs.byTo;
    const out: Xref[] = [];
    for (let i = xs.firstTo(addr); i < by.length && xs.to[by[i]!] === addr; i++) {
      const x = xs.at(by[i]!);
      if (kind === undefined || x.kind === kind) out.push(x);
    }
    return out;
  }

  /** References from the instruction at `addr`, or from every instruction of a function. */
  xrefsFrom(at: number | FunctionInfo, kind?: XrefKind): Xref[] {
    const ranges = typeof at === "number" ? [{ start: at, end: at + 1 }] : at.blocks;
    const xs = this.data.xrefs;
    const out: Xref[] = [];
    for (const r of ranges) {
      for (let i = xs.firstFrom(r.start); i < xs.length && xs.from[i]! < r.end; i++) {
        const x = xs.at(i);
        if (kind === undefined || x.kind === kind) out.push(x);
      }
    }
    return out;
  }

  /** Functions that call `fn` (or tail-jump to it), sorted by start. */
  callers(fn: FunctionInfo): FunctionInfo[] {
    const set = new Set<FunctionInfo>();
    for (const x of this.xrefsTo(fn.start)) {
      if (x.kind !== "call" && x.kind !== "jump") continue;
      const f = this.functionAt(x.from);
      if (f !== undefined && (x.kind === "call" || f !== fn)) set.add(f);
    }
    return [...set].sort((a, b) => a.start - b.start);
  }

  /** Functions `fn` calls (or tail-jumps to), in order of first call. */
  callees(fn: FunctionInfo): FunctionInfo[] {
    const out: FunctionInfo[] = [];
    const seen = new Set<FunctionInfo>();
    const tails = new Set(fn.edges.filter((e) => e.kind === "tail").map((e) => e.to));
    for (const x of this.xrefsFrom(fn)) {
      if (x.kind !== "call" && !(x.kind === "jump" && tails.has(x.to))) continue;
      const f = this.#byStart.get(x.to);
      if (f !== undefined && !seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
    }
    return out;
  }

  /** Strings `fn` refers to, in order of first reference. */
  stringsOf(fn: FunctionInfo): StringInfo[] {
    const out: StringInfo[] = [];
    const seen = new Set<number>();
    for (const x of this.xrefsFrom(fn, "string")) {
      const s = this.#strings.get(x.to);
      if (s !== undefined && !seen.has(s.address)) {
        seen.add(s.address);
        out.push(s);
      }
    }
    return out;
  }

  /** Imported functions `fn` calls, jumps to or whose slot it reads. */
  importsOf(fn: FunctionInfo): FunctionInfo[] {
    const out: FunctionInfo[] = [];
    const seen = new Set<FunctionInfo>();
    for (const x of this.xrefsFrom(fn)) {
      const f = this.#byStart.get(x.to);
      if (f !== undefined && f.flags.includes("import") && !seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
    }
    return out;
  }

  /** Every string, sorted by address. */
  strings(): readonly StringInfo[] {
    return this.data.strings;
  }

  /** The string starting at `addr`. */
  stringAt(addr: number): StringInfo | undefined {
    return this.#strings.get(addr);
  }

  /** Code that refers to the string (or any data) at `addr`. */
  codeRefsToString(addr: number): CodeRef[] {
    return this.xrefsTo(addr).filter((x) => x.kind !== "call" && x.kind !== "jump").map((x) => {
      const ref: CodeRef = { from: x.from, kind: x.kind };
      const f = this.functionAt(x.from);
      if (f !== undefined) ref.function = f;
      return ref;
    }).filter((r) => r.function !== undefined);
  }

  /** The best name of exactly `addr` (function, import, symbol, string, then label). */
  nameAt(addr: number): string | undefined {
    const index = this.#index();
    const hit = index.names.get(addr)?.name;
    if (hit !== undefined || !hasLabel(index.labels, addr)) return hit;
    return labelName(addr);
  }

  /** Every name entry at `addr`. */
  namesAt(addr: number): NameEntry[] {
    const n = this.data.names;
    const out: NameEntry[] = [];
    for (let i = lowerBound(n.length, (k) => n[k]!.address, addr); i < n.length; i++) {
      if (n[i]!.address !== addr) break;
      out.push(n[i]!);
    }
    return out;
  }

  /** The address of `name` (any kind of name, `sub_…`/`loc_…` included). */
  lookup(name: string): number | undefined {
    const index = this.#index();
    const hit = index.lookup.get(name);
    const m = /^(?:sub|loc|j_sub|off|unk|byte|dword|qword)_([0-9A-Fa-f]+)$/.exec(name);
    const parsed = m === null ? undefined : Number.parseInt(m[1]!, 16);
    // A label named after its address comes first when its address is below the other entry
    // of that name (names are ordered by address): what a map of every name would answer.
    if (
      hit !== undefined && parsed !== undefined && parsed < hit && name === labelName(parsed) &&
      hasLabel(index.labels, parsed)
    ) return parsed;
    return hit ?? parsed;
  }

  /**
   * `addr` as name plus offset: the containing function first, otherwise the nearest name at
   * or before it (labels excluded). Undefined when nothing precedes it.
   */
  nearestName(addr: number): NearName | undefined {
    const f = this.functionAt(addr);
    if (f !== undefined) return { name: f.name, address: f.start, offset: addr - f.start };
    const a = this.#index().anchors;
    const i = lowerBound(a.length, (k) => a[k]!.address, addr + 1) - 1;
    const n = a[i];
    return n === undefined
      ? undefined
      : { name: n.name, address: n.address, offset: addr - n.address };
  }

  /** McCabe complexity of `fn`: edges − blocks + 2, counting edges inside the function only. */
  cyclomaticComplexity(fn: FunctionInfo): number {
    const starts = new Set(fn.blocks.map((b) => b.start));
    const edges = new Set(
      fn.edges.filter((e) => e.kind !== "tail" && starts.has(e.to)).map((e) => `${e.from}:${e.to}`),
    );
    return Math.max(1, edges.size - fn.blocks.length + 2);
  }

  /**
   * The instructions of `fn`'s blocks in address order, decoded again from the image (the
   * cache keeps no instructions). `decoder` may be a function choosing by address (ARM/Thumb).
   */
  instructionsOf(
    fn: FunctionInfo,
    decoder: Decoder | ((addr: number) => Decoder),
    options: DecodeOptions = {},
  ): Insn[] {
    const out: Insn[] = [];
    for (const b of fn.blocks) {
      const bytes = this.image.read(b.start, b.end - b.start);
      if (bytes === undefined) continue;
      const d = typeof decoder === "function" ? decoder(b.start) : decoder;
      for (const insn of d.decode(bytes, b.start, { ...options, stopAtFlowEnd: false })) {
        if (insn.address + insn.size <= b.end) out.push(insn);
      }
    }
    return out;
  }
}
