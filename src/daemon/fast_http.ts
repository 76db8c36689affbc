/**
 * The HTTP twin of the stdio fast path (`src/fast_calls.ts`): a 2025-era `tools/call` POST is
 * answered straight from the supervisor, without building a per-request SDK server and
 * transport. On that era a tools/call result is sent exactly as remcp builds it, so the answer is
 * the same; everything else (handshakes, listings, unknown tools, malformed requests, 2026-era
 * requests with their header checks) goes to the SDK handler.
 */
import {
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import type { Host } from "../supervisor/host.ts";
import { progressNote } from "../protocol/progress.ts";
import { responseLine } from "../protocol/wire_result.ts";

const encoder = new TextEncoder();

/**
 * Answers `body` (the parsed POST body of `request`) when it is a 2025-era call of a known tool;
 * undefined leaves it to the SDK.
 */
export function fastToolCall(
  request: Request,
  body: unknown,
  sup: Host,
  session: string,
  heartbeatMs: number,
): Promise<Response> | undefined {
  if (!isPlainObject(body) || body.method !== "tools/call" || body.jsonrpc !== "2.0") return;
  const id = body.id;
  if (typeof id !== "string" && typeof id !== "number") return;
  const params = body.params;
  if (!isPlainObject(params) || typeof params.name !== "string") return;
  const meta = params._meta;
  if (meta !== undefined && (!isPlainObject(meta) || PROTOCOL_VERSION_META_KEY in meta)) return;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    return;
  }
  // The SDK answers what the binding forbids (406, 415) with its own words.
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return;
  if (!(request.headers.get("content-type") ?? "").includes("application/json")) return;
  const name = params.name;
  if (!sup.find(name)) return;

  const ctl = new AbortController();
  request.signal.addEventListener("abort", () => ctl.abort(), { once: true });
  const progressToken = isPlainObject(meta) ? meta.progressToken : undefined;
  if (typeof progressToken !== "string" && typeof progressToken !== "number") {
    return sup.callToolWire(name, params.arguments, {
      session,
      signal: ctl.signal,
      via: "client",
      progress() {},
    }).then((result) =>
      // A worker's answer goes out as the text it came in.
      new Response(responseLine(id, result), { headers: { "content-type": "application/json" } })
    );
  }
  // With a progress token the answer streams: progress notes as they come, then the result;
  // heartbeats between them, so that a quiet call's connection never looks idle.
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  let beat: ReturnType<typeof setInterval> | undefined;
  const write = (frame: string) => {
    if (!open) return;
    try {
      stream?.enqueue(encoder.encode(frame));
    } catch {
      open = false;
      clearInterval(beat);
    }
  };
  const event = (message: unknown) => write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  return Promise.resolve(
    new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          stream = controller;
          beat = setInterval(() => write(": keepalive\n\n"), heartbeatMs);
          const result = await sup.callToolWire(name, params.arguments, {
            session,
            signal: ctl.signal,
            via: "client",
            progress(done, total, message) {
              event({ jsonrpc: "2.0", ...progressNote(progressToken, done, total, message) });
            },
          });
          clearInterval(beat);
          write(`event: message\ndata: ${responseLine(id, result)}\n\n`);
          if (open) controller.close();
          open = false;
        },
        cancel() {
          open = false;
          clearInterval(beat);
          ctl.abort();
        },
      }),
      { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } },
    ),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
