/** The state of one database open in the embedded engine. */

/** What the embedded tools read from. */
export interface EmbeddedDb {
  path: string;
  name: string;
  bytes: Uint8Array;
  sha256: string;
  options: Record<string, unknown>;
  header: { format: string; bits: number; endian: string };
}

/** Returns the loaded database or throws Busy. */
export type DbAccess = () => EmbeddedDb;
