import assert from "node:assert/strict";
import { join } from "node:path";
import { LaneHub } from "./lane_hub.ts";
import { readLines } from "./lines.ts";
import type { InvokeOutcome } from "./engine_types.ts";

const unix = { ignore: Deno.build.os === "windows" };

/** A hub on a socket of a fresh folder, and a way to connect to it as a worker would. */
async function withHub(
  body: (hub: LaneHub, connect: (hello: string) => Promise<Deno.Conn>) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-lanes-" });
  const listener = Deno.listen({ transport: "unix", path: join(dir, "lanes.sock") });
  const hub = new LaneHub(listener);
  const conns: Deno.Conn[] = [];
  try {
    await body(hub, async (hello) => {
      const conn = await Deno.connect({ transport: "unix", path: join(dir, "lanes.sock") });
      conns.push(conn);
      await conn.write(new TextEncoder().encode(hello));
      return conn;
    });
  } finally {
    hub.end();
    listener.close();
    for (const c of conns) {
      try {
        c.close();
      } catch {
        // Closed by the hub.
      }
    }
    await Deno.remove(dir, { recursive: true });
  }
}

/** Whether the hub closed `conn` (its read ends). */
async function closedByHub(conn: Deno.Conn): Promise<boolean> {
  try {
    return await conn.read(new Uint8Array(16)) === null;
  } catch {
    return true;
  }
}

const grant = (token: string, runId = "run") => ({
  type: "lane" as const,
  runId,
  token,
  database: "db",
  tools: ["list_functions"],
  bare: true,
});

const viaParent = () => Promise.resolve<InvokeOutcome>({ ok: true, valueJson: '"parent"' });

Deno.test("LaneHub closes a connection whose first line is not a token", unix, async () => {
  await withHub(async (hub, connect) => {
    hub.begin("run");
    assert.ok(await closedByHub(await connect("GET / HTTP/1.1\r\n\r\n")));
    assert.ok(await closedByHub(await connect(`{"lane":"t"}\nmore`)));
    assert.ok(await closedByHub(await connect("x".repeat(1000))));
  });
});

Deno.test(
  "LaneHub keeps a worker that connects before its run starts, until that run ends",
  unix,
  async () => {
    await withHub(async (hub, connect) => {
      // A lane granted in the run message is opened as the run is sent: its worker may connect
      // before the sandbox reads the run. A bad hello made after it is closed once the hub read
      // both (connections are read in order), so the early one has most likely been parked.
      const early = await connect(`{"lane":"early"}\n`);
      const stranger = await connect(`{"lane":"nobody"}\n`);
      assert.ok(await closedByHub(await connect("not a token\n")));
      hub.begin("run");
      hub.grant(grant("early"));
      const answer = hub.invoke("list_functions", "{}", viaParent, () => {});
      assert.ok(answer, "the lane granted at the run's start carries the invoke");
      const request = JSON.parse((await readLines(early).next()).value as string);
      assert.equal(request.params.name, "list_functions");
      hub.end();
      assert.ok(await closedByHub(stranger), "a token no run announced is dropped with the run");
      assert.ok(await closedByHub(early));
    });
  },
);

Deno.test(
  "LaneHub sends invokes only over a connection with an announced token, and closes the others with the run",
  unix,
  async () => {
    await withHub(async (hub, connect) => {
      hub.begin("run");
      const stranger = await connect(`{"lane":"guessed"}\n`);
      hub.grant(grant("other-run", "old"));
      hub.grant(grant("right"));
      const worker = await connect(`{"lane":"right"}\n`);
      const answer = hub.invoke("list_functions", '{"limit":1}', viaParent, () => {});
      assert.ok(answer, "the granted lane carries the invoke");
      const lines = readLines(worker);
      const request = JSON.parse((await lines.next()).value as string);
      assert.deepEqual(request.params, { name: "list_functions", arguments: { limit: 1 } });
      const result = { content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } };
      await worker.write(
        new TextEncoder().encode(
          JSON.stringify({ jsonrpc: "2.0", id: request.id, result }) + "\n",
        ),
      );
      assert.deepEqual(await answer, { ok: true, valueJson: '{"n":1}' });
      // Not granted there, or another database: the parent's path.
      assert.equal(hub.invoke("rename", "{}", viaParent, () => {}), undefined);
      assert.equal(
        hub.invoke("list_functions", '{"database":"x"}', viaParent, () => {}),
        undefined,
      );
      hub.end();
      assert.ok(await closedByHub(stranger), "a connection with a token nobody announced");
      assert.ok(await closedByHub(worker), "the run's lane ends with it");
    });
  },
);

Deno.test("LaneHub asks the parent for invokes its lane cannot answer", unix, async () => {
  await withHub(async (hub, connect) => {
    hub.begin("run");
    hub.grant(grant("t"));
    const worker = await connect(`{"lane":"t"}\n`);
    let onLane = 0;
    const answer = hub.invoke("list_functions", "{}", viaParent, () => onLane++);
    await readLines(worker).next();
    worker.close();
    assert.deepEqual(await answer, { ok: true, valueJson: '"parent"' });
    assert.equal(onLane, 0);
  });
});
