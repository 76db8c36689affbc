/**
 * Runs a script in the sandbox with `invoke` routed through the supervisor: shared by the
 * `execute` tool and by `remcp run`, so both have the same routing, validation and limits.
 */
import { invokeValueJson } from "../protocol/invoke_answer.ts";
import type { GlobalValue } from "../sandbox/protocol.ts";
import { JsonText, type LaneLink, type SandboxRunStats } from "../sandbox/pool.ts";
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
  let laneInvokes = 0;
  let lastProgress = -Infinity;
  const report = () => {
    const now = performance.now();
    if (now - lastProgress < INVOKE_PROGRESS_EVERY_MS) return;
    lastProgress = now;
    const total = invokes + laneInvokes;
    ctx.progress(total, undefined, `${total} invokes`);
  };
  /** Databases this run was granted a lane to (one each). */
  const laned = new Set<string>();
  const offerLane = (
    lanes: LaneLink,
    name: string | undefined,
    callArgs: Record<string, unknown>,
  ) => {
    const target = sup.laneTarget(name, callArgs, { ...ctx, via: "execute" });
    if (!target || laned.has(target.database)) return;
    laned.add(target.database);
    const token = crypto.randomUUID();
    // Invokes naming no database go where the dispatcher sends them: the script's default
    // database, or else the only one open (which it re-resolves per call: see ARCHITECTURE §2).
    const bare = run.database !== undefined ? run.database === target.database : target.sole;
    if (!lanes.grant({ token, database: target.database, tools: target.tools, bare })) return;
    target.open(lanes.path, token).catch((err) =>
      sup.log.debug(`no lane to ${target.database}: ${err instanceof Error ? err.message : err}`)
    );
  };
  const globals: Record<string, GlobalValue> = { ...run.globals };
  if (run.database !== undefined) globals.database = run.database;
  const r = await sup.sandbox().run(run.code, {
    globals,
    timeoutMs: run.timeoutMs,
    signal: ctx.signal,
    limits: { cpuMs: run.timeoutMs, maxOutputBytes: run.maxResultBytes ?? 16 * 1024 * 1024 },
    ...(run.fitResultBytes !== undefined ? { fitResultBytes: run.fitResultBytes } : {}),
    // The lane to the default database (or the only one open) is granted as the run starts, so
    // its worker connects while the sandbox sets the script up, and even the first invoke skips
    // the supervisor. The dispatcher decides as it would after that invoke (its tools do not
    // depend on the tool invoked; readiness is the worker's). A script that never names `invoke`
    // cannot call it (short of building the name), so it is spared the worker's connection; one
    // that does reaches the first-invoke grant below.
    onStart: (lanes) => {
      if (!run.code.includes("invoke")) return;
      offerLane(lanes, undefined, run.database !== undefined ? { database: run.database } : {});
    },
    onLaneInvokes: (count) => {
      laneInvokes = count;
      report();
    },
    invoke: async (name, invokeArgs, signal, lanes) => {
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
      // A call the dispatcher let through to a worker may open a lane for the next ones.
      if (lanes && !laned.has(String(callArgs.database))) offerLane(lanes, name, callArgs);
      const value = new JsonText(invokeValueJson(result, name));
      report();
      return value;
    },
  });
  if (!r.ok) {
    r.error.detail.logs = r.logs.slice(-4096);
    throw r.error;
  }
  return { result: r.result, cut: r.cut, logs: r.logs, stats: r.stats };
}
