/**
 * WorkerPool: one worker process per open database. Opens (with dedup), routes, serializes the
 * calls to one database while different databases run in parallel, tracks analysis state,
 * attaches and detaches sessions, and detects crashed workers.
 */
import { basename, isAbsolute, resolve as resolvePath } from "node:path";
import { fromErrorPayload, RemcpError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { ToolResult } from "../protocol/results.ts";
import type { WireResult } from "../protocol/wire_result.ts";
import type { Config } from "../config.ts";
import { type WorkerStatus, WorkerStatusSchema } from "../protocol/worker_status.ts";
import { type CallOptions, type Spawner, WorkerProcess } from "./worker_process.ts";
import { cancelSignalFor, isPythonBackend, PythonWorkers } from "./python_workers.ts";

/** Where a database is in its life, as list_databases shows it. */
export type DatabaseState = "loading" | "analysing" | "ready" | "failed" | "crashed" | "closed";

/** One open database. */
export interface Database {
  id: string;
  path: string;
  backend: string;
  options: Record<string, unknown>;
  key: string;
  state: DatabaseState;
  status: WorkerStatus;
  worker: WorkerProcess;
  sessions: Set<string>;
  openedAt: number;
  /** Deleted when the database closes (open_data). */
  tempFile?: string;
  error?: RemcpError;
  /** Tail of the serialized call queue. */
  queue: Promise<unknown>;
  /** Settles when the state leaves loading/analysing. */
  settled: Promise<void>;
}

/** Options of {@link WorkerPool.open}. */
export interface OpenRequest {
  path: string;
  backend: string;
  options: Record<string, unknown>;
  forceNew: boolean;
  session: string;
  tempFile?: string;
}

/** What the pool needs from its surroundings. */
export interface PoolDeps {
  config: Config;
  log: Logger;
  spawn?: Spawner;
  /** Environment passed to workers. */
  env?: Record<string, string>;
  /** What a call without an open database is told to do. */
  noDatabaseHint?: string;
}

/** Options of {@link WorkerPool.call}: the timeout defaults to REMCP_CALL_TIMEOUT. */
export type PoolCallOptions = Omit<CallOptions, "timeoutMs"> & { timeoutMs?: number };

/** The set of open databases and their workers. */
export class WorkerPool {
  #dbs = new Map<string, Database>();
  #deps: PoolDeps;
  #closing = false;
  #python: PythonWorkers;

  constructor(deps: PoolDeps) {
    this.#deps = deps;
    this.#python = new PythonWorkers(deps.config);
  }

  // An injected spawner (tests) wins; otherwise Python backends run python3, the rest remcp.
  #spawnerFor(backend: string): Spawner | undefined {
    if (this.#deps.spawn) return this.#deps.spawn;
    return isPythonBackend(backend) ? this.#python.spawner(backend) : undefined;
  }

  /** Every database, open or dead, in opening order. */
  list(): Database[] {
    return [...this.#dbs.values()];
  }

  /** Databases with a live worker. */
  live(): Database[] {
    return this.list().filter((d) => d.state !== "crashed" && d.state !== "failed");
  }

  /** Opens `req.path`, or returns the database already open on it. */
  async open(req: OpenRequest): Promise<{ db: Database; existing: boolean }> {
    if (this.#closing) throw new RemcpError("Unavailable", "remcp is shutting down", {});
    const canonical = await canonicalFile(req.path);
    const key = `${req.backend}\0${canonical}\0${JSON.stringify(sortKeys(req.options))}`;
    if (!req.forceNew) {
      const same = this.list().find((d) =>
        d.key === key && d.state !== "crashed" && d.state !== "failed"
      );
      if (same) {
        same.sessions.add(req.session);
        return { db: same, existing: true };
      }
    }
    // Dead entries for the same key make way for the new one.
    for (const d of this.list()) {
      if (d.key === key && (d.state === "crashed" || d.state === "failed")) this.#dbs.delete(d.id);
    }
    if (this.live().length >= this.#deps.config.maxWorkers) {
      throw new RemcpError(
        "Busy",
        `${this.live().length} databases are open, the most REMCP_MAX_WORKERS allows: ` +
          `close one with close_database first`,
        { open: this.live().map((d) => d.id), max_workers: this.#deps.config.maxWorkers },
      );
    }
    const id = this.#newId(canonical);
    let worker = await this.#takeStandby(req.backend, canonical, req.options);
    worker ??= await WorkerProcess.start({
      backend: req.backend,
      path: canonical,
      options: req.options,
      databaseId: id,
      env: this.#deps.env ?? workerEnv(this.#deps.config),
      log: this.#deps.log,
      spawn: this.#spawnerFor(req.backend),
      cancelSignal: cancelSignalFor(req.backend),
      memoryBudgetBytes: this.#deps.config.workerMemoryMb * 1024 * 1024,
    });
    if (req.backend === STANDBY_BACKEND) this.#refillStandby();
    const settled = Promise.withResolvers<void>();
    const db: Database = {
      id,
      path: canonical,
      backend: req.backend,
      options: req.options,
      key,
      state: "loading",
      status: { state: "loading" },
      worker,
      sessions: new Set([req.session]),
      openedAt: Date.now(),
      queue: Promise.resolve(),
      settled: settled.promise,
      ...(req.tempFile ? { tempFile: req.tempFile } : {}),
    };
    this.#dbs.set(id, db);
    void worker.exited.then(() => this.#onExit(db));
    void this.#watch(db).finally(() => settled.resolve());
    return { db, existing: false };
  }

  // One embedded worker is kept started and waiting for a file, so that opening one does not
  // wait for a process to start (most of a reopen's time otherwise).
  #standby: Promise<WorkerProcess | undefined> | undefined;

  #refillStandby(): void {
    if (this.#closing || this.#standby) return;
    this.#standby = WorkerProcess.start({
      backend: STANDBY_BACKEND,
      path: undefined,
      options: {},
      databaseId: "standby",
      env: this.#deps.env ?? workerEnv(this.#deps.config),
      log: this.#deps.log,
      spawn: this.#spawnerFor(STANDBY_BACKEND),
      memoryBudgetBytes: this.#deps.config.workerMemoryMb * 1024 * 1024,
    }).catch((err) => {
      this.#deps.log.warn(`standby worker did not start: ${(err as Error).message}`);
      return undefined;
    });
  }

  async #takeStandby(
    backend: string,
    path: string,
    options: Record<string, unknown>,
  ): Promise<WorkerProcess | undefined> {
    if (backend !== STANDBY_BACKEND || !this.#standby) return undefined;
    const pending = this.#standby;
    this.#standby = undefined;
    const worker = await pending;
    if (!worker?.alive) return undefined;
    try {
      await worker.attach(path, options);
      return worker;
    } catch (err) {
      this.#deps.log.warn(`standby worker refused the file: ${(err as Error).message}`);
      worker.kill();
      return undefined;
    }
  }

  #newId(path: string): string {
    const stem = basename(path).replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 32) || "db";
    let id = stem;
    for (let n = 2; this.#dbs.has(id); n++) id = `${stem}-${n}`;
    return id;
  }

  // Polls the worker's status until it leaves loading/analysing; status calls bypass the queue.
  async #watch(db: Database): Promise<void> {
    let delay = 5;
    while (db.state === "loading" || db.state === "analysing") {
      try {
        const s = await db.worker.callStructured("_status", {}, { timeoutMs: 30_000 });
        db.status = WorkerStatusSchema.parse(s);
      } catch (err) {
        if (!db.worker.alive) return;
        this.#deps.log.warn(`status of ${db.id} failed: ${(err as Error).message}`);
      }
      const state = db.status.state;
      if (state === "ready") db.state = "ready";
      else if (state === "failed") {
        db.state = "failed";
        db.error = fromErrorPayload(db.status.error) ??
          new RemcpError("OpenFailed", `Opening ${db.path} failed`, {});
        void db.worker.close(1000);
        this.#cleanupTemp(db);
      } else if (state === "analysing") db.state = "analysing";
      if (db.state === "loading" || db.state === "analysing") {
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 250);
      }
    }
  }

  #onExit(db: Database): void {
    if (db.state === "closed" || db.state === "failed") return;
    db.state = "crashed";
    db.error = db.worker.crashError();
    this.#deps.log.warn(`worker for ${db.id} ${db.worker.exitDescription()}`, {
      stderr: db.worker.stderrTail().slice(-5),
    });
  }

  /** Waits until the database has finished loading (not analysing), bounded by `timeoutMs`. */
  async waitLoaded(db: Database, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (db.state === "loading" && Date.now() < deadline) {
      await Promise.race([db.settled, new Promise((r) => setTimeout(r, 10))]);
    }
  }

  /**
   * Finds the database a call addresses: by id, or the only open one when `id` is omitted.
   * Attaches the session.
   */
  resolve(id: string | undefined, session: string): Database {
    if (id !== undefined) {
      // The common case first, without listing every database (only a refusal names them).
      const db = this.#dbs.get(id);
      if (db && db.state !== "closed") {
        db.sessions.add(session);
        return db;
      }
    }
    const open = this.list().filter((d) => d.state !== "closed");
    if (id === undefined) {
      const live = open.filter((d) => d.state !== "failed");
      if (live.length === 1) {
        live[0]!.sessions.add(session);
        return live[0]!;
      }
      if (live.length === 0) {
        throw new RemcpError(
          "NoDatabase",
          `No database is open: ${
            this.#deps.noDatabaseHint ?? "call open_database with a file path first"
          }`,
          {},
        );
      }
      throw new RemcpError(
        "InvalidArgument",
        `${live.length} databases are open: pass database, one of ${
          live.map((d) => d.id).join(", ")
        }`,
        { param: "database", open: live.map((d) => d.id) },
      );
    }
    throw new RemcpError(
      "NoDatabase",
      `No open database "${id}"; open ones: ${
        open.map((d) => d.id).join(", ") || "none (call open_database)"
      }`,
      { database: id, open: open.map((d) => d.id) },
    );
  }

  /**
   * Refuses a database whose worker is gone (crashed, or its open failed). Whether a tool may
   * run while the file is still loading or analysing is the worker's decision alone (each tool
   * declares it), so it is not made here.
   */
  checkAlive(db: Database): void {
    if (db.state === "crashed" || db.state === "failed") throw db.error ?? db.worker.crashError();
  }

  /** Calls a worker tool, serialized with the database's other calls. */
  call(
    db: Database,
    tool: string,
    args: Record<string, unknown>,
    options: PoolCallOptions & { wire: true },
  ): Promise<ToolResult | WireResult>;
  call(
    db: Database,
    tool: string,
    args: Record<string, unknown>,
    options: PoolCallOptions & { wire?: false },
  ): Promise<ToolResult>;
  call(
    db: Database,
    tool: string,
    args: Record<string, unknown>,
    options: PoolCallOptions,
  ): Promise<ToolResult | WireResult>;
  call(
    db: Database,
    tool: string,
    args: Record<string, unknown>,
    options: PoolCallOptions,
  ): Promise<ToolResult | WireResult> {
    const timeoutMs = options.timeoutMs ?? this.#deps.config.callTimeoutS * 1000;
    const run = async (): Promise<ToolResult | WireResult> => {
      if (db.state === "crashed") throw db.error ?? db.worker.crashError();
      if (options.signal?.aborted) {
        throw new RemcpError("Cancelled", `The call to ${tool} was cancelled`, { tool });
      }
      try {
        return await db.worker.call(tool, args, { ...options, timeoutMs });
      } catch (err) {
        if (err instanceof RemcpError && err.code === "Timeout") {
          // A worker that overran its deadline may be wedged in a loop: replace it rather than
          // queue every later call behind it. Annotations are stored per change, so none is lost.
          this.#deps.log.warn(`killing ${db.id} after a ${tool} timeout`);
          db.worker.kill();
          err.detail.worker = "killed; reopen the file with open_database";
        }
        throw err;
      }
    };
    const result = db.queue.then(run, run);
    db.queue = result.catch(() => {});
    return result;
  }

  /** Detaches `session` from every database (a disconnect never kills a worker). */
  detachSession(session: string): void {
    for (const db of this.#dbs.values()) db.sessions.delete(session);
  }

  /**
   * Closes a database for `session`. The worker stops only when no other session is attached,
   * unless `force`.
   */
  async close(
    db: Database,
    session: string,
    force: boolean,
  ): Promise<{ closed: boolean; still_attached: number }> {
    db.sessions.delete(session);
    const others = db.sessions.size;
    if (others > 0 && !force && db.state !== "crashed" && db.state !== "failed") {
      return { closed: false, still_attached: others };
    }
    db.state = "closed";
    this.#dbs.delete(db.id);
    await db.worker.close();
    this.#cleanupTemp(db);
    return { closed: true, still_attached: 0 };
  }

  #cleanupTemp(db: Database): void {
    if (!db.tempFile) return;
    try {
      Deno.removeSync(db.tempFile);
    } catch {
      // Already gone.
    }
  }

  /** Saves and stops every worker. */
  async shutdown(): Promise<void> {
    this.#closing = true;
    const standby = this.#standby;
    this.#standby = undefined;
    // Awaited like the others: a caller that exits after shutdown leaves no child behind.
    await Promise.all([
      standby?.then((w) => w?.close(1000)),
      ...this.list().map(async (db) => {
        db.state = "closed";
        await db.worker.close(3000);
        this.#cleanupTemp(db);
      }),
    ]);
    this.#dbs.clear();
  }
}

/** The backend whose workers can start ahead of need (the others load an engine per file). */
const STANDBY_BACKEND = "embedded";

/**
 * The environment workers get: ours, plus the settings that came from flags rather than the
 * environment (a worker reads its configuration from REMCP_* variables).
 */
export function workerEnv(config: Config): Record<string, string> {
  const env = Deno.env.toObject();
  env.REMCP_MAX_OUTPUT_BYTES = String(config.maxOutputBytes);
  env.REMCP_STATE_DIR = config.stateDir;
  env.REMCP_ALLOW_WRITE = config.allowWrite ? "1" : "0";
  env.REMCP_ALLOW_SCRIPTS = config.allowScripts ? "1" : "0";
  env.REMCP_LOG_LEVEL = config.logLevel;
  if (config.rizinPath) env.REMCP_RIZIN = config.rizinPath;
  if (config.logDir) env.REMCP_LOG_DIR = config.logDir;
  return env;
}

function sortKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Resolves a path to its canonical form, refusing directories and unreadable files up front.
 * No shell stands between the agent and this path, so `~/` is expanded here (from HOME) and a
 * relative path that is not found says which folder it was resolved against.
 */
export async function canonicalFile(
  path: string,
  env: { home?: string | undefined; cwd: () => string } = {
    home: Deno.env.get("HOME"),
    cwd: () => Deno.cwd(),
  },
): Promise<string> {
  const given = path;
  if (path === "~" || path.startsWith("~/")) {
    if (!env.home) {
      throw new RemcpError(
        "OpenFailed",
        `Cannot expand "~" in ${given}: HOME is not set; give the full path`,
        { path: given },
      );
    }
    path = env.home + path.slice(1);
  } else if (path.startsWith("~")) {
    throw new RemcpError(
      "OpenFailed",
      `${given} names another user's home folder, which remcp does not expand: give the full path`,
      { path: given },
    );
  }
  let real: string;
  try {
    real = await Deno.realPath(resolvePath(env.cwd(), path));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      const relative = !isAbsolute(path);
      const where = resolvePath(env.cwd(), path);
      throw new RemcpError(
        "OpenFailed",
        relative
          ? `No such file: ${given} (a relative path, resolved against the server's folder ` +
            `${env.cwd()} to ${where}); give the full path`
          : `No such file: ${given}; check the path`,
        { path: given, ...(relative ? { resolved: where } : {}) },
      );
    }
    throw new RemcpError("OpenFailed", `Cannot resolve ${path}: ${(err as Error).message}`, {
      path,
    });
  }
  const info = await Deno.stat(real);
  if (info.isDirectory) {
    throw new RemcpError("OpenFailed", `${path} is a directory: give the path of a file in it`, {
      path,
    });
  }
  if (!info.isFile) {
    throw new RemcpError("OpenFailed", `${path} is not a regular file`, { path });
  }
  if (info.size === 0) {
    throw new RemcpError("OpenFailed", `${path} is empty (0 bytes): there is nothing to analyse`, {
      path,
    });
  }
  try {
    const f = await Deno.open(real, { read: true });
    f.close();
  } catch (err) {
    throw new RemcpError("OpenFailed", `${path} is not readable: ${(err as Error).message}`, {
      path,
    });
  }
  return real;
}
