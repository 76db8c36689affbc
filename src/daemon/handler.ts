/**
 * The daemon's HTTP face as a web-standard `fetch` handler (so tests can call it in-process):
 * the guard on every request, streamable HTTP MCP at `/mcp` for both protocol eras, and the
 * control endpoints under `/remcp/` — health, attach (a proxy's held keepalive stream), detach
 * and stop.
 */
import { createMcpHandler } from "@modelcontextprotocol/server";
import { VERSION } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Host } from "../supervisor/host.ts";
import { createServer } from "../supervisor/server.ts";
import type { Activity } from "./activity.ts";
import { DEFAULT_SESSION, type Health, SESSION_HEADER, SESSION_PATTERN } from "./control.ts";
import { fastToolCall } from "./fast_http.ts";
import { createGuard } from "./guard.ts";
import { readBody } from "./read_body.ts";
import { streamWhenSlow } from "./stream_when_slow.ts";

/** What the handler serves and reports. */
export interface DaemonHandlerOptions {
  sup: Host;
  activity: Activity;
  log: Logger;
  token: string;
  /** The address the daemon is bound to (allowed as Host besides loopback names). */
  host: string;
  started: string;
  auto: boolean;
  idleTimeoutS: number | undefined;
  /** Called once when an authenticated client asks the daemon to stop. */
  onStop: () => void;
  /** Interval of the heartbeat on attach and other event streams (default 10 s). */
  heartbeatMs?: number;
  /** How long an MCP answer may take before it is sent as an event stream (default 1 s). */
  streamAfterMs?: number;
  /** Longest a request body may take to arrive (default 30 s). */
  bodyTimeoutMs?: number;
}

/** The handler and how to end its long-lived streams. */
export interface DaemonHandler {
  fetch(request: Request): Promise<Response>;
  /** Refuses new MCP requests, ends attach streams and tears down in-flight MCP exchanges. */
  close(): Promise<void>;
}

// open_data takes 64 MiB of sample, which is 128 MiB as hex, plus the JSON-RPC envelope.
const MAX_BODY = 160 * 1024 * 1024;
// Even 160 MiB arrives in seconds on loopback; a body still trickling in after this is cut off.
const BODY_TIMEOUT_MS = 30_000;
const HEARTBEAT_MS = 10_000;
// Short enough that a client who leaves is noticed soon; quick answers stay plain JSON.
const STREAM_AFTER_MS = 1000;
const encoder = new TextEncoder();

/** Builds the daemon's request handler. */
export function createDaemonHandler(opts: DaemonHandlerOptions): DaemonHandler {
  const { sup, activity, log } = opts;
  const guard = createGuard({ token: opts.token, host: opts.host });
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  const mcp = createMcpHandler(
    (ctx) => createServer(sup, sessionOf(ctx.requestInfo)),
    {
      maxRequestBodySize: MAX_BODY,
      keepAliveMs: heartbeatMs,
      onerror: (err) => log.debug(`mcp: ${err.message}`),
    },
  );
  // 2026-era clients subscribed with subscriptions/listen hear when script tools change.
  sup.onToolsChanged(() => mcp.notify.toolsChanged());
  const streams = new Set<() => void>();
  let closing = false;
  let stopRequested = false;

  const health = (): Health => ({
    ok: true,
    pid: Deno.pid,
    version: VERSION,
    started: opts.started,
    auto: opts.auto,
    sessions: activity.sessions().length,
    requests: activity.requests,
    calls_in_flight: sup.callsInFlight,
    databases: sup.pool.live().length,
    idle_ms: activity.idleMs(),
    idle_timeout_s: opts.idleTimeoutS ?? null,
  });

  const attach = (request: Request, session: string): Response => {
    const detach = activity.attach(session);
    let timer: ReturnType<typeof setInterval> | undefined;
    let ended = false;
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      streams.delete(end);
      detach();
      // The last attachment of a session gone: the proxy left (or died); its workers stay.
      if (!activity.isAttached(session)) sup.pool.detachSession(session);
      try {
        controller?.close();
      } catch {
        // Already closed or cancelled.
      }
    };
    streams.add(end);
    request.signal.addEventListener("abort", end, { once: true });
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        c.enqueue(encoder.encode(": attached\n\n"));
        // Writing to a dead peer fails and cancels the stream: that is how a killed proxy shows.
        timer = setInterval(() => {
          try {
            c.enqueue(encoder.encode(": keepalive\n\n"));
          } catch {
            end();
          }
        }, heartbeatMs);
      },
      cancel: end,
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-store" },
    });
  };

  const route = async (request: Request, session: string): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path === "/mcp") {
      if (closing) return jsonError(503, "remcp daemon is shutting down: retry in a moment");
      if (request.method !== "POST") return await mcp.fetch(request);
      // Read the body once: the fast path looks at it, the SDK gets it parsed.
      const bodyMs = opts.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
      const read = await readBody(request, MAX_BODY, bodyMs);
      if (read.kind === "tooLarge") {
        return jsonError(413, `Request body larger than ${MAX_BODY} bytes`);
      }
      if (read.kind === "slow") {
        return jsonError(408, `Request body not received within ${bodyMs / 1000} s`);
      }
      let body: unknown;
      try {
        body = JSON.parse(read.text);
      } catch {
        return await mcp.fetch(new Request(request.url, { ...copyOf(request), body: read.text }));
      }
      // The call sees this signal: the client's own, or the slow answer's stream cancelled.
      const abort = new AbortController();
      const call = new Request(request.url, {
        ...copyOf(request),
        signal: AbortSignal.any([request.signal, abort.signal]),
      });
      return await streamWhenSlow(
        fastToolCall(call, body, sup, session, heartbeatMs) ??
          mcp.fetch(call, { parsedBody: body }),
        { afterMs: opts.streamAfterMs ?? STREAM_AFTER_MS, heartbeatMs, abort },
      );
    }
    switch (`${request.method} ${path}`) {
      case "GET /remcp/health":
        return Response.json(health());
      case "GET /remcp/attach":
      case "POST /remcp/attach":
        if (closing) return jsonError(503, "remcp daemon is shutting down");
        return attach(request, session);
      case "POST /remcp/detach":
        sup.pool.detachSession(session);
        return Response.json({ detached: session });
      case "POST /remcp/stop":
        if (!stopRequested) {
          stopRequested = true;
          setTimeout(opts.onStop, 0);
        }
        return Response.json({ stopping: true, pid: Deno.pid });
    }
    return jsonError(404, `No such endpoint: ${request.method} ${path}`);
  };

  return {
    async fetch(request) {
      // A refused request is not activity: anyone on the machine can send one, and it must not
      // keep an auto-started daemon alive.
      const rejected = guard(request);
      if (rejected) {
        log.debug(`rejected ${request.method} ${new URL(request.url).pathname}`, {
          status: rejected.status,
        });
        return rejected;
      }
      const end = activity.beginRequest();
      try {
        const header = request.headers.get(SESSION_HEADER);
        if (header !== null && !SESSION_PATTERN.test(header)) {
          end();
          return jsonError(400, `${SESSION_HEADER} must match ${SESSION_PATTERN.source}`);
        }
        const response = await route(request, header ?? DEFAULT_SESSION);
        // An attach stream counts as an attachment, not as an open request.
        if (response.headers.get("content-type") === "text/event-stream" && isAttach(request)) {
          end();
          return response;
        }
        return untilBodyEnds(response, end);
      } catch (err) {
        end();
        log.error(`request failed: ${err instanceof Error ? err.stack : String(err)}`);
        return jsonError(500, `Internal error: ${err instanceof Error ? err.message : err}`);
      }
    },
    async close() {
      closing = true;
      for (const end of [...streams]) end();
      await mcp.close().catch(() => {});
    },
  };
}

/** The method and headers of `request`, to rebuild it around a body already read. */
function copyOf(request: Request): RequestInit {
  return { method: request.method, headers: request.headers, signal: request.signal };
}

function isAttach(request: Request): boolean {
  return new URL(request.url).pathname === "/remcp/attach";
}

function sessionOf(request: Request | undefined): string {
  const header = request?.headers.get(SESSION_HEADER);
  return header && SESSION_PATTERN.test(header) ? header : DEFAULT_SESSION;
}

function jsonError(status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }, { status });
}

/** The same response whose body calls `end` when it finishes, fails or is cancelled. */
function untilBodyEnds(response: Response, end: () => void): Response {
  if (response.body === null) {
    end();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        end();
        controller.error(err);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
