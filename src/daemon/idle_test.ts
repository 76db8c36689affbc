import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { createSupervisor } from "../supervisor/create.ts";
import { Activity } from "./activity.ts";
import { createDaemonHandler } from "./handler.ts";

const TOKEN = "e".repeat(64);

Deno.test("refused requests do not reset an auto-started daemon's idle clock", async () => {
  const log = createLogger("test", { level: "error", write() {} });
  const sup = createSupervisor(loadConfig({ REMCP_STATE_DIR: "/nonexistent-remcp" }), log);
  let now = 1_000_000;
  const activity = new Activity({ callsInFlight: () => sup.callsInFlight, now: () => now });
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
  });
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
