/**
 * `remcp proxy`: the stdio entry point an MCP client launches. Finds the live daemon (or starts
 * one), relays MCP between stdio and the daemon, holds an attachment so the daemon knows it is
 * in use, and on stdin EOF detaches its session — the daemon and its workers keep running.
 */
import type { Config } from "../config.ts";
import { LineTransport } from "../line_transport.ts";
import { stdioIo } from "../stdio_conn.ts";
import { createLogger, stderrSink } from "../log.ts";
import { holdAttachment } from "./attach.ts";
import { DaemonBridge } from "./bridge.ts";
import { controlRequest } from "./control.ts";
import { ensureDaemon } from "./ensure.ts";
import { daemonPaths, type DaemonState } from "./state.ts";

/** How long answers to requests already sent may take once stdin has closed. */
const DRAIN_MS = 5000;

/** The configuration flags a proxy hands to the daemon it starts. */
export function serveArgsFor(flags: Record<string, unknown>): string[] {
  const args: string[] = [];
  if (flags["allow-write"] === true) args.push("--allow-write");
  if (flags["allow-scripts"] === true) args.push("--allow-scripts");
  if (typeof flags.backend === "string") args.push("--backend", flags.backend);
  if (typeof flags.rizin === "string") args.push("--rizin", flags.rizin);
  return args;
}

/** Runs the proxy until stdin closes or a signal; resolves to the exit code. */
export async function proxyMode(config: Config, flags: Record<string, unknown>): Promise<number> {
  const log = createLogger("proxy", stderrSink(config.logLevel, config.logDir, "proxy"));
  const paths = daemonPaths(config.stateDir);
  const ensure = () =>
    ensureDaemon({ stateDir: config.stateDir, log, serveArgs: serveArgsFor(flags) });
  let daemon: DaemonState;
  try {
    daemon = await ensure();
  } catch (err) {
    log.error(`cannot reach or start the remcp daemon: ${(err as Error).message}`);
    return 1;
  }
  const session = `proxy-${crypto.randomUUID().slice(0, 12)}`;
  log.debug(`relaying to pid ${daemon.pid} as ${session}`);
  const stdio = new LineTransport({
    ...stdioIo(config.stdio),
    answerBadInput: true,
  });
  const bridge = new DaemonBridge({
    downstream: stdio,
    daemon,
    session,
    log,
    ensureDaemon: ensure,
  });
  bridge.start();
  await stdio.start();

  const attachment = new AbortController();
  const held = holdAttachment({
    daemon: () => bridge.daemon,
    onDaemon: (state) => bridge.useDaemon(state),
    session,
    statePath: paths.state,
    signal: attachment.signal,
    log,
  });

  const stop = Promise.withResolvers<string>();
  void stdio.ended.then(() => stop.resolve("stdin closed"));
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => stop.resolve(signal));
    } catch {
      // Not every platform has every signal.
    }
  }
  const why = await stop.promise;
  log.debug(`stopping: ${why}`);
  const deadline = Date.now() + DRAIN_MS;
  while (bridge.pending > 0 && Date.now() < deadline && why === "stdin closed") {
    await new Promise((r) => setTimeout(r, 20));
  }
  await bridge.close();
  // Detach explicitly so the daemon has let go of the session before this process exits.
  try {
    const r = await controlRequest(bridge.daemon, "/remcp/detach", {
      method: "POST",
      session,
      timeoutMs: 2000,
    });
    await r.body?.cancel();
  } catch (err) {
    log.debug(`detach: ${(err as Error).message}`);
  }
  attachment.abort();
  await held;
  return 0;
}
