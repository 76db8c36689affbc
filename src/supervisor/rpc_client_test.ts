/**
 * The supervisor's JSON-RPC client against a scripted peer over in-memory streams: deadlines
 * (moved on by progress), cancellation, and answers handed over as
 * bytes without being parsed.
 */
import assert from "node:assert/strict";
import { LineTransport } from "../line_transport.ts";
import { RpcClient } from "./rpc_client.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A client whose peer is `answer`: it sees each message sent and may write lines back. */
async function withPeer(
  answer: (message: Record<string, unknown>, write: (line: string) => void) => void,
  body: (client: RpcClient, seen: Record<string, unknown>[]) => Promise<void>,
): Promise<void> {
  const toPeer = new TransformStream<Uint8Array, Uint8Array>();
  const fromPeer = new TransformStream<Uint8Array, Uint8Array>();
  const writer = fromPeer.writable.getWriter();
  const write = (line: string) => void writer.write(encoder.encode(line + "\n"));
  const seen: Record<string, unknown>[] = [];
  const peer = (async () => {
    let partial = "";
    for await (const chunk of toPeer.readable) {
      partial += decoder.decode(chunk, { stream: true });
      const lines = partial.split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        const m = JSON.parse(line) as Record<string, unknown>;
        seen.push(m);
        answer(m, write);
      }
    }
  })();
  const client = new RpcClient(
    new LineTransport({ readable: fromPeer.readable, writable: toPeer.writable }),
  );
  await client.connect(5_000);
  try {
    await body(client, seen);
  } finally {
    await client.close();
    await writer.close().catch(() => {});
    await peer;
  }
}

/** Answers initialize; everything else is left to `more`. */
function peer(more: (m: Record<string, unknown>, write: (line: string) => void) => void) {
  return (m: Record<string, unknown>, write: (line: string) => void) => {
    if (m.method === "initialize") {
      write(
        JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18" } }),
      );
    } else more(m, write);
  };
}

const cancels = (seen: Record<string, unknown>[]) =>
  seen.filter((m) => m.method === "notifications/cancelled")
    .map((m) => (m.params as { reason: string }).reason);

Deno.test("RpcClient times a silent request out, says so to the peer, and answers the rest", async () => {
  await withPeer(
    peer((m, write) => {
      if (m.method === "quick") write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} }));
    }),
    async (client, seen) => {
      // Its rejection is awaited from the start: on a busy machine it may come before "quick"'s
      // answer, and a rejection nobody handles yet would fail the test.
      const silent = assert.rejects(
        client.request("silent", {}, { timeoutMs: 50 }),
        /timed out after 50 ms/,
      );
      // Requests with later deadlines still get their answers while the earlier one waits.
      assert.deepEqual(await client.request("quick", {}, { timeoutMs: 10_000 }), {});
      await silent;
      assert.deepEqual(await client.request("quick", {}, { timeoutMs: 10_000 }), {});
      for (let i = 0; i < 100 && cancels(seen).length === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.deepEqual(cancels(seen), ["timeout"]);
    },
  );
});

Deno.test("RpcClient: progress moves a request's deadline on", async () => {
  await withPeer(
    peer((m, write) => {
      if (m.method !== "slow") return;
      const token = (m.params as { _meta: { progressToken: number } })._meta.progressToken;
      let n = 0;
      const beat = setInterval(() => {
        n++;
        write(JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: n },
        }));
        if (n === 30) {
          clearInterval(beat);
          write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { done: n } }));
        }
      }, 50);
    }),
    async (client) => {
      const seen: number[] = [];
      // 30 notes 50 ms apart take ~1.5 s, past the 1 s the request may stay silent; the gap
      // between two notes leaves a busy machine ~0.95 s of slack.
      const r = await client.request("slow", {}, {
        timeoutMs: 1_000,
        onprogress: (p) => seen.push(p.progress),
      });
      assert.deepEqual(r, { done: 30 });
      assert.deepEqual(seen, Array.from({ length: 30 }, (_, i) => i + 1));
    },
  );
});

Deno.test("RpcClient: an aborted request is refused and cancelled at the peer", async () => {
  await withPeer(peer(() => {}), async (client, seen) => {
    const ctl = new AbortController();
    const pending = client.request("never", {}, { timeoutMs: 10_000, signal: ctl.signal });
    ctl.abort();
    await assert.rejects(pending, /cancelled/);
    const before = new AbortController();
    before.abort();
    await assert.rejects(
      client.request("never", {}, { timeoutMs: 10_000, signal: before.signal }),
      /cancelled/,
    );
    for (let i = 0; i < 100 && cancels(seen).length < 1; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(cancels(seen).every((r) => r === "cancelled"));
    assert.ok(cancels(seen).length >= 1);
  });
});

Deno.test("RpcClient hands a compact answer's result over as bytes, and parses the rest", async () => {
  const result = {
    content: [{ type: "text", text: '{"a":"x\\"y"}' }],
    structuredContent: { a: 'x"y' },
  };
  await withPeer(
    peer((m, write) => {
      const compact = JSON.stringify({ jsonrpc: "2.0", id: m.id, result });
      // Another writer's spacing: valid JSON-RPC, not the compact form.
      write(
        m.method === "spaced"
          ? JSON.stringify({ jsonrpc: "2.0", id: m.id, result }, null, 1)
            .replaceAll("\n", " ")
          : compact,
      );
    }),
    async (client) => {
      const raw = (json: Uint8Array) => decoder.decode(json);
      assert.equal(
        await client.request("compact", {}, { timeoutMs: 5_000, raw }),
        JSON.stringify(result),
      );
      // Without the hook, or when it declines, or in another spacing: parsed as usual.
      assert.deepEqual(await client.request("compact", {}, { timeoutMs: 5_000 }), result);
      assert.deepEqual(
        await client.request("compact", {}, { timeoutMs: 5_000, raw: () => undefined }),
        result,
      );
      assert.deepEqual(await client.request("spaced", {}, { timeoutMs: 5_000, raw }), result);
    },
  );
});
