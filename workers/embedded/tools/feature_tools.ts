/** Embedded handler: per-function diffing features, computed from the analysis in one pass. */
import { RemcpError } from "../../../src/errors.ts";
import { functionFeatures } from "../../../src/protocol/catalog/features.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { compileFilter } from "../../../src/protocol/pattern.ts";
import { computeFeatures, type FunctionFeatures } from "../../../src/diff/features.ts";
import {
  decodeRows,
  encodeRows,
  featureRowsSpec,
  ROW_LAYOUT,
} from "../../../src/diff/feature_rows.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { analysisOf, type DbAccess, type EmbeddedDb, fnName } from "../db.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import { functionRow, instructionsOf } from "./function_tools.ts";

/** Below this an immediate is a small number, not an absolute address (PIE images start at 0). */
const MIN_ADDRESS = 0x10000;

async function featuresOf(d: EmbeddedDb, fn: FunctionInfo): Promise<FunctionFeatures> {
  const a = analysisOf(d);
  const insns = await instructionsOf(d, fn, { text: true });
  const starts = new Set(fn.blocks.map((b) => b.start));
  return computeFeatures({
    name: fnName(d, fn),
    start: fn.start,
    end: fn.end,
    size: functionRow(d, fn).size,
    insns: insns.map((i) => ({
      address: i.address,
      bytes: d.image.readUpTo(i.address, i.size),
      mnemonic: i.mnemonic ?? "",
      operands: i.opStr ?? "",
      target: i.target,
      ref: i.memRef,
    })),
    blocks: fn.blocks,
    edges: fn.edges.filter((e) => e.kind !== "tail" && starts.has(e.to)),
    // As function_summary lists them (imports are matched by name, not through the graph).
    callees: a.callees(fn).filter((f) => !f.flags.includes("import")).map((f) => f.start),
    strings: a.stringsOf(fn).map((s) => s.text),
    imports: a.importsOf(fn).map((f) => f.name),
  }, (v) => v >= MIN_ADDRESS && d.image.isMapped(v));
}

/**
 * Every pointer-sized, aligned data slot holding a function's start, as [slot, start] in slot
 * order. A position-independent file keeps such slots zero and fills them by relocation, so the
 * relocations say it; a file without relocations to functions has them in its data, read as
 * words. Import tables and GOTs are left out: their order is the linker's, not the source's.
 */
export function functionPointers(d: EmbeddedDb): [number, number][] {
  const image = d.image;
  const starts = new Set(analysisOf(d).functions().map((f) => f.start));
  const size = image.bits === 64 ? 8 : 4;
  const skip = /^(\.got|\.plt|\.dyn|\.gnu|\.rela?|\.idata|__got|__la_symbol|__nl_symbol)/;
  const inData = (at: number) => {
    const s = image.sectionAt(at);
    return s !== undefined && (s.kind === "data" || s.kind === "rodata") && !skip.test(s.name);
  };
  const out = new Map<number, number>();
  for (const r of image.relocations) {
    if (r.target !== undefined && starts.has(r.target) && r.address % size === 0) {
      if (inData(r.address)) out.set(r.address, r.target);
    }
  }
  if (out.size === 0) {
    const little = image.endian === "little";
    for (const s of image.sections) {
      if ((s.kind !== "data" && s.kind !== "rodata") || s.fileSize === 0 || skip.test(s.name)) {
        continue;
      }
      const b = image.read(s.start, Math.min(s.end - s.start, s.fileSize));
      if (b === undefined) continue;
      const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
      for (let o = (size - (s.start % size)) % size; o + size <= b.length; o += size) {
        const p = size === 8 ? Number(v.getBigUint64(o, little)) : v.getUint32(o, little);
        if (p !== 0 && starts.has(p)) out.set(s.start + o, p);
      }
    }
  }
  return [...out].sort((x, y) => x[0] - y[0]);
}

// The stored features' key: bumped when computeFeatures changes what it makes of the same
// analysis (a sample is recomputed on load as well, see loadStored).
const FEATURES_VERSION = 1;
const CACHE_KEY = `features:v${FEATURES_VERSION}.${ROW_LAYOUT}`;
// Functions recomputed on load and compared with the stored rows: a disassembler whose text
// changed under the same analysis shows there, and the stored rows are then not used.
const SAMPLE = 8;

function rowsResult(
  functions: number,
  rows: string,
  computed: number,
  pointers: [number, number][],
) {
  return { functions, layout: ROW_LAYOUT, rows, computed, pointers };
}

/** The stored form: the analysis id the rows were computed from, a newline, the rows. */
function storedBlob(analysisId: string, rows: string): Uint8Array {
  return new TextEncoder().encode(`${analysisId}\n${rows}`);
}

/**
 * The feature tools over `db`: function_features in pages for clients, and all of them at once
 * for diff_databases. Features are computed once per function and kept, and once every
 * function has them they are stored beside the analysis in the database's store, keyed by the
 * analysis id: a later worker on the same analysis reads them instead of computing them (2–4
 * CPU seconds for a 5 MB binary).
 */
export function featureTools(db: DbAccess): ToolImpl[] {
  const memo = new WeakMap<FunctionInfo, FunctionFeatures>();
  /** Functions whose features this worker computed (the rest came from the store). */
  let computed = 0;
  let loaded = false;
  /** Whether the store holds this analysis's features. */
  let stored = false;
  /**
   * The last rows sent or read from the store, for the analysis `id` with the function names
   * `names`: sent again as they are while nothing changed (encoding them again costs as much as
   * matching a large binary).
   */
  let last: { id: string; names: string[]; rows: string } | undefined;
  const featuresFor = async (d: EmbeddedDb, fn: FunctionInfo) => {
    let f = memo.get(fn);
    if (!f) {
      f = await featuresOf(d, fn);
      computed++;
      memo.set(fn, f);
    }
    return f;
  };
  /** Fills the memo from the store once per worker, when the stored rows fit this analysis. */
  const loadStored = async (d: EmbeddedDb) => {
    if (loaded) return;
    loaded = true;
    const id = d.analysisInfo?.id;
    const blob = id === undefined ? undefined : d.store.loadCache(CACHE_KEY);
    if (!blob) return;
    const text = new TextDecoder().decode(blob);
    const nl = text.indexOf("\n");
    if (text.slice(0, nl) !== id) return;
    let rows: FunctionFeatures[];
    try {
      rows = decodeRows(text.slice(nl + 1));
    } catch {
      return; // unreadable: computed again
    }
    const fns = analysisOf(d).functions();
    if (rows.length !== fns.length || rows.some((r, k) => r.start !== fns[k]!.start)) return;
    const step = Math.max(1, Math.floor(fns.length / SAMPLE));
    for (let k = 0; k < fns.length; k += step) {
      const fresh = await featuresOf(d, fns[k]!);
      if (encodeRows([{ ...fresh, name: "" }]) !== encodeRows([{ ...rows[k]!, name: "" }])) return;
    }
    fns.forEach((fn, k) => memo.set(fn, rows[k]!));
    stored = true;
    last = { id, names: rows.map((r) => r.name), rows: text.slice(nl + 1) };
  };
  /** Stores every function's features (as the rows string `rows`), unless the store has them. */
  const store = (d: EmbeddedDb, rows: string) => {
    const id = d.analysisInfo?.id;
    if (id === undefined || stored) return;
    stored = true;
    try {
      d.store.saveCache(CACHE_KEY, storedBlob(id, rows));
      d.store.dropCache("features:", CACHE_KEY);
    } catch {
      // The cache is an optimisation: a full disk must not fail the diff.
    }
  };
  return [
    impl(functionFeatures, async (args, ctx) => {
      const d = db();
      await loadStored(d);
      const re = compileFilter(args.filter);
      const fns = analysisOf(d).functions().filter((f) => !re || re.test(fnName(d, f)));
      const page = pageOf(fns, args, (f) => f);
      const items = [];
      for (const fn of page.items) {
        if (ctx.signal.aborted) {
          throw new RemcpError("Cancelled", "function_features was cancelled");
        }
        const f = await featuresFor(d, fn);
        items.push({ ...f, name: fnName(d, fn), start: hex(f.start), callees: f.callees.map(hex) });
      }
      if (!args.pointers) return { ...page, items };
      // The slots pointing at this page's functions only, so that a page stays under the output
      // cap however many tables the binary has (a 5 MB program holds thousands of slots).
      const onPage = new Set(page.items.map((f) => f.start));
      const listed = functionPointers(d).filter(([, to]) => onPage.has(to)).map(([slot, to]) =>
        [hex(slot), hex(to)] as [string, string]
      );
      return { ...page, items, pointers: listed };
    }),
    impl(featureRowsSpec, async (_args, ctx) => {
      const d = db();
      await loadStored(d);
      const before = computed;
      const fns = analysisOf(d).functions();
      const out: FunctionFeatures[] = [];
      for (const fn of fns) {
        if (ctx.signal.aborted) {
          throw new RemcpError("Cancelled", "_function_features was cancelled");
        }
        out.push(await featuresFor(d, fn));
        if (out.length % 1000 === 0) ctx.progress(out.length, fns.length);
      }
      // Names as now (a rename since the features were kept shows).
      const names = fns.map((fn) => fnName(d, fn));
      const id = d.analysisInfo?.id;
      // Features computed in this call, a function list or names that differ: encoded afresh.
      const same = computed === before && last !== undefined && last.id === id &&
        last.names.length === names.length && names.every((n, k) => n === last!.names[k]);
      if (!same) {
        const rows = encodeRows(out.map((f, k) => ({ ...f, name: names[k]! })));
        if (id !== undefined) last = { id, names, rows };
        store(d, rows);
        return rowsResult(out.length, rows, computed - before, functionPointers(d));
      }
      return rowsResult(out.length, last!.rows, computed - before, functionPointers(d));
    }, { uncapped: true, textField: "rows" }),
  ];
}
