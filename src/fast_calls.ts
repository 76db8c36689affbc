/**
 * A fast path for 2025-era `tools/call` requests, shared by the supervisor's stdio server and the
 * worker. On that era, a tools/call result whose structured content is an object is sent exactly
 * as remcp builds it, so those calls are answered straight from the transport without the SDK
 * server's per-message work (measured: most of the per-hop cost). Handshakes, listings, unknown
 * tools and 2026-era requests still go through the SDK server.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import type { LineTransport } from "./line_transport.ts";
import type { ToolResult } from "./protocol/results.ts";
import { progressNote } from "./protocol/progress.ts";
import { responseLine, type WireResult } from "./protocol/wire_result.ts";

const MODERN_KEY = "io.modelcontextprotocol/protocolVersion";

/** What a fast call gets besides its arguments. */
export interface FastCallContext {
  signal: AbortSignal;
  progress(done: number, total?: number, message?: string): void;
}

/**
 * Runs a call, or returns undefined when `name` is not handled here (the SDK answers it). A
 * result may be a worker's answer still in bytes (the supervisor's), sent on as it is.
 */
export type FastRunner = (
  name: string,
  args: unknown,
  ctx: FastCallContext,
) => Promise<ToolResult | WireResult> | undefined;

/** Options of {@link fastToolCalls}. */
export interface FastCallOptions {
  /**
   * Take calls without waiting for `notifications/initialized`: a connection that has no
   * handshake (a worker's lane to a sandbox, workers/lanes.ts).
   */
  initialized?: boolean;
  /** When this settles (the connection ended), the calls still running are aborted. */
  ended?: Promise<void>;
}

/** Builds the intercept hook for `transport` (set it before the transport starts). */
export function fastToolCalls(
  run: FastRunner,
  transport: () => LineTransport,
  options: FastCallOptions = {},
): (message: Record<string, unknown>) => boolean {
  const inflight = new Map<string | number, AbortController>();
  let initialized = options.initialized ?? false;
  void options.ended?.then(() => {
    for (const ctl of inflight.values()) ctl.abort();
  });

  return (m) => {
    if (m.method === "notifications/initialized") initialized = true;
    if (m.method === "notifications/cancelled") {
      const id = (m.params as { requestId?: string | number } | undefined)?.requestId;
      const ctl = id !== undefined ? inflight.get(id) : undefined;
      if (!ctl) return false;
      ctl.abort();
      return true;
    }
    if (m.method !== "tools/call" || !initialized) return false;
    const id = m.id as string | number | undefined;
    const params = m.params as Record<string, unknown> | undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    if (id === undefined || !params || typeof params.name !== "string") return false;
    if (meta && MODERN_KEY in meta) return false;
    const ctl = new AbortController();
    const progressToken = meta?.progressToken as string | number | undefined;
    let sentProgress = false;
    const send = (msg: unknown) => void transport().send(msg as JSONRPCMessage).catch(() => {});
    const pending = run(params.name, params.arguments, {
      signal: ctl.signal,
      progress(done, total, message) {
        if (progressToken === undefined) return;
        sentProgress = true;
        send({ jsonrpc: "2.0", ...progressNote(progressToken, done, total, message) });
      },
    });
    if (!pending) return false;
    inflight.set(id, ctl);
    void pending.then(async (result) => {
      inflight.delete(id);
      // The SDK client handles notifications a microtask late but responses at once: a progress
      // note read in the same chunk as the response would be dropped. Let the notes go first.
      if (sentProgress) await new Promise((r) => setTimeout(r, 5));
      // A cancelled request gets no response, as the protocol asks.
      if (!ctl.signal.aborted) {
        void transport().sendResponseLine(id, responseLine(id, result)).catch(() => {});
      }
    });
    return true;
  };
}
