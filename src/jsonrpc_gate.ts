/**
 * The JSON-RPC 2.0 and MCP rules a server's transport enforces before a message reaches the SDK
 * or a fast path: every invalid request gets exactly one error reply, a 2025-era session must
 * `initialize` before anything but `ping`, and a request id still in flight cannot be reused.
 * (2026-07-28 requests carry their protocol version in `_meta` and need no handshake.)
 */

/** What the gate decided about one message. */
export type GateVerdict =
  | { pass: true }
  | { pass: false; reply?: { id: string | number | null; code: number; message: string } };

const MODERN_KEY = "io.modelcontextprotocol/protocolVersion";
const BEFORE_INIT = new Set(["initialize", "ping", "server/discover"]);

/** Per-connection state: the handshake and the ids of requests not yet answered. */
export class JsonRpcGate {
  #initialized = false;
  #inflight = new Set<string | number>();

  /** Checks one incoming message. */
  check(message: unknown): GateVerdict {
    if (Array.isArray(message)) {
      return refuse(null, -32600, "Invalid request: JSON-RPC batches are not supported by MCP");
    }
    if (typeof message !== "object" || message === null) {
      return refuse(null, -32600, "Invalid request: not an object");
    }
    const m = message as Record<string, unknown>;
    const hasId = "id" in m;
    const id = m.id;
    const validId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
    if (hasId && !validId && id !== null) {
      return refuse(null, -32600, "Invalid request: id must be a string or an integer");
    }
    const replyId = validId ? id as string | number : null;
    if (m.jsonrpc !== "2.0") {
      return refuse(replyId, -32600, 'Invalid request: jsonrpc must be "2.0"');
    }
    if ("method" in m) {
      if (typeof m.method !== "string") {
        return refuse(replyId, -32600, "Invalid request: method must be a string");
      }
      if (m.params !== undefined && (typeof m.params !== "object" || m.params === null)) {
        return refuse(replyId, -32602, "Invalid params: params must be an object");
      }
      if (!hasId) {
        // A notification: never answered. A cancel frees its request's id.
        if (m.method === "notifications/cancelled") {
          const rid = (m.params as { requestId?: unknown } | undefined)?.requestId;
          if (typeof rid === "string" || typeof rid === "number") this.#inflight.delete(rid);
        }
        return { pass: true };
      }
      if (id === null) return refuse(null, -32600, "Invalid request: a request id cannot be null");
      const meta = (m.params as { _meta?: unknown } | undefined)?._meta;
      const modern = typeof meta === "object" && meta !== null && MODERN_KEY in meta;
      if (m.method === "initialize") this.#initialized = true;
      else if (!this.#initialized && !modern && !BEFORE_INIT.has(m.method)) {
        return refuse(
          replyId,
          -32600,
          `Invalid request: ${m.method} before initialize: send initialize first ` +
            "(or use server/discover with protocol version 2026-07-28)",
        );
      }
      if (this.#inflight.has(replyId!)) {
        return refuse(
          replyId,
          -32600,
          `Invalid request: a request with id ${JSON.stringify(id)} is still in flight; ` +
            "use a new id for each request",
        );
      }
      this.#inflight.add(replyId!);
      return { pass: true };
    }
    // A response to a request the server sent: it needs an id and a result or an error.
    if (("result" in m || "error" in m) && validId) return { pass: true };
    return refuse(replyId, -32600, "Invalid request: no method, and not a response");
  }

  /** Notes an outgoing message: a response frees its request's id. */
  sent(message: unknown): void {
    if (typeof message !== "object" || message === null) return;
    const m = message as Record<string, unknown>;
    if ("method" in m) return;
    if (typeof m.id === "string" || typeof m.id === "number") this.#inflight.delete(m.id);
  }

  /** Notes that the response to request `id` was sent. */
  answered(id: string | number): void {
    this.#inflight.delete(id);
  }
}

function refuse(id: string | number | null, code: number, message: string): GateVerdict {
  return { pass: false, reply: { id, code, message } };
}
