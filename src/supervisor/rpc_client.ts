/**
 * A minimal JSON-RPC client for the supervisor → worker hop. Workers are our own MCP servers, so
 * the supervisor skips the SDK client's per-message schema work on this internal hop (it was most
 * of the routing overhead), while keeping the MCP wire protocol: initialize, tools/call with
 * progress tokens, notifications/cancelled on abort, request timeouts.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { VERSION } from "../config.ts";
import type { LineTransport } from "../line_transport.ts";

/** Progress as a worker reports it. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Options of one request. */
export interface RequestOptions {
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  onprogress?: ((p: Progress) => void) | undefined;
  /**
   * Sees the bytes of the result before they are parsed (when the answer is in the compact form
   * this project's workers write); a value other than undefined is the answer, unparsed.
   */
  raw?: ((json: Uint8Array) => unknown) | undefined;
}

/** A JSON-RPC error answer, as an exception. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** One request waiting for its answer. */
interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** When it times out (performance.now() ms); progress moves it on by `timeoutMs`. */
  deadline: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onAbort?: (() => void) | undefined;
  onprogress?: ((p: Progress) => void) | undefined;
  raw?: ((json: Uint8Array) => unknown) | undefined;
}

const encoder = new TextEncoder();
/** How a worker's answer starts (`JSON.stringify` of `{jsonrpc, id, result}`), up to the id. */
const HEAD = encoder.encode('{"jsonrpc":"2.0","id":');
/** What follows the id of an answer that carries a result. */
const RESULT = encoder.encode(',"result":');

/** JSON-RPC requests over a {@link LineTransport}. */
export class RpcClient {
  #transport: LineTransport;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #closed = false;

  constructor(transport: LineTransport) {
    this.#transport = transport;
    transport.onmessage = (m) => this.#onMessage(m as unknown as Record<string, unknown>);
    transport.online = (line) => this.#onLine(line);
    transport.onclose = () => this.#failAll(new Error("Connection closed"));
  }

  /** Starts the transport and performs the MCP initialize handshake. */
  async connect(timeoutMs: number): Promise<void> {
    await this.#transport.start();
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "remcp-supervisor", version: VERSION },
    }, { timeoutMs });
    await this.#transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** Sends a request and resolves with its result. */
  request(method: string, params: Record<string, unknown>, options: RequestOptions) {
    if (this.#closed) return Promise.reject(new Error("Connection closed"));
    const id = this.#nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    const withMeta = options.onprogress ? { ...params, _meta: { progressToken: id } } : params;
    const p: Pending = {
      resolve,
      reject,
      deadline: performance.now() + options.timeoutMs,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onprogress: options.onprogress,
      raw: options.raw,
    };
    this.#pending.set(id, p);
    if (options.signal) {
      if (options.signal.aborted) {
        this.#abort(id, p);
        return promise;
      }
      p.onAbort = () => this.#abort(id, p);
      options.signal.addEventListener("abort", p.onAbort);
    }
    this.#armSweep(p.deadline);
    this.#transport.send({ jsonrpc: "2.0", id, method, params: withMeta } as JSONRPCMessage)
      .catch((err) => this.#fail(id, p, err instanceof Error ? err : new Error(String(err))));
    return promise;
  }

  // The deadlines of every request are checked by one timer, armed for the earliest of them and
  // left armed when that request is answered (it then finds nothing due and re-arms for the
  // next, or stops): a timer per request cost a timer insert and removal on each call
  // (docs/ARCHITECTURE.md section 7). Closing the connection clears it.
  #sweepTimer: ReturnType<typeof setTimeout> | undefined;
  #sweepAt = Infinity;

  #armSweep(deadline: number): void {
    if (deadline >= this.#sweepAt) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepAt = deadline;
    this.#sweepTimer = setTimeout(
      () => this.#sweep(),
      Math.max(0, Math.ceil(deadline - performance.now())),
    );
  }

  #sweep(): void {
    this.#sweepTimer = undefined;
    this.#sweepAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [id, p] of [...this.#pending]) {
      if (p.deadline <= now) {
        this.#cancel(id, "timeout");
        this.#fail(id, p, new Error(`Request timed out after ${p.timeoutMs} ms`));
      } else next = Math.min(next, p.deadline);
    }
    if (next < Infinity) this.#armSweep(next);
  }

  #abort(id: number, p: Pending): void {
    this.#cancel(id, "cancelled");
    this.#fail(id, p, new Error("Request cancelled"));
  }

  /** Forgets a request that has its answer or failed; true if it was still waiting. */
  #settle(id: number, p: Pending): boolean {
    if (this.#pending.get(id) !== p) return false;
    this.#pending.delete(id);
    if (p.onAbort) p.signal?.removeEventListener("abort", p.onAbort);
    return true;
  }

  #fail(id: number, p: Pending, err: Error): void {
    if (this.#settle(id, p)) p.reject(err);
  }

  #succeed(id: number, p: Pending, value: unknown): void {
    if (this.#settle(id, p)) p.resolve(value);
  }

  #cancel(id: number, reason: string): void {
    if (!this.#pending.has(id)) return;
    void this.#transport.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason },
    }).catch(() => {});
  }

  // An answer whose request takes raw results, in the compact form: its result's bytes are
  // handed over without decoding or parsing the line. Anything else is parsed as usual.
  #onLine(line: Uint8Array): boolean {
    const end = line.length - 1;
    if (end < HEAD.length + RESULT.length + 1 || line[end] !== 0x7d) return false;
    for (let i = 0; i < HEAD.length; i++) if (line[i] !== HEAD[i]) return false;
    let at = HEAD.length;
    let id = 0;
    for (; at < end && at - HEAD.length < 15; at++) {
      const d = line[at]! - 0x30;
      if (d < 0 || d > 9) break;
      id = id * 10 + d;
    }
    if (at === HEAD.length) return false;
    for (let i = 0; i < RESULT.length; i++) if (line[at + i] !== RESULT[i]) return false;
    const p = this.#pending.get(id);
    if (!p?.raw) return false;
    const value = p.raw(line.subarray(at + RESULT.length, end));
    if (value === undefined) return false;
    this.#succeed(id, p, value);
    return true;
  }

  #onMessage(m: Record<string, unknown>): void {
    if (typeof m.id === "number" && ("result" in m || "error" in m)) {
      const id = m.id;
      const p = this.#pending.get(id);
      if (!p) return;
      if ("error" in m) {
        const e = m.error as { code?: number; message?: string };
        this.#fail(id, p, new RpcError(e.code ?? -32603, e.message ?? "error"));
      } else this.#succeed(id, p, m.result);
      return;
    }
    if (m.method === "notifications/progress") {
      const params = m.params as Record<string, unknown> | undefined;
      const token = params?.progressToken;
      const p = typeof token === "number" ? this.#pending.get(token) : undefined;
      if (p?.onprogress && typeof params?.progress === "number") {
        p.deadline = performance.now() + p.timeoutMs;
        p.onprogress({
          progress: params.progress,
          ...(typeof params.total === "number" ? { total: params.total } : {}),
          ...(typeof params.message === "string" ? { message: params.message } : {}),
        });
      }
      return;
    }
    if (typeof m.method === "string" && m.id !== undefined) {
      // A request from the worker (ping, …): answer so it never waits.
      const reply = m.method === "ping"
        ? { jsonrpc: "2.0", id: m.id, result: {} }
        : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
      void this.#transport.send(reply as JSONRPCMessage).catch(() => {});
    }
  }

  #failAll(err: Error): void {
    this.#closed = true;
    for (const [id, p] of [...this.#pending]) this.#fail(id, p, err);
    clearTimeout(this.#sweepTimer);
  }

  /** Closes the connection (the worker sees end of input and exits). */
  async close(): Promise<void> {
    await this.#transport.close();
  }
}
