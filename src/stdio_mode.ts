/**
 * The default mode: MCP over this process's stdio, both protocol eras, through the SDK's
 * `serveStdio(factory)`. When the client goes away, workers save and stop.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Config } from "./config.ts";
import { LineTransport } from "./line_transport.ts";
import { fastToolCalls } from "./fast_calls.ts";
import { stdioIo } from "./stdio_conn.ts";
import { createLogger, stderrSink } from "./log.ts";
import { createSupervisor } from "./supervisor/create.ts";
import { createServer } from "./supervisor/server.ts";

/** Serves until stdin closes or SIGTERM/SIGINT. */
export async function stdioMode(config: Config): Promise<number> {
  const log = createLogger("supervisor", stderrSink(config.logLevel, config.logDir, "supervisor"));
  const sup = createSupervisor(config, log);
  const session = `stdio-${crypto.randomUUID().slice(0, 8)}`;
  const done = Promise.withResolvers<void>();
  const transport: LineTransport = new LineTransport({
    ...stdioIo(config.stdio),
    answerBadInput: true,
    intercept: fastToolCalls((name, args, ctx) => {
      if (!sup.find(name)) return undefined;
      return sup.callToolWire(name, args, { ...ctx, session, via: "client" });
    }, () => transport),
  });
  const handle = serveStdio(() => createServer(sup, session), {
    transport,
    onerror: (err) => log.debug(`protocol: ${err.message}`),
  });
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping: ${why}`);
    sup.pool.detachSession(session);
    await sup.shutdown();
    await handle.close().catch(() => {});
    done.resolve();
  };
  void transport.ended.then(() => stop("stdin closed"));
  // Started by hand rather than by an MCP client: say why nothing happens.
  if (Deno.stdin.isTerminal()) {
    console.error(
      "remcp: MCP server on stdin/stdout, waiting for a client (Ctrl-D ends it; remcp --help " +
        "lists the modes)",
    );
  }
  Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
  Deno.addSignalListener("SIGINT", () => void stop("SIGINT"));
  await done.promise;
  return 0;
}
