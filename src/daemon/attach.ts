/**
 * A proxy's keepalive: one held `/remcp/attach` stream per proxy. While it is open the daemon
 * counts the session as attached (and is not idle); when the proxy exits or dies the socket
 * closes and the daemon detaches the session at once — no timeout to wait out. When the daemon
 * goes away, the loop looks for a successor through the state file (it never starts one: the
 * next request does).
 */
import type { Logger } from "../log.ts";
import { SESSION_HEADER } from "./control.ts";
import { discoverDaemon } from "./discover.ts";
import { type DaemonState, daemonUrl } from "./state.ts";

/** What the attach loop needs. */
export interface AttachOptions {
  /** The daemon the proxy talks to now. */
  daemon: () => DaemonState;
  /** Called with a successor daemon found after the current one went away. */
  onDaemon: (state: DaemonState) => void;
  session: string;
  statePath: string;
  signal: AbortSignal;
  log: Logger;
  /** Pause before looking for a successor (default 500 ms). */
  retryMs?: number;
}

/** Holds the attachment until `signal` aborts. */
export async function holdAttachment(opts: AttachOptions): Promise<void> {
  const { signal } = opts;
  while (!signal.aborted) {
    const state = opts.daemon();
    try {
      const r = await fetch(daemonUrl(state, "/remcp/attach"), {
        headers: { authorization: `Bearer ${state.token}`, [SESSION_HEADER]: opts.session },
        signal,
      });
      if (r.ok && r.body) {
        // Heartbeats only; the loop ends when the daemon ends the stream or goes away.
        for await (const _ of r.body) { /* keepalive */ }
      } else {
        await r.body?.cancel().catch(() => {});
      }
    } catch (err) {
      if (signal.aborted) return;
      opts.log.debug(`attach: ${(err as Error).message}`);
    }
    if (signal.aborted) return;
    await sleep(opts.retryMs ?? 500, signal);
    if (signal.aborted) return;
    const found = await discoverDaemon(opts.statePath, 1000);
    if (found.kind === "live") opts.onDaemon(found.state);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
