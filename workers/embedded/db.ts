/** The state of one database open in the embedded engine, and address resolution over it. */
import { RemcpError } from "../../src/errors.ts";
import { parseAddress } from "../../src/protocol/address.ts";
import { hex } from "../../src/protocol/paging.ts";
import type { BinaryImage } from "./formats/image.ts";
import type { NameIndex } from "./names.ts";
import type { AnnotationStore } from "./store/store.ts";
import type { CodeView } from "./code.ts";

/** What the embedded tools read from. */
export interface EmbeddedDb {
  path: string;
  name: string;
  bytes: Uint8Array;
  sha256: string;
  options: Record<string, unknown>;
  image: BinaryImage;
  names: NameIndex;
  store: AnnotationStore;
  code: CodeView;
  /** Name of the function containing an address, once analysis has run. */
  functionOf?: (address: number) => string | undefined;
  /** Start of the function containing an address, once analysis has run. */
  functionStart?: (address: number) => number | undefined;
  /** The default (non-user) name at an address, e.g. sub_401000, once analysis has run. */
  defaultName?: (address: number) => string | undefined;
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
