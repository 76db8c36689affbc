/**
 * Runs a script in the sandbox with `invoke` routed through the supervisor: shared by the
 * `execute` tool and by `remcp run`, so both have the same routing, validation and limits.
 */
import { resultJson } from "../protocol/results.ts";
import { WireResult } from "../protocol/wire_result.ts";
import type { GlobalValue } from "../sandbox/protocol.ts";
import { JsonText, type SandboxRunStats } from "../sandbox/pool.ts";
import type { CallContext, Host } from "../supervisor/host.ts";

/** What a script run needs. */
export interface ScriptRun {
  code: string;
  /** Default database for invokes that name none. */
  database?: string | undefined;
  timeoutMs: number;
  /** Extra read-only globals (`file` for remcp run). */
  globals?: Record<string, GlobalValue>;
  /** Largest result the sandbox hands back, in bytes of JSON. */
  maxResultBytes?: number;
  /** Cut a larger result to about this many bytes inside the sandbox (see SandboxRunOptions). */
  fitResultBytes?: number;
}

/** A finished run. Failures are thrown as RemcpError with the logs in `detail.logs`. */
export interface ScriptResult {
  result: unknown;
  /** What the sandbox cut from the result to fit `fitResultBytes`. */
  cut: string[];
  logs: string;
  stats: SandboxRunStats;
}

/**
 * Least time between two progress notes about a script's invokes: a script may make 10,000
 * invokes, and a note per invoke would be 10,000 messages to the client (each a write, and each a
 * wake-up of the client) for no more information than ten a second give.
 */
export const INVOKE_PROGRESS_EVERY_MS = 100;

/** Runs `run.code`; every invoke goes through `sup.callToolWire` as a call `via: "execute"`. */
export async function runScript(
  sup: Host,
  ctx: CallContext,
  run: ScriptRun,
): Promise<ScriptResult> {
  if (run.database !== undefined) sup.pool.resolve(run.database, ctx.session);
  let invokes = 0;
  let lastProgress = -Infinity;
  const globals: Record<string, GlobalValue> = { ...run.globals };
  if (run.database !== undefined) globals.database = run.database;
  const r = await sup.sandbox().run(run.code, {
    globals,
    timeoutMs: run.timeoutMs,
    signal: ctx.signal,
    limits: { cpuMs: run.timeoutMs, maxOutputBytes: run.maxResultBytes ?? 16 * 1024 * 1024 },
    ...(run.fitResultBytes !== undefined ? { fitResultBytes: run.fitResultBytes } : {}),
    invoke: async (name, invokeArgs, signal) => {
      invokes++;
      const callArgs = { ...invokeArgs };
      const entry = sup.find(name);
      // Worker tools and database-scoped script tools take the script's default database.
      if (entry && (entry.kind === "worker" || "database" in entry.spec.input.shape)) {
        if (callArgs.database === undefined && run.database !== undefined) {
          callArgs.database = run.database;
        }
      }
      // A worker's success comes back as its JSON text (the dispatcher applied the cap and the
      // error shape, as for a client's call), and its text, the value's JSON, goes to the sandbox
      // without the result being parsed or re-serialized here.
      const result = await sup.callToolWire(name, callArgs, { ...ctx, signal, via: "execute" });
      const value = new JsonText(
        result instanceof WireResult ? result.valueJson(name) : resultJson(result, name),
      );
      const now = performance.now();
      if (now - lastProgress >= INVOKE_PROGRESS_EVERY_MS) {
        lastProgress = now;
        ctx.progress(invokes, undefined, `${invokes} invokes`);
      }
      return value;
    },
  });
  if (!r.ok) {
    r.error.detail.logs = r.logs.slice(-4096);
    throw r.error;
  }
  return { result: r.result, cut: r.cut, logs: r.logs, stats: r.stats };
}
