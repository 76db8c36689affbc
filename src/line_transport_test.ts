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

Deno.test({
  name: "LineTransport over a Unix socket: lines split across reads, many in one, both ways",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "remcp-lt-" });
    const listener = Deno.listen({ transport: "unix", path: `${dir}/s` });
    try {
      const [server, peer] = await Promise.all([
        listener.accept(),
        Deno.connect({ transport: "unix", path: `${dir}/s` }),
      ]);
      const t = new LineTransport({ conn: server, answerBadInput: true });
      const received: unknown[] = [];
      const got = Promise.withResolvers<void>();
      const messages = Array.from({ length: 40 }, (_, i) => ({
        jsonrpc: "2.0" as const,
        id: i,
        method: "ping",
        // Long enough that lines straddle the transport's read buffer, and differ in every byte
        // that a reused buffer would overwrite.
        params: { pad: String(i % 10).repeat(9000 + i * 31) },
      }));
      t.onmessage = (m) => {
        received.push(m);
        if (received.length === messages.length) got.resolve();
      };
      await t.start();
      const text = new TextEncoder().encode(messages.map((m) => JSON.stringify(m) + "\n").join(""));
      // Uneven pieces, each waited for, so the reads see line ends anywhere in a chunk.
      for (let at = 0, step = 1; at < text.length; at += step, step = (step * 7 + 13) % 70_000) {
        await peer.write(text.subarray(at, at + step));
        if (step % 3 === 0) await new Promise((r) => setTimeout(r, 0));
      }
      await got.promise;
      assert.deepEqual(received, messages);
      // Answers go out whole, and close() half-closes so the peer reads to its end.
      await t.send({ jsonrpc: "2.0", id: 1, result: {} });
      await t.close();
      const back = new TextDecoder().decode(
        await new Response(peer.readable).arrayBuffer(),
      );
      assert.deepEqual(JSON.parse(back), { jsonrpc: "2.0", id: 1, result: {} });
      await t.ended;
    } finally {
      listener.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
