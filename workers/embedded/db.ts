/** The state of one database open in the embedded engine, and address resolution over it. */
import { RemcpError } from "../../src/errors.ts";
import { parseAddress } from "../../src/protocol/address.ts";
import { hex } from "../../src/protocol/paging.ts";
import type { BinaryImage } from "./formats/image.ts";
import type { NameIndex } from "./names.ts";
import type { AnnotationStore } from "../shared/store/store.ts";
import type { CodeView } from "./code.ts";
import type { Analysis } from "./analysis/analysis.ts";
import type { FunctionInfo } from "./analysis/types.ts";
import type { DecompilerCache } from "./decompiler/cache.ts";
import type { BuiltinPrototypes } from "./decompiler/abi/prototypes.ts";

/** What the embedded tools read from. */
export interface EmbeddedDb {
  path: string;
  name: string;
  sha256: string;
  options: Record<string, unknown>;
  image: BinaryImage;
  names: NameIndex;
  store: AnnotationStore;
  code: CodeView;
  /** Set once analysis has run (or was loaded from the cache). */
  analysis?: Analysis;
  /** Why there is no analysis, when it failed or overran its time budget. */
  analysisError?: string;
  /**
   * How the analysis was obtained, how long that took, and its id (equal ids, equal analyses:
   * what caches derived from the analysis are keyed by).
   */
  analysisInfo?: { cached: boolean; seconds: number; id: string };
  /** Name of the function containing an address, once analysis has run. */
  functionOf?: (address: number) => string | undefined;
  /** Start of the function containing an address, once analysis has run. */
  functionStart?: (address: number) => number | undefined;
  /** The default (non-user) name at an address, e.g. sub_401000, once analysis has run. */
  defaultName?: (address: number) => string | undefined;
  /** Decompiled functions, by start (created on the first decompile_function). */
  decompiler?: DecompilerCache;
  /** The built-in prototype table, made on first use (each entry parsed when first read). */
  prototypes?: BuiltinPrototypes;
}

/** Returns the loaded database or throws Busy. */
export type DbAccess = () => EmbeddedDb;

/** Resolves an address expression against the database's names. */
export function resolve(db: EmbeddedDb, expr: string | number): number {
  return parseAddress(expr, db.names);
}

/** Resolves an address that must be mapped, with a helpful error otherwise. */
export function resolveMapped(db: EmbeddedDb, expr: string | number): number {
  const addr = resolve(db, expr);
  if (!db.image.isMapped(addr)) throw unmapped(db, addr);
  return addr;
}

/** The InvalidAddress error for an unmapped address, naming the mapped ranges. */
export function unmapped(db: EmbeddedDb, addr: number): RemcpError {
  const ranges = db.image.segments.filter((s) => s.end > s.start)
    .map((s) => `${s.name || "segment"} ${hex(s.start)}-${hex(s.end)}`).slice(0, 8);
  return new RemcpError(
    "InvalidAddress",
    `${hex(addr)} is not mapped in ${db.name}; mapped ranges: ${ranges.join(", ")}`,
    { address: hex(addr) },
  );
}

/** `name+0x10` style label for an address, or undefined when nothing is near. */
export function labelOf(db: EmbeddedDb, addr: number): string | undefined {
  const n = db.names.nearest(addr);
  if (!n) return undefined;
  return n.offset === 0 ? n.name : `${n.name}+${hex(n.offset)}`;
}

/** The analysis, or Busy when it is not done (tools that need it are refused until then). */
export function analysisOf(db: EmbeddedDb): Analysis {
  if (!db.analysis) {
    if (db.analysisError) throw new RemcpError("Unsupported", db.analysisError, {});
    throw new RemcpError("Busy", "Analysis is still running: call wait_for_analysis first", {});
  }
  return db.analysis;
}

/** A function's effective name: the user's, else the analysis's. */
export function fnName(db: EmbeddedDb, fn: FunctionInfo): string {
  return db.names.userName(fn.start) ?? fn.name;
}

/** The function containing an address, or NotFound naming the nearest one. */
export function functionContaining(db: EmbeddedDb, expr: string | number): FunctionInfo {
  const a = analysisOf(db);
  const addr = resolve(db, expr);
  const fn = a.functionAt(addr);
  if (fn) return fn;
  const fns = a.functions();
  let near: FunctionInfo | undefined;
  for (const f of fns) {
    if (!near || Math.abs(f.start - addr) < Math.abs(near.start - addr)) near = f;
  }
  throw new RemcpError(
    "NotFound",
    `No function contains ${hex(addr)}` +
      (near ? `; the nearest is ${fnName(db, near)} at ${hex(near.start)}` : "") +
      ` (list_functions lists them; disassemble works at any address)`,
    { address: hex(addr), ...(near ? { nearest: hex(near.start) } : {}) },
  );
}
