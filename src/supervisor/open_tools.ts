/**
 * Opening tools: open_database (a file on the server's disk) and open_data (a sample sent in the
 * chat, written to a private temporary file that is deleted on close).
 */
import { z } from "zod";
import { join } from "node:path";
import { RemcpError } from "../errors.ts";
import { CommonOutput } from "../protocol/params.ts";
import { defineTool, STATEFUL } from "../protocol/catalog/spec.ts";
import type { Database } from "./pool.ts";
import { type CallContext, type Host, type LocalTool, localTool } from "./host.ts";
import { BACKEND_NAMES, probeBackends } from "./backends.ts";

/** Largest sample open_data accepts. */
export const MAX_DATA_BYTES = 64 * 1024 * 1024;

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
  sup: Host,
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

/** open_database and open_data. */
export const OPEN_TOOLS: LocalTool[] = [
  localTool(openDatabase, (sup, args, ctx) => open(sup, args as Parameters<typeof open>[1], ctx)),
  localTool(openData, async (sup, a, ctx) => {
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
  }),
];
