/**
 * `remcp worker --backend B [--options JSON] PATH`: a complete single-database MCP server over
 * stdio, so it can be driven by the supervisor or by any MCP client for debugging.
 */
import { parseArgs } from "node:util";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { loadConfig, stdioKind, VERSION } from "../src/config.ts";
import { createLogger, stderrSink } from "../src/log.ts";
import { openBackend, standbyBackend } from "./backends.ts";
import { createToolServer, runTool } from "./tool_server.ts";
import { type FastRunner, fastToolCalls } from "../src/fast_calls.ts";
import { WorkerLanes } from "./lanes.ts";
import { ToolQueue } from "./tool_queue.ts";
import { internalTools, openTool } from "./internal_tools.ts";
import type { ToolImpl } from "./backend.ts";
import { type LineIo, LineTransport } from "../src/line_transport.ts";
import { stdioIo } from "../src/stdio_conn.ts";

/** Runs the worker process until its stdin closes or SIGTERM. */
export function workerMain(args: string[]): Promise<number> {
  const stop = new AbortController();
  Deno.addSignalListener("SIGTERM", () => stop.abort());
  const env = Deno.env.toObject();
  // Read lazily: a worker that connects to its supervisor's socket leaves stdio alone.
  return serveWorker(args, () => stdioIo(stdioKind(env.REMCP_STDIO)), env, stop.signal);
}

/**
 * Serves one database over `io()` (unless `--connect` names a socket) until the input ends or `stop` aborts: the whole worker, with
 * no process of its own (the process entry is {@link workerMain}; tests run it in-process).
 */
export async function serveWorker(
  args: string[],
  io: () => LineIo,
  env: Record<string, string>,
  stop?: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      backend: { type: "string", default: "embedded" },
      options: { type: "string", default: "{}" },
      "database-id": { type: "string" },
      standby: { type: "boolean" },
      // The supervisor's Unix socket to serve on instead of stdio (src/child_socket.ts).
      connect: { type: "string" },
    },
    allowPositionals: true,
  });
  const path = positionals[0];
  const config = loadConfig(env);
  const log = createLogger(
    `worker:${values.backend}`,
    stderrSink(config.logLevel, config.logDir, "worker"),
  );
  if (!path && !values.standby) {
    log.error("usage: remcp worker --backend B [--options JSON] PATH | --standby");
    return 2;
  }
  let options: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(values.options);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new TypeError("not an object");
    }
    options = parsed as Record<string, unknown>;
  } catch (err) {
    log.error(`--options must be a JSON object: ${err instanceof Error ? err.message : err}`);
    return 2;
  }
  let backend;
  const extra: ToolImpl[] = [];
  if (path) backend = openBackend(values.backend, path, options, { config, log });
  else {
    // A standby worker: started ahead of need, it gets its file through `_open`.
    const standby = standbyBackend(values.backend, { config, log });
    backend = standby.backend;
    extra.push(openTool((p, o) => standby.open(p, o)));
  }
  const closed = Promise.withResolvers<void>();
  // Every connection's tool calls take turns here: lanes (lanes.ts) bypass the supervisor's queue.
  const queue = new ToolQueue();
  const serverOptions = {
    version: VERSION,
    maxOutputBytes: config.maxOutputBytes,
    checkOutput: config.checkOutput,
    queue,
  };
  const tools = new Map<string, ToolImpl>();
  for (const t of [...backend.tools(), ...internalTools(backend), ...extra]) {
    tools.set(t.spec.name, t);
  }
  let conn: Deno.Conn | undefined;
  if (values.connect) {
    try {
      conn = await Deno.connect({ transport: "unix", path: values.connect });
    } catch (err) {
      log.error(`cannot reach the supervisor at ${values.connect}: ${(err as Error).message}`);
      return 2;
    }
  }
  const run: FastRunner = (name, args, ctx) => {
    const tool = tools.get(name);
    return tool ? runTool(backend, tool, args, ctx, serverOptions) : undefined;
  };
  const lanes = new WorkerLanes(run, log, config.maxOutputBytes);
  const transport: LineTransport = new LineTransport({
    ...(conn ? { conn } : io()),
    answerBadInput: true,
    intercept: lanes.intercept(fastToolCalls(run, () => transport), () => transport),
  });
  const handle = serveStdio(() => createToolServer(backend, serverOptions, extra), {
    transport,
    onerror: (err) => log.debug(`protocol: ${err.message}`),
  });
  let stopping = false;
  const finish = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping: ${why}`);
    // Calls already queued (from any lane) finish and are answered before anything closes.
    lanes.stop();
    await queue.idle();
    await lanes.close();
    try {
      await backend.save();
      await backend.close();
    } catch (err) {
      log.error(`close failed: ${err instanceof Error ? err.message : err}`);
    }
    closed.resolve();
  };
  stop?.addEventListener("abort", () => void finish("SIGTERM"), { once: true });
  void transport.ended.then(() => finish("stdin closed"));
  await closed.promise;
  await handle.close().catch(() => {});
  return 0;
}
