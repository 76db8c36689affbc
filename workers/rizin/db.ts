/** The state of one database open in rizin, and address resolution over it. */
import { RemcpError } from "../../src/errors.ts";
import { parseAddress } from "../../src/protocol/address.ts";
import { hex } from "../../src/protocol/paging.ts";
import type { AnnotationStore } from "../shared/store/store.ts";
import type { RizinVersion } from "../../src/probes/rizin.ts";
import type { AnalysisFacts, Model, StaticFacts } from "./model.ts";
import type { Conn, RizinSession } from "./session.ts";

/** What the rizin tools read from. */
export interface RizinDb {
  path: string;
  name: string;
  sha256: string;
  size: number;
  options: Record<string, unknown>;
  version: RizinVersion;
  store: AnnotationStore;
  session: RizinSession;
  /** Facts read before analysis, once per rizin process (set during open). */
  staticFacts(): StaticFacts | undefined;
  /** The model for this rizin process, built on first use. */
  model(c: Conn): Promise<Model>;
  /** Re-reads the analysis facts (after a change that rizin's function list reflects). */
  refresh(c: Conn): Promise<Model>;
  /** Analysis facts cache, if any. */
  analysisFacts(): AnalysisFacts | undefined;
}

/** Returns the open database or throws Busy. */
export type DbAccess = () => RizinDb;

/** Resolves an address expression against the model's names. */
export function resolve(m: Model, expr: string | number): number {
  return parseAddress(expr, m);
}

/** Resolves an address that rizin can read, with a helpful error otherwise. */
export function resolveMapped(m: Model, expr: string | number, fileName: string): number {
  const a = resolve(m, expr);
  if (!m.isMapped(a)) throw unmapped(m, a, fileName);
  return a;
}

/** The InvalidAddress error for an unmapped address, naming the mapped ranges. */
export function unmapped(m: Model, a: number, fileName: string): RemcpError {
  const ranges = (m.st.maps.length ? m.st.maps : m.st.segments).slice(0, 8)
    .map((r) => `${r.name || "map"} ${hex(r.start)}-${hex(r.end)}`);
  return new RemcpError(
    "InvalidAddress",
    `${hex(a)} is not mapped in ${fileName}; mapped ranges: ${ranges.join(", ")}`,
    { address: hex(a) },
  );
}

/** Resolves an address to the function containing it, or NotFound naming the nearest one. */
export function resolveFunction(m: Model, expr: string | number, fileName: string) {
  const a = resolveMapped(m, expr, fileName);
  const f = m.functionContaining(a);
  if (f) return f;
  const after = m.an.functions.find((x) => x.start > a);
  const before = [...m.an.functions].reverse().find((x) => x.start < a);
  const near = [before, after].filter((x) => x !== undefined)
    .sort((x, y) => Math.abs(x.start - a) - Math.abs(y.start - a))[0];
  throw new RemcpError(
    "NotFound",
    `No function contains ${hex(a)}` +
      (near ? `; the nearest is ${m.functionName(near)} at ${hex(near.start)}` : ""),
    { address: hex(a), ...(near ? { nearest: hex(near.start) } : {}) },
  );
}
