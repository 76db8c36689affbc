/**
 * The supervisor: owns the pool, the catalog and the meta-tools, and dispatches every tool call
 * (from a client, or from call/batch/execute) to a management handler, a meta handler or a
 * worker. Never loads an engine.
 */
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import {
  byteLength,
  cappedResult,
  errorResult,
  resultError,
  type ToolResult,
} from "../protocol/results.ts";
import { inputJsonSchema, outputJsonSchema, parseArguments } from "../protocol/validate.ts";
import { WireResult } from "../protocol/wire_result.ts";
import { WORKER_TOOLS } from "../protocol/catalog/all.ts";
import { WorkerPool } from "./pool.ts";
import type { Spawner } from "./worker_process.ts";
import { SandboxPool } from "../sandbox/pool.ts";
import { spawnSandboxChild } from "../sandbox/sandbox_child.ts";
import { spawnSandboxThread, threadsAvailable } from "../sandbox/sandbox_thread.ts";
import type { CallContext, CatalogEntry, Host, LaneTarget, LocalTool, ToolKind } from "./host.ts";
import { makeOwnedTempDir } from "../owned_temp_dir.ts";

/** Tools that are still being loaded (the tools folder): calls to unknown names wait for them. */
export interface ToolSource {
  readonly loading: boolean;
  ready(): Promise<void>;
}

/** Options of the supervisor. */
export interface SupervisorOptions {
  config: Config;
  log: Logger;
  spawn?: Spawner;
  /** Supervisor-side tools by kind, in listing order (the composition root passes them). */
  tools?: { kind: Exclude<ToolKind, "worker">; tools: LocalTool[] }[];
  /** What a call without an open database is told to do (the default suits MCP clients). */
  noDatabaseHint?: string;
  /**
   * Workers' environment, instead of this process's (`workerEnv`): tests that set a worker-only
   * variable, since `Deno.env` is shared by every test file running in parallel.
   */
  workerEnv?: Record<string, string>;
}

const DATABASE_PARAM = z.string().min(1).max(128).optional().describe(
  "Database id from open_database (optional when exactly one is open)",
);
/** The part of every routed tool's input that the supervisor consumes. */
const ROUTING_INPUT = z.object({ database: DATABASE_PARAM });

/** The heart of remcp. */
export class Supervisor implements Host {
  readonly config: Config;
  readonly log: Logger;
  readonly pool: WorkerPool;
  readonly entries = new Map<string, CatalogEntry>();
  #tempDir: string | undefined;
  #sandbox: SandboxPool | undefined;
  #callsInFlight = 0;
  #routedInputs = new Map<string, z.ZodObject>();
  #jsonSchemas = new Map<
    string,
    { input: Record<string, unknown>; output: Record<string, unknown> }
  >();
  #toolListeners = new Set<() => void>();
  #sources: ToolSource[] = [];
  /** The `database` argument that last passed {@link ROUTING_INPUT}. */
  #checkedDatabase: string | undefined;
  /** Each backend's tools as its workers listed them (for the words of a refusal). */
  #toolsByBackend = new Map<string, ReadonlySet<string>>();

  constructor(options: SupervisorOptions) {
    this.config = options.config;
    this.log = options.log;
    this.pool = new WorkerPool({
      config: options.config,
      log: options.log,
      ...(options.spawn ? { spawn: options.spawn } : {}),
      ...(options.noDatabaseHint ? { noDatabaseHint: options.noDatabaseHint } : {}),
      ...(options.workerEnv ? { env: options.workerEnv } : {}),
    });
    const groups = options.tools ?? [];
    for (const group of groups.filter((g) => g.kind === "management")) {
      for (const t of group.tools) this.#add("management", t);
    }
    for (const group of groups.filter((g) => g.kind === "meta")) {
      for (const t of group.tools) this.#add("meta", t);
    }
    for (const spec of WORKER_TOOLS) this.entries.set(spec.name, { spec, kind: "worker" });
  }

  /** Adds supervisor-side tools of one kind (the composition root's wiring). */
  addTools(kind: Exclude<ToolKind, "worker">, tools: LocalTool[]): void {
    for (const t of tools) this.#add(kind, t);
    // Listing order is by kind (management, meta, worker, script), whatever the wiring order.
    const order: ToolKind[] = ["management", "meta", "worker", "script"];
    const sorted = [...this.entries.values()].sort((a, b) =>
      order.indexOf(a.kind) - order.indexOf(b.kind)
    );
    this.entries.clear();
    for (const e of sorted) this.entries.set(e.spec.name, e);
  }

  #add(kind: ToolKind, t: LocalTool): void {
    const nestable = t.nestable === true ? { nestable: true } : {};
    this.entries.set(t.spec.name, { spec: t.spec, kind, handler: t.handler, ...nestable });
  }

  /** Adds a source of tools that load in the background (calls to unknown names wait on it). */
  addToolSource(source: ToolSource): void {
    this.#sources.push(source);
  }

  /** Resolves once every tool source has finished loading. */
  async toolsReady(): Promise<void> {
    await Promise.all(this.#sources.map((s) => s.ready()));
  }

  /** Adds or replaces a tool at run time (script tools) and tells the listeners. */
  register(entry: CatalogEntry): void {
    this.#forget(entry.spec.name);
    this.entries.set(entry.spec.name, entry);
    this.#toolsChanged();
  }

  /** Removes a tool added at run time and tells the listeners. */
  unregister(name: string): void {
    this.#forget(name);
    if (this.entries.delete(name)) this.#toolsChanged();
  }

  /** Calls `listener` whenever the set of tools changes; returns the unsubscribe function. */
  onToolsChanged(listener: () => void): () => void {
    this.#toolListeners.add(listener);
    return () => this.#toolListeners.delete(listener);
  }

  #forget(name: string): void {
    this.#routedInputs.delete(name);
    this.#jsonSchemas.delete(name);
  }

  #toolsChanged(): void {
    for (const listener of [...this.#toolListeners]) {
      try {
        listener();
      } catch (err) {
        this.log.debug(`tool list listener failed: ${err instanceof Error ? err.message : err}`);
      }
    }
  }

  /** Whether a tool exists for callers at all (capability gates and disable flags). */
  enabled(entry: CatalogEntry): boolean {
    const cap = entry.spec.capability;
    if (cap === "write" && !this.config.allowWrite) return false;
    if (cap === "scripts" && !this.config.allowScripts) return false;
    if (entry.spec.name === "execute" && this.config.disableExecute) return false;
    if (entry.spec.name === "batch" && this.config.disableBatch) return false;
    return true;
  }

  /**
   * Why a tool that exists is not available in this configuration, naming what enables it; or
   * undefined when the tool is available or does not exist at all.
   */
  whyDisabled(name: string): string | undefined {
    const e = this.entries.get(name);
    if (!e || this.enabled(e)) return undefined;
    const cap = e.spec.capability;
    if (cap === "write") {
      return `${name} writes the file and is off: start remcp with --allow-write (or REMCP_ALLOW_WRITE=1)`;
    }
    if (cap === "scripts") {
      return `${name} runs raw engine commands and is off: start remcp with --allow-scripts ` +
        "(or REMCP_ALLOW_SCRIPTS=1)";
    }
    const variable = name === "execute" ? "REMCP_DISABLE_EXECUTE" : "REMCP_DISABLE_BATCH";
    return `${name} is turned off by ${variable}=1`;
  }

  /** Whether a tool appears in tools/list. */
  listed(entry: CatalogEntry): boolean {
    if (!this.enabled(entry)) return false;
    if ((entry.kind !== "worker" && entry.kind !== "script") || !this.config.toolSearch) {
      return true;
    }
    return entry.spec.pinned === true;
  }

  /** Enabled tools by name. */
  find(name: string): CatalogEntry | undefined {
    const e = this.entries.get(name);
    return e && this.enabled(e) ? e : undefined;
  }

  /** The input schema a client sees: worker tools gain the optional `database` parameter. */
  routedInput(entry: CatalogEntry): z.ZodObject {
    if (entry.kind !== "worker") return entry.spec.input;
    let s = this.#routedInputs.get(entry.spec.name);
    if (!s) {
      s = z.strictObject({ ...entry.spec.input.shape, database: DATABASE_PARAM });
      this.#routedInputs.set(entry.spec.name, s);
    }
    return s;
  }

  #schemas(entry: CatalogEntry) {
    let s = this.#jsonSchemas.get(entry.spec.name);
    if (!s) {
      s = {
        input: inputJsonSchema(this.routedInput(entry)),
        output: outputJsonSchema(entry.spec.output),
      };
      this.#jsonSchemas.set(entry.spec.name, s);
    }
    return s;
  }

  /** The JSON Schema of what a client passes (computed once per tool). */
  inputSchema(entry: CatalogEntry): Record<string, unknown> {
    return this.#schemas(entry).input;
  }

  /** The JSON Schema of a tool's result (computed once per tool). */
  outputSchema(entry: CatalogEntry): Record<string, unknown> {
    return this.#schemas(entry).output;
  }

  /** The sandbox pool, started on first use. */
  sandbox(): SandboxPool {
    if (!this.#sandbox) {
      const thread = this.config.sandbox === "thread" && threadsAvailable();
      if (this.config.sandbox === "thread" && !thread) {
        this.log.debug("sandbox: this launch has no --unstable-worker-options; using processes");
      }
      this.#sandbox = new SandboxPool({
        size: 2,
        spawn: thread ? spawnSandboxThread : spawnSandboxChild,
      });
    }
    return this.#sandbox;
  }

  /** A private 0700 folder for open_data samples, made on first use. */
  async tempDir(): Promise<string> {
    this.#tempDir ??= await makeOwnedTempDir("remcp-data-");
    return this.#tempDir;
  }

  /** Tool calls started and not yet finished, nested ones included (the daemon's idle clock). */
  get callsInFlight(): number {
    return this.#callsInFlight;
  }

  /** Calls tool `name`; tool failures come back as error results, never as exceptions. */
  callTool(name: string, rawArgs: unknown, ctx: CallContext): Promise<ToolResult> {
    return this.#counted(name, rawArgs, ctx, false) as Promise<ToolResult>;
  }

  /** {@link callTool}, where a worker's success may come back as its JSON's bytes. */
  callToolWire(name: string, rawArgs: unknown, ctx: CallContext): Promise<ToolResult | WireResult> {
    return this.#counted(name, rawArgs, ctx, true);
  }

  async #counted(
    name: string,
    rawArgs: unknown,
    ctx: CallContext,
    wire: boolean,
  ): Promise<ToolResult | WireResult> {
    this.#callsInFlight++;
    try {
      return await this.#callTool(name, rawArgs, ctx, wire);
    } finally {
      this.#callsInFlight--;
    }
  }

  async #callTool(
    name: string,
    rawArgs: unknown,
    ctx: CallContext,
    wire: boolean,
  ): Promise<ToolResult | WireResult> {
    let entry = this.find(name);
    if (!entry && this.#sources.some((s) => s.loading)) {
      await this.toolsReady();
      entry = this.find(name);
    }
    if (!entry) {
      const off = this.whyDisabled(name);
      return errorResult(
        off ? new RemcpError("Unsupported", off, { tool: name }) : new RemcpError(
          "InvalidArgument",
          `Unknown tool "${name}": use search_tools to find tool names`,
          { tool: name },
        ),
      );
    }
    try {
      // Script tools may be called through call/batch/execute, but not from other script tools:
      // nested sandboxes waiting on each other could exhaust the sandbox pool.
      const nestable = entry.kind === "worker" || entry.nestable === true ||
        (entry.kind === "script" && ctx.via !== "script");
      if (ctx.via !== "client" && !nestable) {
        throw new RemcpError(
          "InvalidArgument",
          `${name} is a ${entry.kind} tool and cannot be called through ${ctx.via}: ` +
            `call it directly`,
          { tool: name },
        );
      }
      if (entry.kind === "worker") return await this.#callWorker(entry, rawArgs, ctx, wire);
      const args = parseArguments(name, entry.spec.input, rawArgs) as Record<string, unknown>;
      const value = await entry.handler!(this, args, ctx);
      return cappedResult(value, this.config.maxOutputBytes);
    } catch (err) {
      if (!(err instanceof RemcpError)) {
        this.log.error(`${name} failed: ${err instanceof Error ? err.stack : err}`);
      }
      return errorResult(err, this.config.maxOutputBytes);
    }
  }

  async #callWorker(
    entry: CatalogEntry,
    rawArgs: unknown,
    ctx: CallContext,
    wire: boolean,
  ): Promise<ToolResult | WireResult> {
    const name = entry.spec.name;
    let args: Record<string, unknown> = {};
    let given: unknown;
    if (rawArgs !== undefined && rawArgs !== null) {
      if (typeof rawArgs !== "object" || Array.isArray(rawArgs)) {
        throw new RemcpError("InvalidArgument", `${name} takes an object of named arguments`, {});
      }
      ({ database: given, ...args } = rawArgs as Record<string, unknown>);
    }
    // The routing half of the routed schema is applied here; the worker parses the rest against
    // its own spec, so no argument is validated twice. The schema is pure, so the id that passed
    // it last passes again without a second parse (most calls name the same database).
    let database: string | undefined;
    if (given !== undefined && given !== null) {
      if (given !== this.#checkedDatabase) {
        ({ database } = parseArguments(name, ROUTING_INPUT, { database: given }));
        this.#checkedDatabase = database;
      } else database = given as string;
    }
    const db = this.pool.resolve(database, ctx.session);
    // Tool presence is the worker's own tools/list, never a hand-kept table.
    this.#toolsByBackend.set(db.backend, db.worker.tools);
    if (!db.worker.tools.has(name)) {
      const others = [...this.#toolsByBackend].filter(([b, t]) => b !== db.backend && t.has(name))
        .map(([b]) => b);
      throw new RemcpError(
        "Unsupported",
        `${name} is not available on the ${db.backend} backend: ` +
          (others.length > 0
            ? `backends that have it: ${others.join(", ")}; `
            : "list_backends shows the other backends; ") +
          `open the file with one of them (open_database {path, backend})`,
        { tool: name, backend: db.backend, backends: others },
      );
    }
    this.pool.checkAlive(db);
    const result = await this.pool.call(db, name, args, {
      signal: ctx.signal,
      onprogress: (p) => ctx.progress(p.progress, p.total, p.message),
      wire,
    });
    // A success passes as it came: as its bytes when the caller takes them (they hold no
    // "isError" key: src/protocol/wire_result.ts), else parsed.
    if (result instanceof WireResult || !result.isError) return result;
    // A worker's failure leaves in the one error shape: one already in it (text only, within the
    // cap) passes as it came; anything else is re-shaped once.
    const text = result.content[0]?.text ?? "";
    if (result.structuredContent === undefined && byteLength(text) <= this.config.maxOutputBytes) {
      return result;
    }
    return errorResult(resultError(result, name), this.config.maxOutputBytes);
  }

  /**
   * Where a lane for an invoke may lead (see {@link LaneTarget}): decided here, beside the
   * dispatcher's own checks, so that a lane carries exactly what a call through
   * {@link callTool} from the same caller would be let through — the enabled worker tools
   * (capability gates, disable flags) that this database's worker lists. The tools do not depend
   * on `name`, so a run may ask before its first invoke (`name` undefined).
   */
  laneTarget(name: string | undefined, rawArgs: unknown, ctx: CallContext): LaneTarget | undefined {
    if (!this.config.lanes || ctx.via !== "execute") return undefined;
    if (name !== undefined && this.find(name)?.kind !== "worker") return undefined;
    const given = typeof rawArgs === "object" && rawArgs !== null
      ? (rawArgs as Record<string, unknown>).database
      : undefined;
    if (given !== undefined && typeof given !== "string") return undefined;
    let db;
    try {
      db = this.pool.resolve(given, ctx.session);
      this.pool.checkAlive(db);
    } catch {
      return undefined;
    }
    const worker = db.worker;
    if (!worker.lanes || !worker.alive || db.state === "closed") return undefined;
    const tools = [...worker.tools].filter((t) => this.find(t)?.kind === "worker");
    let sole = false;
    try {
      sole = this.pool.resolve(undefined, ctx.session) === db;
    } catch {
      // Several databases, or none: an invoke naming none is refused by the dispatcher.
    }
    return {
      database: db.id,
      tools,
      sole,
      open: (path, token) => worker.openLane(path, token, tools),
    };
  }

  /** Stops every worker and removes temporary files. */
  async shutdown(): Promise<void> {
    await Promise.all([this.pool.shutdown(), this.#sandbox?.close()]);
    if (this.#tempDir) await Deno.remove(this.#tempDir, { recursive: true }).catch(() => {});
  }
}
