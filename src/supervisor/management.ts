/**
 * Management tools: open_database, open_data, close_database, save_database, list_databases,
 * wait_for_analysis, list_backends. They act on the pool, never on an engine directly.
 */
import { z } from "zod";
import { join } from "node:path";
import { RemcpError } from "../errors.ts";
import { CommonOutput } from "../protocol/params.ts";
import { defineTool, READ_ONLY, STATEFUL, type ToolSpec } from "../protocol/catalog/spec.ts";
import type { Database } from "./pool.ts";
import type { CallContext, Supervisor } from "./supervisor.ts";
import { BACKEND_NAMES, probeBackends } from "./backends.ts";

/** Largest sample open_data accepts. */
export const MAX_DATA_BYTES = 64 * 1024 * 1024;

const DatabaseParam = z.string().min(1).max(128).optional().describe(
  "Database id from open_database (optional when exactly one is open)",
);
const OpenOptions = z.record(z.string(), z.unknown()).optional().describe(
  'Backend options: {arch: "x86_64"} picks a fat Mach-O slice; {arch, base} opens a raw blob',
);
const OpenOutput = z.object({
  database: z.string(),
  backend: z.string(),
  path: z.string(),
  opening: z.boolean(),
  existing: z.boolean(),
  state: z.string(),
  ...CommonOutput,
});

export const openDatabase = defineTool({
  name: "open_database",
  description: "Open a binary (ELF, PE, Mach-O, or a raw blob) for analysis; returns its " +
    "database id at once while analysis runs in the background.\n" +
    "Then call wait_for_analysis. Opening a file that is already open returns the same " +
    "database unless force_new. backend defaults to REMCP_BACKEND or embedded.",
  input: z.strictObject({
    path: z.string().min(1).max(4096).describe("Path of the file on the server's machine"),
    backend: z.string().optional().describe(`One of ${BACKEND_NAMES.join(", ")}`),
    options: OpenOptions,
    force_new: z.boolean().optional().describe("Open a second database on the same file"),
  }),
  output: OpenOutput,
  annotations: STATEFUL,
  tags: ["management", "open"],
});

export const openData = defineTool({
  name: "open_data",
  description: "Open a sample sent as base64 or hex (at most 64 MiB): it is written to a " +
    "private temporary file, opened like open_database, and deleted when the database closes.",
  input: z.strictObject({
    name: z.string().min(1).max(255).describe("File name for the sample (sanitized)"),
    base64: z.string().optional(),
    hex: z.string().optional(),
    backend: z.string().optional(),
    options: OpenOptions,
  }),
  output: OpenOutput,
  annotations: STATEFUL,
  tags: ["management", "open"],
});

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

type Handler = (
  sup: Supervisor,
  args: Record<string, unknown>,
  ctx: CallContext,
) => Promise<Record<string, unknown>>;

/** A management tool: spec and handler. */
export interface ManagementTool {
  spec: ToolSpec;
  handler: Handler;
}

function openResult(db: Database, existing: boolean): Record<string, unknown> {
  return {
    database: db.id,
    backend: db.backend,
    path: db.path,
    opening: db.state === "loading" || db.state === "analysing",
    existing,
    state: db.state,
  };
}

async function open(
  sup: Supervisor,
  args: {
    path: string;
    backend?: string | undefined;
    options?: Record<string, unknown> | undefined;
    force_new?: boolean | undefined;
  },
  ctx: CallContext,
  tempFile?: string,
): Promise<Record<string, unknown>> {
  const backend = args.backend ?? sup.config.defaultBackend;
  const info = probeBackends(sup.config).find((b) => b.name === backend);
  if (!info) {
    throw new RemcpError(
      "InvalidArgument",
      `Unknown backend "${backend}"; known: ${BACKEND_NAMES.join(", ")}`,
      { param: "backend", known: BACKEND_NAMES },
    );
  }
  if (!info.available) {
    throw new RemcpError("Unavailable", `The ${backend} backend is unavailable: ${info.reason}`, {
      backend,
    });
  }
  const { db, existing } = await sup.pool.open({
    path: args.path,
    backend,
    options: args.options ?? {},
    forceNew: args.force_new ?? false,
    session: ctx.session,
    ...(tempFile ? { tempFile } : {}),
  });
  // Format errors (bad header, ambiguous fat file) come back within the worker's load step;
  // waiting for it makes open_database report them itself.
  await sup.pool.waitLoaded(db, 15_000);
  if (db.state === "failed" || db.state === "crashed") {
    throw db.error ?? new RemcpError("OpenFailed", `Opening ${args.path} failed`, {});
  }
  // An agent that opens a database usually scripts it next: start the sandbox processes now,
  // in the background, so the first execute does not pay for their start.
  if (!sup.config.disableExecute) void sup.sandbox().warm().catch(() => {});
  return openResult(db, existing);
}

/** Decodes base64 or hex into bytes, bounded by {@link MAX_DATA_BYTES}. */
export function decodeSample(args: { base64?: string | undefined; hex?: string | undefined }) {
  if ((args.base64 === undefined) === (args.hex === undefined)) {
    throw new RemcpError("InvalidArgument", "Give exactly one of base64 or hex", {
      accepted: ["base64", "hex"],
    });
  }
  if (args.base64 !== undefined) {
    const text = args.base64.replace(/\s+/g, "");
    if (Math.floor(text.length * 3 / 4) > MAX_DATA_BYTES) throw tooBig(text.length * 3 / 4);
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text) || text.length % 4 === 1) {
      throw new RemcpError("InvalidArgument", "base64 is not valid base64", { param: "base64" });
    }
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  const text = args.hex!.replace(/\s+/g, "").replace(/^0x/i, "");
  if (text.length / 2 > MAX_DATA_BYTES) throw tooBig(text.length / 2);
  if (!/^([0-9a-fA-F]{2})*$/.test(text)) {
    throw new RemcpError("InvalidArgument", "hex must be pairs of hex digits", { param: "hex" });
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** A file name safe to create in the sample folder: no separators, no dot runs, no leading dot. */
export function sanitizeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const safe = base.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/\.{2,}/g, ".").replace(/^\.+/, "")
    .slice(0, 100);
  return safe || "sample";
}

function tooBig(bytes: number): RemcpError {
  return new RemcpError(
    "InvalidArgument",
    `The sample is about ${Math.round(bytes / 1048576)} MiB, over the 64 MiB limit of open_data: ` +
      `put the file on the server's disk and use open_database`,
    { max_bytes: MAX_DATA_BYTES },
  );
}

/** Every management tool. */
export const MANAGEMENT_TOOLS: ManagementTool[] = [
  {
    spec: openDatabase as unknown as ToolSpec,
    handler: (sup, args, ctx) => open(sup, args as Parameters<typeof open>[1], ctx),
  },
  {
    spec: openData as unknown as ToolSpec,
    handler: async (sup, args, ctx) => {
      const a = args as z.output<typeof openData.input>;
      const bytes = decodeSample(a);
      if (bytes.length === 0) {
        throw new RemcpError("InvalidArgument", "The sample is empty", { param: "data" });
      }
      const dir = await sup.tempDir();
      const safe = sanitizeName(a.name);
      const path = join(dir, `${crypto.randomUUID().slice(0, 8)}-${safe}`);
      await Deno.writeFile(path, bytes, { mode: 0o600, createNew: true });
      try {
        return await open(
          sup,
          {
            path,
            backend: a.backend,
            options: a.options,
            force_new: true,
          },
          ctx,
          path,
        );
      } catch (err) {
        await Deno.remove(path).catch(() => {});
        throw err;
      }
    },
  },
  {
    spec: closeDatabase as unknown as ToolSpec,
    handler: async (sup, args, ctx) => {
      const a = args as z.output<typeof closeDatabase.input>;
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
    },
  },
  {
    spec: saveDatabase as unknown as ToolSpec,
    handler: async (sup, args, ctx) => {
      const a = args as z.output<typeof saveDatabase.input>;
      const db = sup.pool.resolve(a.database, ctx.session);
      if (db.state === "crashed" || db.state === "failed") throw db.error!;
      const r = await db.worker.callStructured("_save", {}, { timeoutMs: 60_000 });
      return { database: db.id, ...r };
    },
  },
  {
    spec: listDatabases as unknown as ToolSpec,
    handler: (sup) =>
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
      }),
  },
  {
    spec: waitForAnalysis as unknown as ToolSpec,
    handler: async (sup, args, ctx) => {
      const a = args as z.output<typeof waitForAnalysis.input>;
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
    },
  },
  {
    spec: listBackends as unknown as ToolSpec,
    handler: (sup) =>
      Promise.resolve({ default: sup.config.defaultBackend, items: probeBackends(sup.config) }),
  },
];
