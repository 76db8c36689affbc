/**
 * Finds the live daemon or starts one: `remcp serve --auto`, fully detached (its own session,
 * no inherited stdio, unref'd) so it outlives the proxy that started it. Starting happens under
 * an exclusive file lock, and the state file is checked again inside it, so proxies started
 * together produce exactly one daemon.
 */
import { VERSION } from "../config.ts";
import type { Logger } from "../log.ts";
import { selfCommand } from "../self_command.ts";
import { checkHealth } from "./control.ts";
import { discoverDaemon } from "./discover.ts";
import { withFileLock } from "./lock.ts";
import { daemonPaths, type DaemonState, ensureStateDir, readState } from "./state.ts";

/** How {@link ensureDaemon} finds or starts the daemon. */
export interface EnsureOptions {
  stateDir: string;
  log: Logger;
  /** Extra arguments for `serve --auto` (the proxy's configuration flags). */
  serveArgs?: string[];
  /** How long a new daemon may take to answer (default 30 s). */
  startTimeoutMs?: number;
}

/** The live daemon's state, starting a daemon first when none is live. */
export async function ensureDaemon(opts: EnsureOptions): Promise<DaemonState> {
  const paths = daemonPaths(opts.stateDir);
  const first = await discoverDaemon(paths.state);
  if (first.kind === "live") return checked(first.state, opts.log);
  await ensureStateDir(opts.stateDir);
  const startTimeout = opts.startTimeoutMs ?? 30_000;
  // The lock may be held by a daemon saving its workers on the way out: wait for that too.
  return await withFileLock(paths.lock, startTimeout + 15_000, async () => {
    const found = await discoverDaemon(paths.state);
    if (found.kind === "live") return checked(found.state, opts.log);
    if (found.kind === "stale") {
      opts.log.info(`replacing a stale daemon state file: ${found.why}`);
      await Deno.remove(paths.state).catch(() => {});
    }
    return await spawnDaemon(paths.state, opts.serveArgs ?? [], startTimeout, opts.log);
  });
}

/** A daemon of another version still serves; say how to get the new one. */
function checked(state: DaemonState, log: Logger): DaemonState {
  if (state.version !== VERSION) {
    log.warn(
      `the running daemon (pid ${state.pid}) is remcp ${state.version}, this is ${VERSION}: ` +
        `run "remcp stop" to replace it`,
    );
  }
  return state;
}

async function spawnDaemon(
  statePath: string,
  serveArgs: string[],
  timeoutMs: number,
  log: Logger,
): Promise<DaemonState> {
  const cmd = selfCommand("serve", ["--auto", ...serveArgs]);
  const child = new Deno.Command(cmd.command, {
    args: cmd.args,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  log.info(`started remcp daemon pid ${child.pid}`);
  let exited: Deno.CommandStatus | undefined;
  void child.status.then((s) => exited = s);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const state = await readState(statePath);
    if (state && state.pid === child.pid && await checkHealth(state, 1000)) return state;
    if (exited) {
      throw new Error(
        `The remcp daemon exited at start (code ${exited.code}): see the daemon logs in the ` +
          `state folder's logs/ directory`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`The remcp daemon (pid ${child.pid}) did not answer within ${timeoutMs} ms`);
}
