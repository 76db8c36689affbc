/**
 * What a TypeScript backend gives the worker's MCP server: its status, its tool handlers and its
 * lifecycle. One backend instance serves one database.
 */
import type { Config } from "../src/config.ts";
import type { Logger } from "../src/log.ts";
import type { ToolSpec } from "../src/protocol/catalog/spec.ts";
import type { AnalysisState, WorkerStatus } from "../src/protocol/worker_status.ts";

/** What a backend gets besides its file. */
export interface BackendEnv {
  config: Config;
  log: Logger;
}

/** The worker's status, as `_status` reports it (one schema for both sides). */
export type AnalysisStatus = WorkerStatus;
/** Where a database is in its life. */
export type { AnalysisState };

/** What a handler may use while it runs. */
export interface HandlerContext {
  signal: AbortSignal;
  progress(done: number, total: number | undefined, message?: string): void;
}

/** A tool implementation: validated args in, a structured result out. */
export type ToolHandler = (
  args: Record<string, unknown>,
  ctx: HandlerContext,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** A spec with the backend's handler for it. */
export interface ToolImpl {
  spec: ToolSpec;
  handler: ToolHandler;
  /** Usable while the database is still analysing (otherwise refused with Busy). */
  duringAnalysis?: boolean;
  /** Not cut to the output cap: an internal tool whose only caller is the supervisor. */
  uncapped?: boolean;
  /**
   * A string field of the result that travels as the result's text, as it is, instead of inside
   * the structured content (whose JSON is then not repeated as text either): for an internal,
   * uncapped tool whose one large field is itself JSON, which the hop then carries once and the
   * supervisor parses once.
   */
  textField?: string;
}

/** One open database inside a worker. */
export interface Backend {
  readonly name: string;
  status(): AnalysisStatus;
  tools(): ToolImpl[];
  /** Flushes annotations to disk. */
  save(): Promise<{ saved: boolean; path?: string }>;
  close(): Promise<void>;
}

/** Binds a handler to its spec, typing the handler's arguments from the spec's input schema. */
export function impl<S extends ToolSpec>(
  spec: S,
  handler: (
    args: import("zod").output<S["input"]>,
    ctx: HandlerContext,
  ) => Promise<import("zod").input<S["output"]>> | import("zod").input<S["output"]>,
  options: { duringAnalysis?: boolean; uncapped?: boolean; textField?: string } = {},
): ToolImpl {
  return {
    spec,
    handler: handler as unknown as ToolHandler,
    ...(options.duringAnalysis ? { duringAnalysis: true } : {}),
    ...(options.uncapped ? { uncapped: true } : {}),
    ...(options.textField !== undefined ? { textField: options.textField } : {}),
  };
}
