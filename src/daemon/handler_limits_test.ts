import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { createSupervisor } from "../supervisor/create.ts";
import { Activity } from "./activity.ts";
import { createDaemonHandler } from "./handler.ts";

const TOKEN = "e".repeat(64);

function setup(now: () => number, bodyTimeoutMs?: number) {
  const log = createLogger("test", { level: "error", write() {} });
  const sup = createSupervisor(loadConfig({ REMCP_STATE_DIR: "/nonexistent-remcp" }), log);
  const activity = new Activity({ callsInFlight: () => sup.callsInFlight, now });
  const handler = createDaemonHandler({
    sup,
    activity,
    log,
    token: TOKEN,
    host: "127.0.0.1",
    started: new Date(0).toISOString(),
    auto: true,
    idleTimeoutS: 300,
    onStop: () => {},
    ...(bodyTimeoutMs ? { bodyTimeoutMs } : {}),
  });
  return { sup, activity, handler };
}

Deno.test("refused requests do not reset an auto-started daemon's idle clock", async () => {
  let now = 1_000_000;
  const { sup, activity, handler } = setup(() => now);
  try {
    now += 60_000;
    assert.equal(activity.idleMs(), 60_000);
    const refused = [
      new Request("http://127.0.0.1:7777/mcp", { method: "POST", headers: { host: "127.0.0.1" } }),
      new Request("http://127.0.0.1:7777/remcp/health", {
        headers: { host: "127.0.0.1", authorization: "Bearer wrong" },
      }),
      new Request("http://evil.example/remcp/health", {
        headers: { host: "evil.example", authorization: `Bearer ${TOKEN}` },
      }),
    ];
    for (const r of refused) {
      now += 1_000;
      const res = await handler.fetch(r);
      assert.ok(res.status === 401 || res.status === 403, `status ${res.status}`);
      await res.body?.cancel();
    }
    assert.equal(activity.idleMs(), 63_000, "still idle since before the refused requests");
    // An authenticated request is activity.
    const health = await handler.fetch(
      new Request("http://127.0.0.1:7777/remcp/health", {
        headers: { host: "127.0.0.1:7777", authorization: `Bearer ${TOKEN}` },
      }),
    );
    assert.equal(health.status, 200);
    await health.text();
    assert.equal(activity.idleMs(), 0);
  } finally {
    await handler.close();
    await sup.shutdown();
  }
});

Deno.test("an authenticated body that trickles in is cut off with 408", async () => {
  const { sup, activity, handler } = setup(Date.now, 300);
  try {
    // One byte, then nothing: the connection stays open and the body never ends.
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("{"));
      },
    });
    // Without the deadline the handler waits for ever; this bound turns that into a failure.
    let bound: ReturnType<typeof setTimeout> | undefined;
    const never = new Promise<never>((_, reject) => {
      bound = setTimeout(() => reject(new Error("the slow body was never cut off")), 30_000);
    });
    const res = await Promise.race([
      never,
      handler.fetch(
        new Request("http://127.0.0.1:7777/mcp", {
          method: "POST",
          body,
          headers: {
            host: "127.0.0.1:7777",
            authorization: `Bearer ${TOKEN}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        }),
      ),
    ]);
    clearTimeout(bound);
    assert.equal(res.status, 408);
    assert.match(await res.text(), /not received within 0.3 s/);
    assert.equal(activity.requests, 0, "the request no longer counts as open");
  } finally {
    await handler.close();
    await sup.shutdown();
  }
});
