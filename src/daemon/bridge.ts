/**
 * Moves JSON-RPC between the proxy's stdio and the daemon's streamable HTTP endpoint. Every
 * message from the client is POSTed on its own (requests run concurrently); every message in
 * the JSON or SSE answer — progress notes included — goes back to the client. The SDK's
 * `StreamableHTTPClientTransport` derives the per-request headers the 2026 era checks.
 *
 * A request the daemon never answered still gets an answer: a JSON-RPC error. When the daemon
 * is gone (refused connection, 401 from a successor with a new token, 503 while it shuts down),
 * the bridge finds or starts a daemon again and retries the message once.
 */
import {
  type FetchLike,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import type { Logger } from "../log.ts";
import { SESSION_HEADER } from "./control.ts";
import { type DaemonState, daemonUrl } from "./state.ts";

/** What the bridge needs. */
export interface BridgeOptions {
  /** The client side (the proxy's stdio). */
  downstream: Transport;
  /** The daemon to start with. */
  daemon: DaemonState;
  session: string;
  log: Logger;
  /** Finds the live daemon, starting one if needed (called when the current one is gone). */
  ensureDaemon: () => Promise<DaemonState>;
}

/** The daemon did not take the message: nothing reached a handler, so sending again is safe. */
class DaemonGone extends Error {}

type Id = string | number;

/** One proxy's connection to the daemon. */
export class DaemonBridge {
  #opts: BridgeOptions;
  #daemon: DaemonState;
  #upstream: StreamableHTTPClientTransport;
  #pending = new Map<Id, AbortController>();
  #initializeIds = new Set<Id>();
  #protocolVersion: string | undefined;
  #reconnecting: Promise<void> | undefined;
  #closed = false;

  constructor(opts: BridgeOptions) {
    this.#opts = opts;
    this.#daemon = opts.daemon;
    this.#upstream = this.#connect(opts.daemon);
  }

  /** The daemon the bridge talks to now. */
  get daemon(): DaemonState {
    return this.#daemon;
  }

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Starts relaying client messages. */
  start(): void {
    this.#opts.downstream.onmessage = (message) => void this.#forward(message);
  }

  /** Switches to another daemon (a successor found by the attach loop). */
  useDaemon(state: DaemonState): void {
    if (state.pid === this.#daemon.pid && state.token === this.#daemon.token) return;
    this.#daemon = state;
    // The old transport is left to finish: its open streams end with their daemon and their
    // requests get error answers (closing it would abort them silently).
    this.#upstream = this.#connect(state);
  }

  /** Stops relaying; unanswered requests are abandoned (the client is gone). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const ctl of this.#pending.values()) ctl.abort();
    this.#pending.clear();
    await this.#upstream.close().catch(() => {});
  }

  #connect(state: DaemonState): StreamableHTTPClientTransport {
    const transport = new StreamableHTTPClientTransport(new URL(daemonUrl(state)), {
      requestInit: {
        headers: { authorization: `Bearer ${state.token}`, [SESSION_HEADER]: this.#opts.session },
      },
      fetch: goneAware,
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 100,
        reconnectionDelayGrowFactor: 1,
      },
    });
    if (this.#protocolVersion) transport.setProtocolVersion(this.#protocolVersion);
    transport.onmessage = (message) => this.#fromDaemon(message);
    transport.onerror = (err) => this.#opts.log.debug(`upstream: ${err.message}`);
    void transport.start();
    return transport;
  }

  #writes: Promise<void> = Promise.resolve();
  #lastWasNote = false;

  #fromDaemon(message: JSONRPCMessage): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      this.#pending.delete(message.id);
      if (this.#initializeIds.delete(message.id) && "result" in message) {
        // Later 2025-era requests carry the negotiated version, as an HTTP client's would.
        const v = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof v === "string") {
          this.#protocolVersion = v;
          this.#upstream.setProtocolVersion(v);
        }
      }
    }
    this.#toClient(message);
  }

  #toClient(message: JSONRPCMessage): void {
    if (this.#closed) return;
    const isNote = "method" in message && !("id" in message && message.id !== undefined);
    const afterNote = this.#lastWasNote;
    this.#lastWasNote = isNote;
    this.#writes = this.#writes.then(async () => {
      // The SDK client handles notifications a microtask late but responses at once: a progress
      // note read in the same chunk as its response would be dropped. Let the notes go first.
      if (afterNote && !isNote) await new Promise((r) => setTimeout(r, 5));
      await this.#opts.downstream.send(message);
    }).catch((err) => this.#opts.log.debug(`client write failed: ${(err as Error).message}`));
  }

  async #forward(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    // Cancelling a request we relay: abort its POST, which is the HTTP binding's cancellation.
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      const ctl = id !== undefined ? this.#pending.get(id) : undefined;
      if (ctl) {
        this.#pending.delete(id!);
        ctl.abort();
        return;
      }
    }
    const isRequest = "method" in message && "id" in message && message.id !== undefined;
    const id = isRequest ? (message as { id: Id }).id : undefined;
    const ctl = new AbortController();
    if (id !== undefined) {
      this.#pending.set(id, ctl);
      if ((message as { method: string }).method === "initialize") this.#initializeIds.add(id);
    }
    for (let attempt = 0;; attempt++) {
      const upstream = this.#upstream;
      try {
        await upstream.send(message, {
          requestSignal: ctl.signal,
          // An SSE answer that ended without the response (daemon died mid-call).
          onRequestStreamEnd: () => {
            if (id !== undefined) this.#unanswered(id, "the daemon closed the stream");
          },
        });
        return;
      } catch (err) {
        if (ctl.signal.aborted || this.#closed) return;
        let failure = err;
        if (err instanceof DaemonGone && attempt === 0) {
          this.#opts.log.info(`daemon unavailable (${err.message}); reconnecting`);
          try {
            await this.#reconnect(upstream);
            continue;
          } catch (again) {
            failure = again;
          }
        }
        const why = failure instanceof Error ? failure.message : String(failure);
        this.#opts.log.warn(`relaying ${describe(message)} failed: ${why}`);
        if (id !== undefined) this.#unanswered(id, why);
        return;
      }
    }
  }

  #unanswered(id: Id, why: string): void {
    if (!this.#pending.delete(id)) return;
    this.#initializeIds.delete(id);
    this.#toClient({
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: `remcp proxy: no answer from the daemon: ${why}` },
    });
  }

  // One reconnection at a time; requests that failed together wait for the same one.
  #reconnect(failed: StreamableHTTPClientTransport): Promise<void> {
    if (failed !== this.#upstream) return Promise.resolve();
    this.#reconnecting ??= this.#opts.ensureDaemon().then((state) => {
      this.useDaemon(state);
    }).finally(() => {
      this.#reconnecting = undefined;
    });
    return this.#reconnecting;
  }
}

/** fetch that turns "the daemon is not there (any more)" into {@link DaemonGone}. */
const goneAware: FetchLike = async (url, init) => {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    if (init?.signal?.aborted) throw err;
    throw new DaemonGone(err instanceof Error ? err.message : String(err));
  }
  if (response.status === 401 || response.status === 503) {
    await response.body?.cancel().catch(() => {});
    throw new DaemonGone(`HTTP ${response.status}`);
  }
  return response;
};

function describe(message: JSONRPCMessage): string {
  if ("method" in message) return message.method;
  return "a response";
}
