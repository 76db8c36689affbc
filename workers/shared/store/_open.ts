/**
 * Opening a store file so that a damaged, locked or unwritable store never stops the database
 * from opening, and never loses annotations silently:
 * - one writer per store: a lock file beside it; a second remcp process (another server on the
 *   same state folder, or `force_new`) opens it read-only, so two journals never interleave and
 *   one server's `undo` never reverts the other's change;
 * - damage: an integrity check on open; a damaged file is moved aside (kept, named in the
 *   notice), the rows still readable in it are copied into a fresh store, and the analysis
 *   cache is rebuilt;
 * - no writable state folder: the existing file read-only, or an empty store in memory.
 * Each such outcome is a notice the database shows among its warnings.
 */
import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";

/** An opened store connection and what happened on the way. */
export interface OpenedStore {
  db: DatabaseSync;
  /** Why writes are refused, when they are. */
  readOnly: string | undefined;
  /** What the user should know (damage repaired, read-only). */
  notices: string[];
  /** Releases the writer lock. */
  release(): void;
}

// Tables whose rows are worth saving from a damaged file: everything but the cache, which is
// rebuilt.
const REBUILT_TABLES = new Set(["cache"]);

/** Opens the store at `path`; `init` creates its tables (idempotent). */
export function openStoreFile(path: string, init: (db: DatabaseSync) => void): OpenedStore {
  const notices: string[] = [];
  let lock: Deno.FsFile | undefined;
  try {
    Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    lock = Deno.openSync(`${path}.lock`, { create: true, write: true, mode: 0o600 });
  } catch (err) {
    return readOnly(path, init, `the state folder is not writable (${message(err)})`, notices);
  }
  if (!lock.tryLockSync(true)) {
    lock.close();
    return readOnly(
      path,
      init,
      "another remcp process has this store open for writing (one writer per store)",
      notices,
    );
  }
  const release = () => {
    try {
      lock.unlockSync();
    } catch { /* closed */ }
    lock.close();
  };
  try {
    const damage = damageOf(path);
    if (damage !== undefined) notices.push(recover(path, init, damage));
    const db = writable(path, init);
    return { db, readOnly: undefined, notices, release };
  } catch (err) {
    release();
    return readOnly(path, init, `the store cannot be written (${message(err)})`, notices);
  }
}

function writable(path: string, init: (db: DatabaseSync) => void): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;");
    init(db);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** What is wrong with the file at `path`, or undefined when it is sound or absent. */
function damageOf(path: string): string | undefined {
  try {
    Deno.statSync(path);
  } catch {
    return undefined;
  }
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    const rows = db.prepare("PRAGMA quick_check").all().map((r) => String(Object.values(r)[0]));
    return rows.length === 1 && rows[0] === "ok" ? undefined : rows.slice(0, 3).join("; ");
  } catch (err) {
    return message(err);
  } finally {
    try {
      db?.close();
    } catch { /* already unusable */ }
  }
}

/**
 * Moves the damaged file aside and copies what rows it still gives into a fresh store. Returns
 * the notice.
 */
function recover(path: string, init: (db: DatabaseSync) => void, damage: string): string {
  const aside = `${path}.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  Deno.renameSync(path, aside);
  for (const suffix of ["-wal", "-shm"]) {
    try {
      Deno.renameSync(path + suffix, aside + suffix);
    } catch { /* none */ }
  }
  const fresh = writable(path, init);
  let copied = 0;
  const lost: string[] = [];
  try {
    const old = new DatabaseSync(aside, { readOnly: true });
    try {
      const tables = old.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()
        .map((r) => String(r.name)).filter((t) => !t.startsWith("sqlite_"));
      for (const table of tables) {
        if (REBUILT_TABLES.has(table)) continue;
        try {
          copied += copyRows(old, fresh, table);
        } catch (err) {
          lost.push(`${table} (${message(err)})`);
        }
      }
    } finally {
      old.close();
    }
  } catch (err) {
    lost.push(`every table (${message(err)})`);
  } finally {
    fresh.close();
  }
  return `The annotation store was damaged (${damage}): it was moved to ${aside}, ${copied} ` +
    `saved rows were recovered from it and the analysis is rebuilt` +
    (lost.length > 0
      ? `; could not read ${lost.join(", ")}: what they held is only in ${aside}`
      : "");
}

function copyRows(from: DatabaseSync, to: DatabaseSync, table: string): number {
  const quoted = `"${table.replaceAll('"', '""')}"`;
  const rows = from.prepare(`SELECT * FROM ${quoted}`).all();
  const first = rows[0];
  if (first === undefined) return 0;
  const cols = Object.keys(first);
  const insert = to.prepare(
    `INSERT OR REPLACE INTO ${quoted} (${cols.map((c) => `"${c.replaceAll('"', '""')}"`)}) ` +
      `VALUES (${cols.map(() => "?").join(", ")})`,
  );
  to.exec("BEGIN");
  try {
    for (const row of rows) insert.run(...cols.map((c) => row[c] as never));
    to.exec("COMMIT");
  } catch (err) {
    to.exec("ROLLBACK");
    throw err;
  }
  return rows.length;
}

/** The existing file read-only, else an empty store in memory; writes are refused either way. */
function readOnly(
  path: string,
  init: (db: DatabaseSync) => void,
  why: string,
  notices: string[],
): OpenedStore {
  let db: DatabaseSync | undefined;
  let where = `annotations already saved in ${path} are shown`;
  try {
    Deno.statSync(path);
    db = new DatabaseSync(path, { readOnly: true });
    db.exec("PRAGMA busy_timeout=5000;");
    db.prepare("SELECT count(*) FROM sqlite_master").get();
  } catch {
    db?.close();
    db = new DatabaseSync(":memory:");
    init(db);
    where = "no saved annotations could be read";
  }
  const reason = `${why}; the database is open read-only: ${where}, and renames, comments ` +
    `and other changes are refused`;
  notices.push(`The annotation store ${path} is read-only: ${reason}`);
  return { db, readOnly: reason, notices, release: () => {} };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
