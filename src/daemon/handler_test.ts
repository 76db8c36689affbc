import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { createSupervisor } from "../supervisor/create.ts";
import { Activity } from "./activity.ts";
import { createDaemonHandler } from "./handler.ts";

const TOKEN = "d".repeat(64);
const BASE = "http://127.0.0.1:7777";

function setup(opts: { now?: () => number; bodyTimeoutMs?: number } = {}) {
  const log = createLogger("test", { level: "error", write() {} });
  const sup = createSupervisor(loadConfig({ REMCP_STATE_DIR: "/nonexistent-remcp" }), log);
  const activity = new Activity({
    callsInFlight: () => sup.callsInFlight,
    ...(opts.now ? { now: opts.now } : {}),
  });
  let stops = 0;
  const handler = createDaemonHandler({
    sup,
    activity,
    log,
    token: TOKEN,
    host: "127.0.0.1",
    started: new Date(0).toISOString(),
    auto: true,
    idleTimeoutS: 300,
    onStop: () => stops++,
    ...(opts.bodyTimeoutMs ? { bodyTimeoutMs: opts.bodyTimeoutMs } : {}),
    // A cold first call may take seconds on a busy machine; these tests look at plain answers.
    streamAfterMs: 600_000,
  });
  return { sup, activity, handler, stops: () => stops };
}

function request(path: string, init: RequestInit & { session?: string } = {}): Request {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${TOKEN}`);
  headers.set("host", "127.0.0.1:7777");
  if (init.session) headers.set("x-remcp-session", init.session);
  return new Request(`${BASE}${path}`, { ...init, headers });
}

function mcpPost(message: unknown, session?: string): Request {
  return request("/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(message),
    ...(session ? { session } : {}),
  });
}

/** The JSON-RPC messages in a JSON or SSE response body. */
async function messages(r: Response): Promise<Record<string, unknown>[]> {
  const text = await r.text();
  if ((r.headers.get("content-type") ?? "").includes("application/json")) return [JSON.parse(text)];
  return text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
}

Deno.test("daemon handler checks Host, then the token, and 404s unknown paths", async () => {
  const { handler, sup } = setup();
  try {
    const noHost = await handler.fetch(new Request(`${BASE}/remcp/health`));
    assert.equal(noHost.status, 403, "a request without Host is refused");
    await noHost.body?.cancel();
    const anonymous = await handler.fetch(
      new Request(`${BASE}/remcp/health`, { headers: { host: "localhost:7777" } }),
    );
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const health = await handler.fetch(request("/remcp/health"));
    const h = await health.json();
    assert.equal(h.pid, Deno.pid);
    assert.equal(h.auto, true);
    const missing = await handler.fetch(request("/nope"));
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const badSession = await handler.fetch(request("/remcp/health", { session: "a b" }));
    assert.equal(badSession.status, 400);
    await badSession.body?.cancel();
  } finally {
    await handler.close();
    await sup.shutdown();
  }
});

Deno.test("daemon handler serves initialize, the SDK path and the fast tools/call path", async () => {
  const { handler, sup, activity } = setup();
  try {
    const init = await messages(
      await handler.fetch(mcpPost({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "0" },
        },
      })),
    );
    assert.equal((init[0]!.result as { protocolVersion: string }).protocolVersion, "2025-06-18");
    const list = await messages(
      await handler.fetch(mcpPost({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} })),
    );
    const tools = (list[0]!.result as { tools: { name: string }[] }).tools;
    assert.ok(tools.some((t) => t.name === "list_backends"));
    // Fast path: answered as JSON straight from the supervisor.
    const fast = await handler.fetch(mcpPost({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "list_backends", arguments: {} },
    }));
    assert.equal(fast.headers.get("content-type"), "application/json");
    const [answer] = await messages(fast);
    assert.equal(answer!.id, 3);
    const sc = (answer!.result as { structuredContent: { default: string } }).structuredContent;
    assert.equal(sc.default, "embedded");
    // Unknown tools still get the SDK's protocol error.
    const [unknown] = await messages(
      await handler.fetch(mcpPost({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "no_such_tool", arguments: {} },
      })),
    );
    assert.ok(unknown!.error);
    // Malformed JSON gets a JSON-RPC error, not a dropped connection.
    const bad = await handler.fetch(request("/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{ nope",
    }));
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /Parse error/i);
    assert.equal(activity.requests, 0, "every response body ended");
  } finally {
    await handler.close();
    await sup.shutdown();
  }
});

Deno.test("an attach stream keeps its session attached until it is cancelled", async () => {
  const { handler, sup, activity } = setup();
  try {
    const r = await handler.fetch(request("/remcp/attach", { session: "proxy-x" }));
    assert.equal(r.headers.get("content-type"), "text/event-stream");
    assert.deepEqual(activity.sessions(), ["proxy-x"]);
    assert.equal(activity.requests, 0, "an attachment is not an open request");
    assert.equal(activity.idleMs(), 0);
    await r.body!.cancel();
    assert.deepEqual(activity.sessions(), []);
  } finally {
    await handler.close();
    await sup.shutdown();
  }
});

Deno.test("stop calls onStop once; after close() MCP requests get 503", async () => {
  const { handler, sup, stops } = setup();
  try {
    for (let i = 0; i < 2; i++) {
      const r = await handler.fetch(request("/remcp/stop", { method: "POST" }));
      assert.equal((await r.json()).stopping, true);
    }
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(stops(), 1);
    const attached = await handler.fetch(request("/remcp/attach", { session: "p" }));
    await handler.close();
    // close() ended the attach stream.
    assert.equal(await attached.text(), ": attached\n\n");
    const late = await handler.fetch(mcpPost({ jsonrpc: "2.0", id: 1, method: "ping" }));
    assert.equal(late.status, 503);
    await late.body?.cancel();
  } finally {
    await sup.shutdown();
  }
});

Deno.test("refused requests do not reset an auto-started daemon's idle clock", async () => {
  let now = 1_000_000;
  const { sup, activity, handler } = setup({ now: () => now });
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
  const { sup, activity, handler } = setup({ bodyTimeoutMs: 300 });
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
