/**
 * Reads the diffing features of one open database through its worker's tools: the embedded
 * backend's function_features in pages, or — on backends without it, or when asked — the tools
 * every backend shares (list_functions, disassemble_function, get_cfg, function_summary, with
 * plainer fallbacks), reduced to features by the same code.
 */
import { RemcpError } from "../errors.ts";
import { resultValue } from "../protocol/results.ts";
import type { CallContext, Host } from "../supervisor/host.ts";
import { computeFeatures, type FeatureInsn, type FunctionFeatures } from "./features.ts";
import { decodeRows, featureRowsSpec, ROW_LAYOUT } from "./feature_rows.ts";
import { hashText } from "./hash.ts";
import type { FunctionPointer } from "./tables.ts";

/** How features are read: the backend's bulk tool when it has one, or the shared tools only. */
export type GatherMode = "auto" | "portable";

/** Calls worker tools of one database, turning error results into RemcpErrors. */
export type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<Obj>;

type Obj = Record<string, unknown>;

/** A ToolCaller bound to database `id`, going through the supervisor like `call` does. */
export function callerFor(sup: Host, id: string, ctx: CallContext): ToolCaller {
  return async (name, args) => {
    if (ctx.signal.aborted) throw cancelled();
    const r = await sup.callTool(name, { ...args, database: id }, { ...ctx, via: "call" });
    return resultValue(r, name);
  };
}

/**
 * Features of every function, and how many of them the worker computed for this read (the rest
 * it had kept or stored earlier); `computed` is unknown for reads through the paged tool.
 */
export interface Gathered {
  features: FunctionFeatures[];
  computed?: number;
  /**
   * [slot, function start] for each data slot holding a function's start, in slot order; absent
   * when the backend cannot tell (the matcher's function-pointer tables round then pairs nothing).
   */
  pointers?: FunctionPointer[];
}

/** Reads every function's features in one call, or undefined when the backend cannot. */
export type BulkReader = (
  progress: (done: number, total: number) => void,
) => Promise<Gathered | undefined>;

/**
 * The embedded backend's internal `_function_features` for database `id`, straight to its worker
 * (the tool is not in the catalog, so clients cannot call it): one result without the output cap.
 */
export function bulkReaderFor(sup: Host, id: string, ctx: CallContext): BulkReader {
  return async (progress) => {
    const db = sup.pool.resolve(id, ctx.session);
    if (!db.worker.tools.has(featureRowsSpec.name)) return undefined;
    if (ctx.signal.aborted) throw cancelled();
    const result = await sup.pool.call(db, featureRowsSpec.name, {}, {
      signal: ctx.signal,
      onprogress: (p) => progress(p.progress, p.total ?? 0),
    });
    const value = resultValue(result, featureRowsSpec.name);
    // A worker of another version: its rows may mean something else; the paged tool still works.
    const rows = result.content[0]?.text;
    if (value.layout !== ROW_LAYOUT || typeof rows !== "string") return undefined;
    const out = decodeRows(rows);
    progress(out.length, out.length);
    const pointers = value.pointers as FunctionPointer[] | undefined;
    return {
      features: out,
      computed: Number(value.computed),
      ...(Array.isArray(pointers) ? { pointers } : {}),
    };
  };
}

/** The error a cancelled diff ends with. */
export function cancelled(): RemcpError {
  return new RemcpError("Cancelled", "The diff was cancelled; both databases are unchanged");
}

const num = (v: unknown) => typeof v === "string" ? Number(v) : Number(v ?? NaN);
const items = (page: Obj) => (page.items ?? []) as Obj[];
// Below this an immediate is a small number, not an absolute address (PIE images start at 0).
const MIN_ADDRESS = 0x10000;

/** Every page of a paged tool, following next_offset. */
async function allPages(call: ToolCaller, name: string, args: Obj, each?: (n: number) => void) {
  const out: Obj[] = [];
  let offset = 0;
  for (;;) {
    const page = await call(name, { ...args, offset });
    out.push(...items(page));
    each?.(out.length);
    if (page.has_more !== true || typeof page.next_offset !== "number") return out;
    offset = page.next_offset;
  }
}

/**
 * A stamp that changes whenever the database's analysis or annotations change (file hash,
 * analysis id or facts, the head of the change journal), or undefined when the backend keeps no
 * journal (then nothing is cached). Equal stamps mean equal content, whatever the database id.
 */
export async function stampOf(call: ToolCaller): Promise<string | undefined> {
  const info = await call("get_database_info", {});
  let journal: Obj;
  try {
    journal = await call("list_changes", { limit: 50 });
  } catch (err) {
    if (err instanceof RemcpError && err.code === "Unsupported") return undefined;
    throw err;
  }
  const head = items(journal).map((c) => `${c.id}${c.undone ? "u" : ""}`).join(",");
  // The analysis id where the backend gives one (its time and cache state differ between opens
  // of the same analysis), else everything said about the analysis.
  const analysis = info.analysis as Obj | undefined;
  return hashText(
    JSON.stringify([info.backend, info.sha256, analysis?.id ?? analysis, journal.total, head]),
  );
}

/**
 * The features of every function of the database behind `call`: in one call where the backend
 * has `_function_features` (`bulk`), else in pages of function_features, else from the shared
 * tools (always in "portable" mode).
 */
export async function gatherFeatures(
  call: ToolCaller,
  mode: GatherMode,
  progress: (done: number, total: number) => void,
  bulk?: BulkReader,
): Promise<Gathered> {
  if (mode === "auto") {
    const all = await bulk?.(progress);
    if (all) return all;
    try {
      return await gatherBulk(call, progress);
    } catch (err) {
      if (!(err instanceof RemcpError && err.code === "Unsupported")) throw err;
    }
  }
  const features = await gatherPortable(call, progress);
  return { features, computed: features.length };
}

/**
 * Every function's features in pages of function_features, with the function pointers each page
 * lists (`pointers: true`). A backend that leaves the pointers out, or refuses the argument (a
 * worker of an older version), gives none: they are extra evidence, and the diff goes on without.
 */
async function gatherBulk(
  call: ToolCaller,
  progress: (done: number, total: number) => void,
): Promise<Gathered> {
  const features: FunctionFeatures[] = [];
  const pointers: FunctionPointer[] = [];
  let asked = true;
  let listed = false;
  let offset = 0;
  for (;;) {
    // About 300 items fill the default 128 KB output cap; a page under it is never cut and re-serialised.
    const args = { offset, limit: 250, ...(asked ? { pointers: true } : {}) };
    let page: Obj;
    try {
      page = await call("function_features", args);
    } catch (err) {
      const refused = err instanceof RemcpError && err.code !== "Cancelled" &&
        err.code !== "Unsupported";
      if (!(refused && asked && offset === 0)) throw err;
      asked = false;
      continue;
    }
    for (const f of items(page)) {
      features.push({
        ...(f as unknown as FunctionFeatures),
        start: num(f.start),
        callees: (f.callees as string[]).map(num),
      });
    }
    if (asked && Array.isArray(page.pointers)) {
      listed = true;
      for (const p of page.pointers as unknown[][]) pointers.push([num(p[0]), num(p[1])]);
    }
    progress(features.length, num(page.total));
    if (page.has_more !== true || typeof page.next_offset !== "number") {
      pointers.sort((x, y) => x[0] - y[0]);
      return { features, ...(listed ? { pointers } : {}) };
    }
    offset = page.next_offset;
  }
}

/** Remembers which optional tools the backend lacks, so each is tried once. */
class Optional {
  #missing = new Set<string>();
  constructor(readonly call: ToolCaller) {}
  async try(name: string, args: Obj): Promise<Obj | undefined> {
    if (this.#missing.has(name)) return undefined;
    try {
      return await this.call(name, args);
    } catch (err) {
      if (err instanceof RemcpError && err.code === "Unsupported") {
        this.#missing.add(name);
        return undefined;
      }
      throw err;
    }
  }
}

async function gatherPortable(
  call: ToolCaller,
  progress: (done: number, total: number) => void,
): Promise<FunctionFeatures[]> {
  const fns = await allPages(call, "list_functions", { limit: 10_000 });
  const segments = (await allPages(call, "list_segments", { limit: 10_000 }))
    .map((s) => ({ start: num(s.start), end: num(s.end) }));
  const isMapped = (v: number) =>
    v >= MIN_ADDRESS && segments.some((s) => v >= s.start && v < s.end);
  const opt = new Optional(call);
  const out: FunctionFeatures[] = [];
  for (const f of fns) {
    const start = num(f.start);
    const end = num(f.end);
    const insns = await instructions(opt, start, end);
    const cfg = await opt.try("get_cfg", { address: f.start });
    const summary = await opt.try("function_summary", {
      address: f.start,
      max_items: 200,
      disassembly_lines: 0,
    });
    const blocks = cfg
      ? (cfg.blocks as Obj[]).map((b) => ({ start: num(b.start), end: num(b.end) }))
      : [{ start, end }];
    const edges = cfg
      ? (cfg.edges as Obj[]).map((e) => ({ from: num(e.from), to: num(e.to) }))
      : [];
    const callees = summary ? (summary.callees as Obj[]).map((c) => num(c.address)) : [
      ...new Set(
        insns.filter((i) => /call|^bl/i.test(i.mnemonic) && i.target !== undefined)
          .map((i) => i.target!),
      ),
    ];
    out.push(computeFeatures({
      name: String(f.name),
      start,
      end,
      size: num(f.size),
      insns,
      blocks,
      edges,
      callees,
      strings: summary ? (summary.strings as Obj[]).map((s) => String(s.text)) : [],
      imports: summary ? (summary.imports as string[]) : [],
    }, isMapped));
    if (out.length % 10 === 0 || out.length === fns.length) progress(out.length, fns.length);
  }
  return out;
}

/** A function's instructions: disassemble_function, else a linear disassemble to its end. */
async function instructions(opt: Optional, start: number, end: number): Promise<FeatureInsn[]> {
  const rows: Obj[] = [];
  const whole = await opt.try("disassemble_function", { address: start, limit: 10_000 });
  if (whole) {
    rows.push(...items(whole));
    let page = whole;
    while (page.has_more === true && typeof page.next_offset === "number") {
      page = await opt.call("disassemble_function", {
        address: start,
        offset: page.next_offset,
        limit: 10_000,
      });
      rows.push(...items(page));
    }
  } else {
    let at = start;
    while (at < end) {
      const page = await opt.call("disassemble", { address: at, count: 2000 });
      const got = items(page).filter((r) => num(r.address) < end);
      rows.push(...got);
      if (got.length === 0 || page.next_address === undefined) break;
      at = num(page.next_address);
    }
  }
  return rows.map((r) => ({
    address: num(r.address),
    bytes: fromHex(String(r.bytes ?? "")),
    mnemonic: String(r.mnemonic ?? ""),
    operands: String(r.operands ?? ""),
    target: r.target === undefined ? undefined : num(r.target),
    ref: r.ref === undefined ? undefined : num(r.ref),
  }));
}

function fromHex(s: string): Uint8Array {
  const out = new Uint8Array(s.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return out;
}
