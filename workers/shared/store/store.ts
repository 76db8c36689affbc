/**
 * The per-database store (node:sqlite, WAL): user annotations (names, comments, prototypes,
 * bookmarks), the change journal behind undo/redo and export, and the analysis cache. Every
 * change is its own committed transaction, so a killed worker loses at most the change in flight.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { dirname } from "node:path";
import { RemcpError } from "../../../src/errors.ts";
import { type OpenedStore, openStoreFile } from "./_open.ts";

/** The kinds of annotation the store keeps. */
export const ANNOTATION_KINDS = ["name", "comment", "prototype", "bookmark", "local"] as const;
/** One of {@link ANNOTATION_KINDS}. */
export type AnnotationKind = typeof ANNOTATION_KINDS[number];

/** One journal entry. */
export interface Change {
  id: number;
  kind: AnnotationKind;
  address: number;
  old: string | null;
  new: string | null;
  at: string;
  undone: boolean;
}

const SCHEMA_VERSION = "1";

/** Up to this many annotations of a kind are read at once and kept (see `#known`). */
const WHOLE_KIND_ROWS = 20_000;

const TABLES: Record<AnnotationKind, string> = {
  name: "names",
  comment: "comments",
  prototype: "prototypes",
  bookmark: "bookmarks",
  // The local variables of the function at the address: JSON {default name: {name?, type?}}.
  local: "locals",
};

function createTables(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS names (address INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS comments (address INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS prototypes (address INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS bookmarks (address INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS locals (address INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS journal (
      id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, address INTEGER NOT NULL,
      old TEXT, new TEXT, at TEXT NOT NULL, undone INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, data BLOB NOT NULL);
  `);
  db.prepare("INSERT OR IGNORE INTO meta VALUES ('schema', ?)").run(SCHEMA_VERSION);
}

/** Annotations and cache of one database. */
export class AnnotationStore {
  readonly path: string;
  /** What the user should know about this store (repaired damage, read-only); see _open.ts. */
  readonly notices: readonly string[];
  #db: DatabaseSync;
  #readOnly: string | undefined;
  #release: () => void;
  /**
   * The prepared reads of {@link get}, one per kind: the decompiler asks for the prototype and
   * the comment of many addresses per function, and preparing costs more than the read.
   */
  readonly #reads = new Map<AnnotationKind, StatementSync>();
  /**
   * What {@link get} has read, by kind and address (null: nothing there): a read costs tens of
   * microseconds (the WAL's lock and index), and the decompiler asks for the prototype of every
   * callee and the comment of every statement of each function. A kind's first read takes all
   * of its rows when there are not many ({@link #whole}), so that later reads of addresses
   * without one need no query either. Every write of this process goes through
   * {@link #write}, which keeps it true; a failed transaction forgets it all. A read-only store
   * is written by another process: it is read each time.
   */
  readonly #known = new Map<AnnotationKind, Map<number, string | null>>();
  /** The kinds whose every row is in {@link #known}. */
  readonly #whole = new Set<AnnotationKind>();

  private constructor(path: string, opened: OpenedStore) {
    this.path = path;
    this.#db = opened.db;
    this.#readOnly = opened.readOnly;
    this.notices = opened.notices;
    this.#release = opened.release;
  }

  /**
   * Opens (creating) the store at `path`. A damaged store is repaired, a locked or unwritable one
   * opens read-only; either way {@link notices} says so.
   */
  static open(path: string, opts: { maxPageCount?: number } = {}): AnnotationStore {
    const init = (db: DatabaseSync) => {
      // A cap on the file's size in pages: what a full disk looks like to SQLite (tests use it).
      if (opts.maxPageCount) db.exec(`PRAGMA max_page_count = ${Math.floor(opts.maxPageCount)}`);
      createTables(db);
    };
    return new AnnotationStore(path, openStoreFile(path, init));
  }

  /** A meta value (e.g. the file's path and hash). */
  getMeta(key: string): string | undefined {
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = ?").get(key);
    return row ? String(row.value) : undefined;
  }

  /** Sets a meta value. */
  setMeta(key: string, value: string): void {
    if (this.#readOnly) return; // informational only: a read-only store goes without
    this.#db.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)").run(key, value);
  }

  /** The annotation of `kind` at `address`. */
  get(kind: AnnotationKind, address: number): string | undefined {
    let known = this.#known.get(kind);
    if (!known && !this.#readOnly) known = this.#remember(kind);
    const hit = known?.get(address);
    if (hit !== undefined) return hit ?? undefined;
    if (this.#whole.has(kind)) return undefined;
    let read = this.#reads.get(kind);
    if (!read) {
      read = this.#db.prepare(`SELECT value FROM ${TABLES[kind]} WHERE address = ?`);
      this.#reads.set(kind, read);
    }
    const row = read.get(address);
    const value = row ? String(row.value) : undefined;
    known?.set(address, value ?? null);
    return value;
  }

  /** Starts remembering `kind`: with all of its rows when they are few. */
  #remember(kind: AnnotationKind): Map<number, string | null> {
    const known = new Map<number, string | null>();
    this.#known.set(kind, known);
    const n = Number(this.#db.prepare(`SELECT count(*) AS n FROM ${TABLES[kind]}`).get()?.n ?? 0);
    if (n <= WHOLE_KIND_ROWS) {
      for (const [address, value] of this.all(kind)) known.set(address, value);
      this.#whole.add(kind);
    }
    return known;
  }

  /** Every annotation of `kind`, by address. */
  all(kind: AnnotationKind): [number, string][] {
    return this.#db.prepare(`SELECT address, value FROM ${TABLES[kind]} ORDER BY address`).all()
      .map((r) => [Number(r.address), String(r.value)]);
  }

  /** Sets (or clears with null) an annotation and journals it; clears the redo stack. */
  set(kind: AnnotationKind, address: number, value: string | null): Change {
    const old = this.get(kind, address) ?? null;
    const at = new Date().toISOString();
    this.#tx(() => {
      this.#write(kind, address, value);
      this.#db.exec("DELETE FROM journal WHERE undone = 1");
      this.#db.prepare("INSERT INTO journal (kind, address, old, new, at) VALUES (?, ?, ?, ?, ?)")
        .run(kind, address, old, value, at);
    });
    const id = Number(this.#db.prepare("SELECT max(id) AS id FROM journal").get()?.id ?? 0);
    return { id, kind, address, old, new: value, at, undone: false };
  }

  #write(kind: AnnotationKind, address: number, value: string | null): void {
    if (value === null) {
      this.#db.prepare(`DELETE FROM ${TABLES[kind]} WHERE address = ?`).run(address);
    } else {
      this.#db.prepare(`INSERT OR REPLACE INTO ${TABLES[kind]} VALUES (?, ?)`).run(address, value);
    }
    this.#known.get(kind)?.set(address, value);
  }

  #tx(f: () => void): void {
    if (this.#readOnly) {
      throw new RemcpError("WriteFailed", `The change was not saved: ${this.#readOnly}`, {
        store: this.path,
      });
    }
    try {
      this.#db.exec("BEGIN IMMEDIATE");
      f();
      this.#db.exec("COMMIT");
    } catch (err) {
      // What the failed transaction wrote is not in the file: read it again.
      this.#known.clear();
      this.#whole.clear();
      // SQLite has already rolled back after some failures (a full disk); ROLLBACK would then
      // throw "no transaction is active" and hide the real cause.
      if (this.#db.isTransaction) {
        try {
          this.#db.exec("ROLLBACK");
        } catch { /* the first error is the one to report */ }
      }
      throw new RemcpError(
        "WriteFailed",
        `Saving the change failed: ${(err as Error).message}; nothing was changed. Free space ` +
          `in REMCP_STATE_DIR (${dirname(this.path)}) and try again`,
        { store: this.path },
      );
    }
  }

  /** Undoes the latest change; null when there is nothing to undo. */
  undo(): Change | null {
    const row = this.#db.prepare(
      "SELECT * FROM journal WHERE undone = 0 ORDER BY id DESC LIMIT 1",
    ).get();
    if (!row) return null;
    const c = toChange(row);
    this.#tx(() => {
      this.#write(c.kind, c.address, c.old);
      this.#db.prepare("UPDATE journal SET undone = 1 WHERE id = ?").run(c.id);
    });
    return { ...c, undone: true };
  }

  /** Redoes the latest undone change; null when there is nothing to redo. */
  redo(): Change | null {
    const row = this.#db.prepare(
      "SELECT * FROM journal WHERE undone = 1 ORDER BY id ASC LIMIT 1",
    ).get();
    if (!row) return null;
    const c = toChange(row);
    this.#tx(() => {
      this.#write(c.kind, c.address, c.new);
      this.#db.prepare("UPDATE journal SET undone = 0 WHERE id = ?").run(c.id);
    });
    return { ...c, undone: false };
  }

  /** Journal entries, newest first. */
  changes(offset: number, limit: number): { items: Change[]; total: number } {
    const total = Number(this.#db.prepare("SELECT count(*) AS n FROM journal").get()?.n ?? 0);
    const items = this.#db.prepare("SELECT * FROM journal ORDER BY id DESC LIMIT ? OFFSET ?")
      .all(limit, offset).map(toChange);
    return { items, total };
  }

  /** A cached blob (e.g. the analysis), if present. */
  loadCache(key: string): Uint8Array | undefined {
    try {
      const row = this.#db.prepare("SELECT data FROM cache WHERE key = ?").get(key);
      return row?.data instanceof Uint8Array ? row.data : undefined;
    } catch {
      return undefined; // an unreadable cache is rebuilt
    }
  }

  /** Stores a cached blob (not in a read-only store). */
  saveCache(key: string, data: Uint8Array): void {
    if (this.#readOnly) return;
    this.#db.prepare("INSERT OR REPLACE INTO cache VALUES (?, ?)").run(key, data);
  }

  /**
   * Removes cached blobs whose key starts with `prefix`, but `keep` (an analysis cached in an
   * older format: it would never be read again).
   */
  dropCache(prefix: string, keep: string): void {
    if (this.#readOnly) return;
    this.#db.prepare("DELETE FROM cache WHERE substr(key, 1, ?) = ? AND key <> ?")
      .run(prefix.length, prefix, keep);
  }

  /** Folds the WAL into the main file. */
  checkpoint(): void {
    this.#db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }

  /** Checkpoints and closes. */
  close(): void {
    try {
      if (!this.#readOnly) this.checkpoint();
    } finally {
      this.#db.close();
      this.#release();
    }
  }
}

function toChange(row: Record<string, unknown>): Change {
  return {
    id: Number(row.id),
    kind: String(row.kind) as AnnotationKind,
    address: Number(row.address),
    old: row.old === null ? null : String(row.old),
    new: row.new === null ? null : String(row.new),
    at: String(row.at),
    undone: Number(row.undone) === 1,
  };
}
