/**
 * Management tools: close_database, save_database, list_databases, wait_for_analysis,
 * list_backends, and the opening tools of open_tools.ts. They act on the pool, never on an engine.
 */
import { z } from "zod";
import { RemcpError } from "../errors.ts";
import { CommonOutput } from "../protocol/params.ts";
import { defineTool, READ_ONLY, STATEFUL } from "../protocol/catalog/spec.ts";
import { type LocalTool, localTool } from "./host.ts";
import { probeBackends } from "./backends.ts";

const DatabaseParam = z.string().min(1).max(128).optional().describe(
  "Database id from open_database (optional when exactly one is open)",
);
export const closeDatabase = defineTool({
  name: "close_database",
  description: "Close a database for this session. Its worker stops (after saving) only when " +
    "no other session uses it, unless force.",
  input: z.strictObject({ database: DatabaseParam, force: z.boolean().optional() }),
  output: z.object({
    database: z.string(),
    closed: z.boolean(),
    still_attached: z.number(),
    ...CommonOutput,
  }),
  annotations: STATEFUL,
  tags: ["management"],
});

export const saveDatabase = defineTool({
  name: "save_database",
  description: "Flush a database's annotations to disk now (they are also saved on every " +
    "change and on close).",
  input: z.strictObject({ database: DatabaseParam }),
  output: z.object({ database: z.string(), saved: z.boolean(), path: z.string().optional() }),
  annotations: STATEFUL,
  tags: ["management"],
});

export const listDatabases = defineTool({
  name: "list_databases",
  description: "List open databases: id, path, backend, state (loading, analysing, ready, " +
    "failed, crashed), progress and attached sessions.",
  input: z.strictObject({}),
  output: z.object({
    items: z.array(z.object({
      database: z.string(),
      path: z.string(),
      backend: z.string(),
      state: z.string(),
      progress: z.number().optional(),
      sessions: z.number(),
      pid: z.number().optional().describe("Worker process id"),
      error: z.string().optional(),
    })),
  }),
  annotations: READ_ONLY,
  tags: ["management"],
});

export const waitForAnalysis = defineTool({
  name: "wait_for_analysis",
  description: "Block until a database finishes analysis (with progress notifications), or " +
    "until timeout seconds pass (then Timeout: call it again).",
  input: z.strictObject({
    database: DatabaseParam,
    timeout: z.number().min(0).max(3600).optional().describe("Seconds to wait (default 300)"),
  }),
  output: z.object({
    database: z.string(),
    state: z.string(),
    seconds: z.number().optional(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["management"],
});

export const listBackends = defineTool({
  name: "list_backends",
  description: "List analysis backends, whether each is available on this machine, its " +
    "version, and why a missing one is missing.",
  input: z.strictObject({}),
  output: z.object({
    default: z.string(),
    items: z.array(z.object({
      name: z.string(),
      available: z.boolean(),
      version: z.string().optional(),
      reason: z.string().optional(),
      engine: z.string(),
    })),
  }),
  annotations: READ_ONLY,
  tags: ["management"],
});

/** The management tools acting on open databases; the opening tools are in open_tools.ts. */
export const MANAGEMENT_TOOLS: LocalTool[] = [
  localTool(closeDatabase, async (sup, a, ctx) => {
    const db = sup.pool.resolve(a.database, ctx.session);
    const r = await sup.pool.close(db, ctx.session, a.force ?? false);
    const out: Record<string, unknown> = { database: db.id, ...r };
    if (!r.closed) {
      out.warnings = [{
        code: "still_attached",
        message: `${r.still_attached} other session(s) still use ${db.id}; it stays open ` +
          `(pass force: true to close it for everyone)`,
      }];
    }
    return out;
  }),
  localTool(saveDatabase, async (sup, a, ctx) => {
    const db = sup.pool.resolve(a.database, ctx.session);
    if (db.state === "crashed" || db.state === "failed") throw db.error!;
    const r = await db.worker.callStructured("_save", {}, { timeoutMs: 60_000 });
    return { database: db.id, ...r };
  }),
  localTool(listDatabases, (sup) =>
    Promise.resolve({
      items: sup.pool.list().map((d) => ({
        database: d.id,
        path: d.path,
        backend: d.backend,
        state: d.state,
        ...(d.status.progress !== undefined && d.state === "analysing"
          ? { progress: d.status.progress }
          : {}),
        sessions: d.sessions.size,
        ...(d.worker.alive ? { pid: d.worker.pid } : {}),
        ...(d.error ? { error: d.error.message } : {}),
      })),
    })),
  localTool(waitForAnalysis, async (sup, a, ctx) => {
    const db = sup.pool.resolve(a.database, ctx.session);
    const timeoutMs = (a.timeout ?? 300) * 1000;
    const deadline = Date.now() + timeoutMs;
    let last = -1;
    while (db.state === "loading" || db.state === "analysing") {
      if (ctx.signal.aborted) {
        throw new RemcpError("Cancelled", "wait_for_analysis was cancelled", {});
      }
      if (Date.now() >= deadline) {
        throw new RemcpError(
          "Timeout",
          `${db.id} is still ${db.state} after ${a.timeout ?? 300} s: call ` +
            `wait_for_analysis again to keep waiting`,
          { database: db.id, state: db.state, progress: db.status.progress ?? null },
        );
      }
      const p = db.status.progress ?? 0;
      if (p !== last) {
        last = p;
        ctx.progress(Math.round(p * 100), 100, db.status.message ?? db.state);
      }
      await Promise.race([db.settled, new Promise((r) => setTimeout(r, 100))]);
    }
    if (db.state === "failed" || db.state === "crashed") throw db.error!;
    ctx.progress(100, 100, "ready");
    return {
      database: db.id,
      state: db.state,
      ...(db.status.seconds !== undefined ? { seconds: db.status.seconds } : {}),
    };
  }),
  localTool(
    listBackends,
    (sup) =>
      Promise.resolve({ default: sup.config.defaultBackend, items: probeBackends(sup.config) }),
  ),
];
