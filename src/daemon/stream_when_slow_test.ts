import assert from "node:assert/strict";
import { streamWhenSlow } from "./stream_when_slow.ts";

const message = { jsonrpc: "2.0", id: 7, result: { ok: true } };

Deno.test("streamWhenSlow() passes a quick answer through unchanged", async () => {
  const quick = Response.json(message);
  const abort = new AbortController();
  const r = await streamWhenSlow(Promise.resolve(quick), {
    afterMs: 60_000,
    heartbeatMs: 1,
    abort,
  });
  assert.equal(r, quick);
});

Deno.test("streamWhenSlow() sends a slow JSON answer as one event after heartbeats", async () => {
  const answer = Promise.withResolvers<Response>();
  const abort = new AbortController();
  const r = await streamWhenSlow(answer.promise, { afterMs: 1, heartbeatMs: 1, abort });
  assert.equal(r.headers.get("content-type"), "text/event-stream");
  const reader = r.body!.getReader();
  const dec = new TextDecoder();
  assert.equal(dec.decode((await reader.read()).value), ": working\n\n");
  assert.equal(dec.decode((await reader.read()).value), ": keepalive\n\n");
  answer.resolve(
    new Response(JSON.stringify(message, null, 2), {
      headers: { "content-type": "application/json" },
    }),
  );
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += dec.decode(value);
  }
  assert.ok(rest.endsWith(`event: message\ndata: ${JSON.stringify(message)}\n\n`), rest);
  assert.equal(abort.signal.aborted, false);
});

Deno.test("streamWhenSlow() relays a slow SSE answer and aborts when cancelled", async () => {
  const answer = Promise.withResolvers<Response>();
  const abort = new AbortController();
  const r = await streamWhenSlow(answer.promise, { afterMs: 1, heartbeatMs: 60_000, abort });
  const reader = r.body!.getReader();
  await reader.read();
  let innerCancelled = false;
  answer.resolve(
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode("event: message\ndata: {}\n\n"));
        },
        cancel() {
          innerCancelled = true;
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ),
  );
  assert.equal(
    new TextDecoder().decode((await reader.read()).value),
    "event: message\ndata: {}\n\n",
  );
  await reader.cancel("gone");
  assert.equal(abort.signal.aborted, true);
  assert.equal(innerCancelled, true);
});
