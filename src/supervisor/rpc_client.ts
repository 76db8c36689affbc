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

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
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
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.#cancel(id, "timeout");
        fail(new Error(`Request timed out after ${options.timeoutMs} ms`));
      }, options.timeoutMs);
    };
    const onAbort = () => {
      this.#cancel(id, "cancelled");
      fail(new Error("Request cancelled"));
    };
    const settle = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      this.#pending.delete(id);
    };
    const fail = (err: Error) => {
      settle();
      reject(err);
    };
    this.#pending.set(id, {
      resolve: (v) => {
        settle();
        resolve(v);
      },
      reject: fail,
      raw: options.raw,
      onprogress: options.onprogress
        ? (p) => {
          arm();
          options.onprogress?.(p);
        }
        : undefined,
    });
    if (options.signal?.aborted) {
      onAbort();
      return promise;
    }
    options.signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    this.#transport.send({ jsonrpc: "2.0", id, method, params: withMeta } as JSONRPCMessage)
      .catch((err) => fail(err instanceof Error ? err : new Error(String(err))));
    return promise;
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
    p.resolve(value);
    return true;
  }

  #onMessage(m: Record<string, unknown>): void {
    if (typeof m.id === "number" && ("result" in m || "error" in m)) {
      const p = this.#pending.get(m.id);
      if (!p) return;
      if ("error" in m) {
        const e = m.error as { code?: number; message?: string };
        p.reject(new RpcError(e.code ?? -32603, e.message ?? "error"));
      } else p.resolve(m.result);
      return;
    }
    if (m.method === "notifications/progress") {
      const params = m.params as Record<string, unknown> | undefined;
      const token = params?.progressToken;
      const p = typeof token === "number" ? this.#pending.get(token) : undefined;
      if (p && typeof params?.progress === "number") {
        p.onprogress?.({
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
    for (const p of [...this.#pending.values()]) p.reject(err);
    this.#pending.clear();
  }

  /** Closes the connection (the worker sees end of input and exits). */
  async close(): Promise<void> {
    await this.#transport.close();
  }
}
