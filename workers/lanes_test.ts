import assert from "node:assert/strict";
import { join } from "node:path";
import { createLogger, stderrSink } from "../src/log.ts";
import { readLines } from "../src/sandbox/lines.ts";
import { okResult, type ToolResult } from "../src/protocol/results.ts";
import type { FastCallContext } from "../src/fast_calls.ts";
import { WorkerLanes } from "./lanes.ts";

const unix = { ignore: Deno.build.os === "windows" };
const log = createLogger("test", stderrSink("error", undefined, "t"));

/** A lane socket (the sandbox's side), a worker's lanes opened to it, and the accepted lane. */
async function withLane(
  run: (name: string, ctx: FastCallContext) => Promise<ToolResult>,
  body: (lane: {
    call(id: number, name: string): Promise<void>;
    next(): Promise<Record<string, unknown>>;
    conn: Deno.Conn;
    lanes: WorkerLanes;
  }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-wlanes-" });
  const path = join(dir, "lanes.sock");
  const listener = Deno.listen({ transport: "unix", path });
  const lanes = new WorkerLanes((name, _args, ctx) => run(name, ctx), log, 128 * 1024);
  try {
    const [conn] = await Promise.all([
      listener.accept(),
      lanes.open({ path, token: "tok", tools: ["granted"] }),
    ]);
    const lines = readLines(conn);
    assert.deepEqual(JSON.parse((await lines.next()).value as string), { lane: "tok" });
    await body({
      conn,
      lanes,
      call: async (id, name) => {
        const line = { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } };
        await conn.write(new TextEncoder().encode(JSON.stringify(line) + "\n"));
      },
      next: async () => JSON.parse((await lines.next()).value as string),
    });
    try {
      conn.close();
    } catch {
      // The test closed it.
    }
  } finally {
    await lanes.close();
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a worker's lane runs the granted tools and refuses every other", unix, async () => {
  await withLane((name) => Promise.resolve(okResult({ ran: name })), async (lane) => {
    await lane.call(1, "granted");
    const ok = await lane.next();
    assert.equal(ok.id, 1);
    // A success carries only the value's JSON, unescaped: the guest needs nothing else.
    assert.deepEqual(ok.result, { value: { ran: "granted" } });
    await lane.call(2, "_status");
    const refused = await lane.next();
    assert.equal((refused.result as ToolResult).isError, true);
    assert.match((refused.result as ToolResult).content[0]!.text, /not granted on this lane/);
  });
});

Deno.test("a lane that closes aborts its call in flight", unix, async () => {
  const aborted = Promise.withResolvers<void>();
  await withLane((_name, ctx) => {
    ctx.signal.addEventListener("abort", () => aborted.resolve());
    return new Promise<ToolResult>(() => {});
  }, async (lane) => {
    await lane.call(1, "granted");
    lane.conn.close();
    await aborted.promise;
  });
});

Deno.test("a stopping worker opens no lane", unix, async () => {
  const lanes = new WorkerLanes(() => undefined, log, 1024);
  lanes.stop();
  await assert.rejects(lanes.open({ path: "/nonexistent", token: "t", tools: [] }), /stopping/);
  await assert.rejects(lanes.open({ path: 1 }), /needs/);
});
