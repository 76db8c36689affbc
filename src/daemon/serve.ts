/**
 * `remcp serve`: the daemon. One Supervisor behind streamable HTTP MCP on loopback (both eras),
 * a bearer token per lifetime, the state file, and an idle clock that ends auto-started daemons.
 */
import { parseArgs } from "node:util";
import { type Config, VERSION } from "../config.ts";
import { createLogger, type Logger, stderrSink } from "../log.ts";
import { createSupervisor } from "../supervisor/create.ts";
import { Activity } from "./activity.ts";
import { discoverDaemon } from "./discover.ts";
import { isLoopbackHost, newToken } from "./guard.ts";
import { createDaemonHandler } from "./handler.ts";
import { serveBehindIdleFront } from "./idle_front.ts";
import { withFileLock } from "./lock.ts";
import { daemonPaths, daemonUrl, ensureStateDir, removeState, writeState } from "./state.ts";

/** The flags of `remcp serve`. */
export interface ServeFlags {
  host: string;
  port: number;
  /** Seconds of idleness before exiting; undefined never idles out. */
  idleTimeoutS: number | undefined;
  allowRemote: boolean;
  /** Started by a proxy: idles out with the configured timeout, logs to the state folder. */
  auto: boolean;
  /** Seconds a connection may stay silent (no byte either way) before it is closed. */
  connectionTimeoutS: number;
}

/** Default of --connection-timeout: well above the heartbeat of a live call's stream. */
const CONNECTION_TIMEOUT_S = 30;

/** Parses `serve`'s own flags out of `rest` (global flags were read by the CLI already). */
export function parseServeFlags(rest: string[], config: Config): ServeFlags {
  const { values } = parseArgs({
    args: rest,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "idle-timeout": { type: "string" },
      "connection-timeout": { type: "string" },
      "allow-remote": { type: "boolean" },
      auto: { type: "boolean" },
    },
    strict: false,
    allowPositionals: true,
  });
  const str = (v: unknown, name: string): string | undefined => {
    if (v === undefined) return undefined;
    if (typeof v !== "string") throw new RangeError(`--${name} needs a value`);
    return v;
  };
  const host = str(values.host, "host") ?? "127.0.0.1";
  const portText = str(values.port, "port") ?? "0";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`--port must be an integer from 0 to 65535, got "${portText}"`);
  }
  const seconds = (name: string): number | undefined => {
    const text = str(values[name], name);
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) {
      throw new RangeError(`--${name} must be a positive number of seconds, got "${text}"`);
    }
    return n;
  };
  const idle = seconds("idle-timeout");
  const auto = values.auto === true;
  return {
    host,
    port,
    idleTimeoutS: idle ?? (auto ? config.idleTimeoutS : undefined),
    allowRemote: values["allow-remote"] === true,
    auto,
    connectionTimeoutS: seconds("connection-timeout") ?? CONNECTION_TIMEOUT_S,
  };
}

/** Runs the daemon until it is stopped or idles out; resolves to the exit code. */
export async function serveMode(config: Config, rest: string[]): Promise<number> {
  let flags: ServeFlags;
  try {
    flags = parseServeFlags(rest, config);
  } catch (err) {
    console.error(`remcp serve: ${(err as Error).message}`);
    return 2;
  }
  if (!isLoopbackHost(flags.host)) {
    if (!flags.allowRemote) {
      console.error(
        `remcp serve: ${flags.host} is not a loopback address; pass --allow-remote to serve ` +
          `other machines (anyone who can reach it and holds the token controls remcp)`,
      );
      return 2;
    }
    console.error(
      `WARNING: remcp serve is listening on ${flags.host}: other machines can reach it. ` +
        `The bearer token in the state file is the only protection; use a firewall or an SSH ` +
        `tunnel where you can.`,
    );
  }
  const paths = daemonPaths(config.stateDir);
  await ensureStateDir(config.stateDir);
  const log = createLogger(
    "daemon",
    stderrSink(config.logLevel, config.logDir ?? (flags.auto ? paths.logs : undefined), "daemon"),
  );
  // A proxy that auto-starts us holds the lock and has checked already; by hand, check here.
  if (!flags.auto) {
    const existing = await withFileLock(paths.lock, 30_000, () => discoverDaemon(paths.state));
    if (existing.kind === "live") {
      console.error(
        `remcp serve: a daemon is already running (pid ${existing.state.pid} at ` +
          `${daemonUrl(existing.state)}); stop it with "remcp stop" first`,
      );
      return 1;
    }
    if (existing.kind === "stale") log.info(`replacing a stale state file: ${existing.why}`);
  }
  return await runDaemon(config, flags, log, paths);
}

async function runDaemon(
  config: Config,
  flags: ServeFlags,
  log: Logger,
  paths: ReturnType<typeof daemonPaths>,
): Promise<number> {
  const sup = createSupervisor(config, log);
  const token = newToken();
  const started = new Date().toISOString();
  const activity = new Activity({ callsInFlight: () => sup.callsInFlight });
  const done = Promise.withResolvers<void>();
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping: ${why}`);
    clearInterval(idleTimer);
    // Hold the spawn lock while shutting down, so a proxy arriving now waits and starts a fresh
    // daemon after this one's workers have saved, instead of talking to a daemon on its way out.
    const shutdown = async () => {
      await removeState(paths.state, Deno.pid);
      await handler.close();
      await sup.shutdown();
      await server.shutdown(2000);
    };
    try {
      await withFileLock(paths.lock, 5000, shutdown);
    } catch (err) {
      log.warn(`shutting down without the lock: ${(err as Error).message}`);
      await shutdown();
    }
    done.resolve();
  };
  // Heartbeats (and the switch of a slow answer to a stream) come well inside the connection
  // timeout, so that a live call never looks idle.
  const connectionMs = flags.connectionTimeoutS * 1000;
  const handler = createDaemonHandler({
    sup,
    activity,
    log,
    token,
    host: flags.host,
    started,
    auto: flags.auto,
    idleTimeoutS: flags.idleTimeoutS,
    onStop: () => void stop("stop requested"),
    heartbeatMs: Math.min(10_000, connectionMs / 3),
    streamAfterMs: Math.min(1000, connectionMs / 3),
  });
  const server = await serveBehindIdleFront(
    { hostname: flags.host, port: flags.port, idleMs: connectionMs },
    (request) => handler.fetch(request),
  );
  const port = server.addr.port;
  await writeState(paths.state, {
    host: flags.host,
    port,
    token,
    pid: Deno.pid,
    version: VERSION,
    started,
    auto: flags.auto,
  });
  log.info(`listening on ${daemonUrl({ host: flags.host, port })}`, {
    state: paths.state,
    idle_timeout_s: flags.idleTimeoutS ?? null,
  });
  const idleMs = flags.idleTimeoutS !== undefined ? flags.idleTimeoutS * 1000 : undefined;
  const idleTimer = setInterval(() => {
    if (idleMs !== undefined && activity.idleMs() >= idleMs) {
      void stop(`idle for ${flags.idleTimeoutS} s`);
    }
  }, idleMs !== undefined ? Math.min(1000, Math.max(100, idleMs / 4)) : 60_000);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => void stop(signal));
    } catch {
      // Windows has no SIGTERM listener; `remcp stop` asks over HTTP there.
    }
  }
  await done.promise;
  return 0;
}
