/**
 * Turns exploration traces into the plain analysis data: blocks and edges per function, chunk
 * layout, flags, cross-references (code, data, pointers in data), strings and names.
 */

import type { BinaryImage } from "../formats/image.ts";
import type { CodeCache } from "./_code_cache.ts";
import { CfgColumnsBuilder, ColumnFunction } from "./_cfg_columns.ts";
import { DataRefScanner, x86Kind } from "./_data_refs.ts";
import { GrowthCollector } from "./_gc.ts";
import type { Trace } from "./_explore.ts";
import type { Pacer } from "./_pacer.ts";
import { scanStrings, stringAt } from "./strings.ts";
import { stringName } from "./_names.ts";
import { XREF_CODE, XrefRows, type XrefTable } from "./xref_table.ts";
import {
  ANALYSIS_VERSION,
  type AnalysisData,
  type Block,
  type Chunk,
  type Edge,
  FUNCTION_FLAGS,
  type FunctionFlag,
  type FunctionInfo,
  type FunctionSource,
  type NameEntry,
  type StringInfo,
} from "./types.ts";

/** A function start with what discovery knows about it. */
export interface FunctionSeed {
  start: number;
  source: FunctionSource;
  name?: string;
  /** Extent from a symbol size or an unwind entry (plus `.cold` parts). */
  ranges?: { start: number; end: number }[];
  /** Split-off parts to explore with the function. */
  extra: number[];
}

/** Inputs of {@link buildAnalysisData}. */
export interface BuildInput {
  image: BinaryImage;
  cache: CodeCache;
  seeds: Map<number, FunctionSeed>;
  traces: Map<number, Trace>;
  noreturn: Set<number>;
  importAt: Map<number, string>;
  slotTarget: Map<number, number>;
  entry: number | undefined;
  pacer: Pacer;
  minStringLength: number;
  stringsInCode: boolean;
  dataPointers: {
    from: number;
    to: number;
  }[];
  /** Whether a function start lies strictly inside another function's known extent. */
  nested?: (start: number) => boolean;
}

const LIBRARY = new Set([
  "_start",
  "_init",
  "_fini",
  "deregister_tm_clones",
  "register_tm_clones",
  "__do_global_dtors_aux",
  "frame_dummy",
  "__libc_csu_init",
  "__libc_csu_fini",
  "_dl_relocate_static_pie",
]);

/** How far past a block's end the next block may start and still be the same chunk. */
const CHUNK_SLACK = 32;

const hex = (a: number) => a.toString(16).toUpperCase();

/** Build the {@link AnalysisData} of an explored program. */
export async function buildAnalysisData(input: BuildInput): Promise<AnalysisData> {
  const { image, cache, seeds, traces, pacer } = input;
  const ptr = image.bits === 64 ? 8 : 4;
  const starts = [...seeds.keys()].sort((a, b) => a - b);
  const nextStart = (a: number): number => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= a) lo = mid + 1;
      else hi = mid;
    }
    return starts[lo] ?? Infinity;
  };

  const functions: FunctionInfo[] = [];
  const xrefs = new XrefRows();
  const cfg = new CfgColumnsBuilder();
  // x86 reads an instruction's opcode bytes for its memRef's kind: one reader, moved along.
  let at = 0;
  const byteAt = (k: number) => cache.byteAt(at + k);
  const labels = new Set<number>();
  const scanner = new DataRefScanner(image);
  const thunkTargets = new Map<number, number>();
  const memRefOnly = image.arch === "x86" || image.arch === "x86_64";
  let done = 0;
  // Freed traces and each function's scratch pile up in the old generation otherwise.
  const collector = starts.length >= 2000 ? new GrowthCollector() : undefined;
  for (const start of starts) {
    const seed = seeds.get(start)!;
    const trace = traces.get(start);
    if (trace === undefined || trace.insns.size === 0) {
      if (input.importAt.has(start)) {
        functions.push({
          start,
          end: start + ptr,
          name: seed.name ?? input.importAt.get(start)!,
          source: seed.source,
          flags: ["import"],
          blocks: [],
          chunks: [],
          edges: [],
        });
      }
      continue;
    }
    // Sorted by address, from the cache again: traces keep addresses only. Leaders and enders
    // are sorted too, so one pass walks all three.
    const addrs = trace.insns.array;
    const ns = new Int32Array(addrs.length);
    const leaders = trace.leaders.array;
    const enders = trace.enders.array;
    const blocks: Block[] = [];
    /** Per instruction: its block's index. Per block: its last instruction. */
    const blockIdx = new Int32Array(addrs.length);
    const lastOf: number[] = [];
    let cur: Block | undefined;
    let prevEnded = true;
    for (let i = 0, li = 0, ei = 0; i < addrs.length; i++) {
      const a = addrs[i]!;
      const n = cache.indexAt(a);
      ns[i] = n;
      while (li < leaders.length && leaders[li]! < a) li++;
      if (cur === undefined || prevEnded || leaders[li] === a || cur.end !== a) {
        cur = { start: a, end: a };
        blocks.push(cur);
      }
      cur.end = a + cache.sizeOf(n);
      blockIdx[i] = blocks.length - 1;
      lastOf[blocks.length - 1] = a;
      while (ei < enders.length && enders[ei]! < a) ei++;
      prevEnded = enders[ei] === a;
    }
    const edges: Edge[] = [];
    const addEdge = (e: Edge) => edges.push(e);
    for (const e of trace.edges) {
      const i = trace.insns.indexOf(e.from);
      if (i < 0 || (e.kind === "tail" && e.to === start)) continue;
      const from = blocks[blockIdx[i]!]!.start;
      const edge: Edge = { from, to: e.to, kind: e.kind };
      if (e.value !== undefined) edge.value = e.value;
      addEdge(edge);
      if (e.kind !== "tail" && e.kind !== "false" && e.to !== start) labels.add(e.to);
    }
    for (let i = 0; i + 1 < blocks.length; i++) {
      const b = blocks[i]!;
      const n = blocks[i + 1]!;
      if (b.end === n.start && !trace.enders.has(lastOf[i]!)) {
        addEdge({ from: b.start, to: n.start, kind: "fall" });
      }
    }
    edges.sort((x, y) => x.from - y.from || x.to - y.to);
    dropRepeatedEdges(edges);

    // The chunk holding the start, then the rest.
    const limit = nextStart(start);
    let end = start;
    const chunks: Chunk[] = [];
    for (const b of blocks) {
      if (b.start >= start && b.start <= end + CHUNK_SLACK && b.start < limit) {
        end = Math.max(end, b.end);
      } else {
        const last = chunks[chunks.length - 1];
        if (last !== undefined && b.start <= last.end + CHUNK_SLACK) {
          last.end = Math.max(last.end, b.end);
        } else chunks.push({ start: b.start, end: b.end });
      }
    }
    const declared = seed.ranges?.[0];
    if (declared !== undefined && declared.start === start && declared.end > end) {
      end = declared.end;
    }
    const inMain = chunks.filter((c) => !(c.start >= start && c.end <= end));

    const flags: FunctionFlag[] = [];
    const importName = input.importAt.get(start);
    if (importName !== undefined) flags.push("import");
    // CET stubs (`.plt.sec`, `-fcf-protection`) open with `endbr64`/`endbr32` before the jump.
    const head = isEndbr(image, start) ? start + 4 : start;
    const first = trace.insns.has(head) ? cache.at(head) : undefined;
    if (first !== undefined && (first.flow === "jump" || first.flow === "ijump")) {
      const tail = trace.edges.find((e) => e.from === head && e.kind === "tail");
      if (tail !== undefined || importName !== undefined) {
        flags.push("thunk");
        if (tail !== undefined && tail.to !== start) thunkTargets.set(start, tail.to);
      }
    }
    if (input.noreturn.has(start)) flags.push("noreturn");
    if (trace.switches > 0) flags.push("switch");
    if (trace.calls.length === 0) flags.push("leaf");
    if (input.nested?.(start) === true) flags.push("nested");
    if (start === input.entry) flags.push("entry");
    const name = seed.name ?? importName;
    if (name !== undefined && LIBRARY.has(name)) flags.push("library");
    flags.sort((x, y) => FUNCTION_FLAGS.indexOf(x) - FUNCTION_FLAGS.indexOf(y));
    functions.push(
      new ColumnFunction(cfg.columns, cfg.add(blocks, edges), {
        start,
        end,
        name: name ?? "",
        source: seed.source,
        flags,
        chunks: inMain,
      }),
    );

    // Cross-references, walking blocks in order so register pairs stay within a block.
    for (const e of trace.edges) {
      // An import stub's `jmp [slot]` leads back to the stub itself (the slot's import
      // address): not a reference anyone looks for.
      if (e.kind === "tail" && e.to === start) continue;
      if (e.kind === "case" || e.kind === "tail" || e.kind === "jump" || e.kind === "true") {
        xrefs.push(e.from, e.to, XREF_CODE.jump);
      }
    }
    // Calls by address (one per call instruction), walked beside the instructions.
    const calls = trace.calls.length < 2
      ? trace.calls
      : trace.calls.slice().sort((x, y) => x.from - y.from);
    let bi = -1;
    for (let i = 0, ci = 0; i < addrs.length; i++) {
      const a = addrs[i]!;
      const n = ns[i]!;
      if (blockIdx[i] !== bi) {
        scanner.beginBlock();
        bi = blockIdx[i]!;
      }
      let call: number | undefined;
      while (ci < calls.length && calls[ci]!.from <= a) {
        if (calls[ci]!.from === a) call = calls[ci]!.to;
        ci++;
      }
      if (call !== undefined) xrefs.push(a, call, XREF_CODE.call);
      if (memRefOnly) {
        // x86 refers to data through its memRef only, whose kind the opcode tells.
        const m = cache.memRefOf(n);
        if (m !== m) continue;
        at = a;
        xrefs.push(a, m, XREF_CODE[x86Kind(byteAt, cache.sizeOf(n), image.bits)]);
        continue;
      }
      for (const r of scanner.refs(cache.insn(n, a))) xrefs.push(a, r.to, XREF_CODE[r.kind]);
    }
    // Done with this trace: a big binary's traces hold a lot.
    traces.delete(start);
    if ((done & 255) === 0) collector?.check();
    if ((++done & 31) === 0 && pacer.due()) {
      await pacer.tick(0.85 + 0.1 * (done / starts.length), "Building the CFG");
    }
  }
  cfg.finish();
  for (const p of input.dataPointers) xrefs.push(p.from, p.to, XREF_CODE.offset);
  // Every instruction is in the CFG and the cross-references now.
  cache.release();

  // Strings: the scan, plus short ones code points at.
  const strings = dropJunkPrefixes(
    scanStrings(image, {
      minLength: input.minStringLength,
      includeCode: input.stringsInCode,
      check: () => input.pacer.check(),
    }),
    xrefs,
    input.minStringLength,
  );
  const stringStarts = new Set(strings.map((s) => s.address));
  for (let i = 0; i < xrefs.length; i++) {
    if (!readOrOffset(xrefs.kind[i]!)) continue;
    const to = xrefs.to[i]!;
    if (stringStarts.has(to) || cache.isCode(to)) continue;
    const sec = image.sectionAt(to);
    if (sec === undefined || (sec.kind !== "rodata" && sec.kind !== "data")) continue;
    const s = stringAt(image, to, 2);
    if (s !== undefined) {
      strings.push(s);
      stringStarts.add(s.address);
    }
  }
  strings.sort((a, b) => a.address - b.address);
  for (let i = 0; i < xrefs.length; i++) {
    if (readOrOffset(xrefs.kind[i]!) && stringStarts.has(xrefs.to[i]!)) {
      xrefs.kind[i] = XREF_CODE.string;
    }
  }
  input.pacer.check();
  const table = xrefs.table();
  input.pacer.check();
  recoverMain(functions, table, input);

  // Names: symbols, imports, functions, strings, labels.
  const names: NameEntry[] = [];
  const nameOf = new Map<number, string>();
  for (const f of functions) if (f.name !== "") nameOf.set(f.start, f.name);
  for (const f of functions) {
    if (f.name !== "") continue;
    const target = thunkTargets.get(f.start);
    const tn = target === undefined ? undefined : nameOf.get(target);
    f.name = tn !== undefined ? `j_${tn}` : `sub_${hex(f.start)}`;
  }
  for (const f of functions) names.push({ address: f.start, name: f.name, kind: "function" });
  for (const imp of image.imports) {
    if (imp.slot !== undefined && imp.slot !== imp.address) {
      names.push({ address: imp.slot, name: `__imp_${imp.name}`, kind: "import_slot" });
    }
  }
  const fnStarts = new Set(functions.map((f) => f.start));
  for (const s of image.symbols) {
    if (s.address === 0 || fnStarts.has(s.address) || s.name === "") continue;
    if (s.kind === "function" && cache.isCode(s.address)) continue; // .cold parts: labels below
    names.push({
      address: s.address,
      name: s.name,
      kind: s.kind === "object" ? "object" : "symbol",
    });
  }
  const used = new Set<string>(names.map((n) => n.name));
  for (const s of strings) {
    let n = stringName(s.text);
    if (used.has(n)) n = `${n}_${hex(s.address)}`;
    used.add(n);
    names.push({ address: s.address, name: n, kind: "string" });
  }
  for (const l of labels) {
    if (!fnStarts.has(l)) names.push({ address: l, name: `loc_${hex(l)}`, kind: "label" });
  }
  names.sort((a, b) => a.address - b.address || a.kind.localeCompare(b.kind));

  return {
    version: ANALYSIS_VERSION,
    arch: image.arch,
    functions,
    xrefs: table,
    strings: dedupeStrings(strings),
    names,
    seconds: 0,
  };
}

/**
 * Keeps the first of equal edges. `edges` is sorted stably by (from, to), so equal edges sit
 * in one run of the same (from, to), in the order they were added.
 */
function dropRepeatedEdges(edges: Edge[]): void {
  let n = 0;
  let run = 0;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    if (n === 0 || edges[run]!.from !== e.from || edges[run]!.to !== e.to) run = n;
    let repeated = false;
    for (let k = run; k < n && !repeated; k++) {
      repeated = edges[k]!.kind === e.kind && edges[k]!.value === e.value;
    }
    if (!repeated) edges[n++] = e;
  }
  edges.length = n;
}

/** Whether an x86 `endbr64`/`endbr32` (f3 0f 1e fa/fb) sits at `addr`. */
function isEndbr(image: BinaryImage, addr: number): boolean {
  if (image.arch !== "x86" && image.arch !== "x86_64") return false;
  const b = image.read(addr, 4);
  return b !== undefined && b[0] === 0xf3 && b[1] === 0x0f && b[2] === 0x1e &&
    (b[3] === 0xfa || b[3] === 0xfb);
}

/**
 * A printable byte or two of other data just before a string joins it in the scan
 * (`"%memory exhausted"` where code uses `"memory exhausted"`). A scanned string nobody refers
 * to whose first referenced byte comes fewer than `min` bytes in is that junk plus the real
 * string: drop it, and the referenced string is added as code refers to it.
 */
function dropJunkPrefixes(strings: StringInfo[], xrefs: XrefRows, min: number) {
  const referenced = new Set<number>();
  for (let i = 0; i < xrefs.length; i++) {
    if (readOrOffset(xrefs.kind[i]!)) referenced.add(xrefs.to[i]!);
  }
  return strings.filter((s) => {
    if (s.encoding === "utf16le" || referenced.has(s.address)) return true;
    for (let k = 1; k < min && k < s.size; k++) if (referenced.has(s.address + k)) return false;
    return true;
  });
}

/** Whether an xref kind code is `read` or `offset`: what may point at a string. */
function readOrOffset(kind: number): boolean {
  return kind === XREF_CODE.read || kind === XREF_CODE.offset;
}

function dedupeStrings(strings: StringInfo[]): StringInfo[] {
  const out: StringInfo[] = [];
  for (const s of strings) {
    const p = out[out.length - 1];
    if (p !== undefined && p.address === s.address) continue;
    out.push(s);
  }
  return out;
}

/**
 * Stripped glibc binaries: `_start` passes `main` to `__libc_start_main` as its first argument
 * (`lea rdi, [rip+main]`, `adrp x0 …; add x0 …`). The last code pointer loaded before that call
 * is `main`; name it so, as IDA and Rizin users expect.
 */
function recoverMain(functions: FunctionInfo[], xrefs: XrefTable, input: BuildInput): void {
  if (input.entry === undefined || functions.some((f) => f.name === "main")) return;
  const entryFn = functions.find((f) => f.start === input.entry);
  if (!entryFn) return;
  const stubs = new Set<number>();
  for (const [addr, name] of input.importAt) {
    if (name === "__libc_start_main" || name === "__libc_start_main@GLIBC_2.34") stubs.add(addr);
  }
  for (const [slot, stub] of input.slotTarget) if (stubs.has(stub)) stubs.add(slot);
  if (stubs.size === 0) return;
  const inEntry = (a: number) => entryFn.blocks.some((b) => a >= b.start && a < b.end);
  const { from, to, kind } = xrefs;
  let call = -1;
  for (let i = 0; i < xrefs.length && call < 0; i++) {
    if (inEntry(from[i]!) && stubs.has(to[i]!) && kind[i] !== XREF_CODE.string) call = i;
  }
  if (call < 0) return;
  const starts = new Map(functions.map((f) => [f.start, f]));
  let best = -1;
  for (let i = 0; i < xrefs.length; i++) {
    const k = kind[i]!;
    if (!inEntry(from[i]!) || from[i]! >= from[call]! || k <= XREF_CODE.jump) continue;
    if (starts.has(to[i]!) && (best < 0 || from[i]! > from[best]!)) best = i;
  }
  const main = best >= 0 ? starts.get(to[best]!) : undefined;
  if (main && main.name === "") main.name = "main";
}
