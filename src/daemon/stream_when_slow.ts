/**
 * Turns a slow HTTP answer into an event stream, so that a client who leaves is noticed.
 *
 * While a handler has not returned its Response, Deno's server does not see the peer go away:
 * measured on Deno 2.9, a client that aborts a pending POST leaves its FIN unread and
 * `request.signal` never fires, so a 2026-era `execute` of `for (;;) {}` ran on to its own
 * limit. Once the response is streaming, a departed peer cancels the body (at once, or at the
 * next heartbeat whose write fails) — and that cancellation aborts the call.
 */

/** When to switch to a stream, and what to abort when the client leaves. */
export interface StreamWhenSlowOptions {
  /** How long an answer may take before the response becomes an event stream. */
  afterMs: number;
  /** Interval of the comment frames that keep a waiting stream written to. */
  heartbeatMs: number;
  /** Aborted when the client cancels the stream. */
  abort: AbortController;
}

const encoder = new TextEncoder();

/**
 * `pending` itself when it settles within `afterMs`; otherwise an event stream that carries
 * heartbeats until `pending` settles, then its answer (an SSE body as it is, a JSON body as one
 * `message` event).
 */
export async function streamWhenSlow(
  pending: Promise<Response>,
  opts: StreamWhenSlowOptions,
): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), opts.afterMs);
  });
  const first = await Promise.race([pending, late]).finally(() => clearTimeout(timer));
  if (first !== undefined) return first;

  let beat: ReturnType<typeof setInterval> | undefined;
  let inner: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;
  const relay = async (c: ReadableStreamDefaultController<Uint8Array>) => {
    try {
      const response = await pending;
      clearInterval(beat);
      if (cancelled) {
        await response.body?.cancel().catch(() => {});
        return;
      }
      const type = response.headers.get("content-type") ?? "";
      if (type.includes("text/event-stream") && response.body !== null) {
        // The inner stream has its own heartbeats; its chunks are whole frames.
        inner = response.body.getReader();
        for (;;) {
          const { done, value } = await inner.read();
          if (done) break;
          c.enqueue(value);
        }
      } else {
        const text = await response.text();
        // One line per data field: re-serialise in case the body was pretty-printed.
        if (text.trim() !== "") {
          c.enqueue(
            encoder.encode(`event: message\ndata: ${JSON.stringify(JSON.parse(text))}\n\n`),
          );
        }
      }
      c.close();
    } catch (err) {
      clearInterval(beat);
      if (cancelled) return;
      try {
        c.error(err);
      } catch {
        // Already closed.
      }
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      // Sent at once: the headers and this frame go out, so a gone peer shows up now.
      c.enqueue(encoder.encode(": working\n\n"));
      beat = setInterval(() => {
        try {
          c.enqueue(encoder.encode(": keepalive\n\n"));
        } catch {
          clearInterval(beat);
        }
      }, opts.heartbeatMs);
      void relay(c);
    },
    async cancel(reason) {
      cancelled = true;
      clearInterval(beat);
      opts.abort.abort(reason);
      await inner?.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
