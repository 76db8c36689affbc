/**
 * The types every supervisor-side tool handler sees, in a leaf module: the call context, the
 * host a handler acts on, and a tool's catalog entry. Handlers (management, meta, script tools)
 * import these and never the Supervisor class, so the supervisor can import the handlers'
 * modules without an import loop; the composition root (create.ts) wires them together.
 */
import type { z } from "zod";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ToolSpec } from "../protocol/catalog/spec.ts";
import type { ToolResult } from "../protocol/results.ts";
import type { WireResult } from "../protocol/wire_result.ts";
import type { SandboxPool } from "../sandbox/pool.ts";
import type { WorkerPool } from "./pool.ts";

/** Who is calling and how to report progress. */
export interface CallContext {
  session: string;
  signal: AbortSignal;
  progress(done: number, total?: number, message?: string): void;
  /** How the call arrived: straight from a client, through a meta-tool, or from a script tool. */
  via: "client" | "call" | "batch" | "execute" | "script";
}

/** Where a tool is implemented. */
export type ToolKind = "management" | "meta" | "worker" | "script";

/** A tool as the supervisor knows it. */
export interface CatalogEntry {
  spec: ToolSpec;
  /** `script`: a script tool (src/script_tools/), added and removed at run time. */
  kind: ToolKind;
  handler?: LocalHandler;
  /** A meta-tool that only calls worker tools, so call/batch/execute may run it (the diff tools). */
  nestable?: boolean;
}

/**
 * Where a lane from a script's sandbox may lead (docs/ARCHITECTURE.md section 2): the database
 * an invoke resolved to, the worker tools the dispatcher lets that caller call there, and how to
 * ask the worker to connect.
 */
export interface LaneTarget {
  database: string;
  tools: string[];
  /** Whether an invoke naming no database resolves to this one now (the only one open). */
  sole: boolean;
  /** Asks the worker to connect to the sandbox's lane socket with `token`. */
  open(path: string, token: string): Promise<void>;
}

/** What a supervisor-side handler may use: the dispatcher, the pools and the catalog. */
export interface Host {
  readonly config: Config;
  readonly log: Logger;
  readonly pool: WorkerPool;
  readonly entries: ReadonlyMap<string, CatalogEntry>;
  /** Calls a tool through the one dispatcher; failures come back as error results. */
  callTool(name: string, rawArgs: unknown, ctx: CallContext): Promise<ToolResult>;
  /**
   * {@link callTool} for a transport that sends the result on as JSON: a worker's success may
   * come back as the bytes it arrived in (`WireResult`), never parsed (the stdio and HTTP fast
   * paths).
   */
  callToolWire(name: string, rawArgs: unknown, ctx: CallContext): Promise<ToolResult | WireResult>;
  /**
   * Where a lane for the invoke of `name` with `rawArgs` may lead, or undefined when none may be
   * granted (lanes off, not a worker tool, a worker that cannot take lanes, a dead database).
   * `name` undefined: at a run's start, before any invoke, for the database `rawArgs` names (or
   * the only one open); the lane's tools are the same either way.
   */
  laneTarget(name: string | undefined, rawArgs: unknown, ctx: CallContext): LaneTarget | undefined;
  /** Enabled tools by name. */
  find(name: string): CatalogEntry | undefined;
  /** Whether a tool exists for callers at all (capability gates and disable flags). */
  enabled(entry: CatalogEntry): boolean;
  /** Why an existing tool is turned off, naming what turns it on; undefined when it is not. */
  whyDisabled(name: string): string | undefined;
  /** Whether a tool appears in tools/list. */
  listed(entry: CatalogEntry): boolean;
  /** The input schema a client sees (worker tools gain `database`). */
  routedInput(entry: CatalogEntry): z.ZodObject;
  inputSchema(entry: CatalogEntry): Record<string, unknown>;
  outputSchema(entry: CatalogEntry): Record<string, unknown>;
  /** Resolves once tools that are still loading (the tools folder) are known. */
  toolsReady(): Promise<void>;
  register(entry: CatalogEntry): void;
  unregister(name: string): void;
  onToolsChanged(listener: () => void): () => void;
  sandbox(): SandboxPool;
  tempDir(): Promise<string>;
  readonly callsInFlight: number;
  shutdown(): Promise<void>;
}

/** A supervisor-side handler (management, meta and script-management tools). */
export type LocalHandler = (
  host: Host,
  args: Record<string, unknown>,
  ctx: CallContext,
) => Promise<Record<string, unknown>>;

/** A supervisor-side tool: its spec and its handler. */
export interface LocalTool {
  spec: ToolSpec;
  handler: LocalHandler;
  /** See {@link CatalogEntry.nestable}. */
  nestable?: boolean;
}

/**
 * Pairs a spec with a handler typed by the spec's input: the dispatcher has already parsed the
 * arguments with `spec.input`, so the handler receives them as that schema's output type.
 */
export function localTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
  handler: (host: Host, args: z.output<I>, ctx: CallContext) => Promise<Record<string, unknown>>,
): LocalTool {
  return {
    spec: spec as unknown as ToolSpec,
    handler: handler as unknown as LocalHandler,
  };
}
