/**
 * Finds the running daemon through its state file: it counts as live only when its pid exists
 * AND its endpoint answers an authenticated health check as that pid. Anything else is stale.
 */
import { checkHealth } from "./control.ts";
import { type DaemonState, processAlive, readState } from "./state.ts";

/** What the state folder says about a daemon. */
export type Discovery =
  | { kind: "live"; state: DaemonState }
  | { kind: "stale"; state: DaemonState; why: string }
  | { kind: "none" };

/** Looks at the state file at `statePath` and checks the daemon it names. */
export async function discoverDaemon(statePath: string, timeoutMs = 2000): Promise<Discovery> {
  const state = await readState(statePath);
  if (!state) return { kind: "none" };
  if (!processAlive(state.pid)) {
    return { kind: "stale", state, why: `pid ${state.pid} is not running` };
  }
  // One retry: a daemon busy starting a worker may miss one short deadline.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await checkHealth(state, timeoutMs)) return { kind: "live", state };
  }
  return {
    kind: "stale",
    state,
    why: `${state.host}:${state.port} does not answer as pid ${state.pid}`,
  };
}
