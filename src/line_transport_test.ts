import assert from "node:assert/strict";
import { LineTransport } from "./line_transport.ts";

function pair(maxLineBytes: number) {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const t = new LineTransport({
    readable: input.readable,
    writable: output.writable,
    maxLineBytes,
    answerBadInput: true,
  });
  const received: unknown[] = [];
  t.onmessage = (m) => received.push(m);
  const writer = input.writable.getWriter();
  const reader = output.readable.pipeThrough(new TextDecoderStream()).getReader();
  return { t, writer, reader, received };
}

Deno.test("LineTransport answers an oversize request with an error for its id and keeps going", async () => {
  const { t, writer, reader, received } = pair(1024);
  await t.start();
  const enc = new TextEncoder();
  const big = JSON.stringify({
    method: "tools/call",
    params: { x: "a".repeat(5000) },
    jsonrpc: "2.0",
    id: 41,
  });
  // Deliver in small chunks, as a pipe would.
  for (let i = 0; i < big.length; i += 300) await writer.write(enc.encode(big.slice(i, i + 300)));
  await writer.write(
    enc.encode("\n" + JSON.stringify({ jsonrpc: "2.0", id: 42, method: "ping" }) + "\n"),
  );
  const { value } = await reader.read();
  const answer = JSON.parse(value!.trim().split("\n")[0]!);
  assert.equal(answer.id, 41);
  assert.equal(answer.error.code, -32600);
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(received, [{ jsonrpc: "2.0", id: 42, method: "ping" }]);
  await writer.close();
  await t.ended;
  await reader.cancel();
});

Deno.test("LineTransport answers a non-JSON line with a parse error", async () => {
  const { t, writer, reader } = pair(1 << 20);
  await t.start();
  await writer.write(new TextEncoder().encode("{oops\n"));
  const { value } = await reader.read();
  assert.equal(JSON.parse(value!.trim()).error.code, -32700);
  await writer.close();
  await t.ended;
  await reader.cancel();
});
