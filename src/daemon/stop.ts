/**
 * `remcp stop`: asks the daemon to shut down gracefully (workers save and stop) over its
 * authenticated `/remcp/stop` endpoint, falls back to SIGTERM on its pid, and says what happened
 * on stdout — this is a command for people.
 */
import type { Config } from "../config.ts";
import { controlRequest } from "./control.ts";
import { discoverDaemon } from "./discover.ts";
import { inspectProcess, isDaemonProcess, type ProcessInspector } from "./identify.ts";
import { daemonPaths, daemonUrl, processAlive, removeState } from "./state.ts";

/** Where `stop` writes what happened (stdout by default). */
export type Say = (line: string) => void;

/**
 * Stops the running daemon; 0 when one was stopped or none was running. `inspect` tells what a
 * pid runs (tests pass their own).
 */
export async function stopMode(
  config: Config,
  say: Say = console.log,
  inspect: ProcessInspector = inspectProcess,
): Promise<number> {
  const paths = daemonPaths(config.stateDir);
  const found = await discoverDaemon(paths.state, 2000);
  if (found.kind === "none") {
    say(`No remcp daemon is running (no ${paths.state})`);
    return 0;
  }
  const { state } = found;
  if (found.kind === "stale" && !processAlive(state.pid)) {
    await removeState(paths.state, state.pid);
    say(`No remcp daemon is running (removed a stale state file: ${found.why})`);
    return 0;
  }
  if (found.kind === "stale") {
    // Nothing answers for the daemon: its pid may belong to another program by now.
    const who = await isDaemonProcess(state, inspect);
    if (!who.ours) {
      await removeState(paths.state, state.pid);
      say(
        `No remcp daemon is running (${found.why}, and ${who.why}): signalled nothing, ` +
          `removed the stale state file`,
      );
      return 0;
    }
  }
  let how: string;
  if (found.kind === "live" && await askToStop(state)) {
    how = "asked it to stop; workers saved";
  } else {
    how = "sent SIGTERM, on which it saves its workers as it stops";
    try {
      Deno.kill(state.pid, "SIGTERM");
    } catch (err) {
      say(`Could not signal the remcp daemon (pid ${state.pid}): ${(err as Error).message}`);
      return 1;
    }
  }
  if (!await exited(state.pid, 20_000)) {
    say(
      `The remcp daemon (pid ${state.pid}) is still running 20 s after remcp ${how}: ` +
        `its workers may still be saving; try again, or kill ${state.pid}`,
    );
    return 1;
  }
  // A daemon stopped by signal before it could clean up leaves its file behind.
  await removeState(paths.state, state.pid);
  say(`Stopped the remcp daemon (pid ${state.pid}, ${daemonUrl(state)}): ${how}`);
  return 0;
}

async function askToStop(state: Parameters<typeof controlRequest>[0]): Promise<boolean> {
  try {
    const r = await controlRequest(state, "/remcp/stop", { method: "POST", timeoutMs: 5000 });
    await r.body?.cancel();
    return r.ok;
  } catch {
    return false;
  }
}

async function exited(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
