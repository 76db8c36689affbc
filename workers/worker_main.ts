/**
 * `remcp worker --backend B [--options JSON] PATH`: a complete single-database MCP server over
 * stdio, so it can be driven by the supervisor or by any MCP client for debugging.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { loadConfig, VERSION } from "../src/config.ts";
import { createLogger, stderrSink } from "../src/log.ts";
import { openBackend } from "./backends.ts";
import { createToolServer } from "./tool_server.ts";

/** Runs the worker until its stdin closes or it is told to stop. */
export async function workerMain(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      backend: { type: "string", default: "embedded" },
      options: { type: "string", default: "{}" },
      "database-id": { type: "string" },
    },
    allowPositionals: true,
  });
  const path = positionals[0];
  const config = loadConfig(Deno.env.toObject());
  const log = createLogger(
    `worker:${values.backend}`,
    stderrSink(config.logLevel, config.logDir, "worker"),
  );
  if (!path) {
    log.error("usage: remcp worker --backend B [--options JSON] PATH");
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
  const backend = openBackend(values.backend, path, options, { config, log });
  const closed = Promise.withResolvers<void>();
  const handle = serveStdio(
    () =>
      createToolServer(backend, {
        version: VERSION,
        maxOutputBytes: config.maxOutputBytes,
        checkOutput: config.checkOutput,
      }),
    { onerror: (err) => log.debug(`protocol: ${err.message}`) },
  );
  const stop = async (why: string) => {
    log.info(`stopping: ${why}`);
    try {
      await backend.save();
      await backend.close();
    } catch (err) {
      log.error(`close failed: ${err instanceof Error ? err.message : err}`);
    }
    closed.resolve();
  };
  Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
  process.stdin.on("end", () => void stop("stdin closed"));
  await closed.promise;
  await handle.close().catch(() => {});
  return 0;
}
