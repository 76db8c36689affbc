import assert from "node:assert/strict";
import { JsonRpcGate } from "./jsonrpc_gate.ts";

const init = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t" } },
};

Deno.test("JsonRpcGate answers every invalid request exactly once, with its id when it has one", () => {
  const gate = new JsonRpcGate();
  assert.deepEqual(gate.check(init), { pass: true });
  const cases: [unknown, string | number | null][] = [
    [[{ jsonrpc: "2.0", id: 2, method: "ping" }], null],
    [42, null],
    [{ jsonrpc: "2.0", id: { x: 1 }, method: "ping" }, null],
    [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, null],
    [{ jsonrpc: "1.0", id: 3, method: "ping" }, 3],
    [{ id: 4, method: "ping" }, 4],
    [{ jsonrpc: "2.0", id: 5, method: 7 }, 5],
    [{ jsonrpc: "2.0", id: 6, method: "tools/list", params: "x" }, 6],
    [{ jsonrpc: "2.0", id: 7 }, 7],
    [{ jsonrpc: "2.0", id: null, method: "ping" }, null],
  ];
  for (const [message, id] of cases) {
    const v = gate.check(message);
    assert.equal(v.pass, false, JSON.stringify(message));
    assert.ok(!v.pass && v.reply, `a reply for ${JSON.stringify(message)}`);
    if (!v.pass) assert.equal(v.reply!.id, id, JSON.stringify(message));
  }
});

Deno.test("JsonRpcGate refuses 2025-era requests before initialize, not ping or 2026-era ones", () => {
  const gate = new JsonRpcGate();
  const early = gate.check({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  assert.equal(early.pass, false);
  assert.match(!early.pass ? early.reply!.message : "", /before initialize/);
  assert.equal(gate.check({ jsonrpc: "2.0", id: 2, method: "ping" }).pass, true);
  const modern = {
    jsonrpc: "2.0",
    id: 3,
    method: "tools/list",
    params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
  };
  assert.equal(gate.check(modern).pass, true);
  assert.equal(gate.check({ ...init, id: 4 }).pass, true);
  assert.equal(gate.check({ jsonrpc: "2.0", id: 5, method: "tools/list" }).pass, true);
});

Deno.test("JsonRpcGate refuses an id still in flight until it is answered or cancelled", () => {
  const gate = new JsonRpcGate();
  gate.check(init);
  gate.sent({ jsonrpc: "2.0", id: 1, result: {} });
  const call = { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "x" } };
  assert.equal(gate.check(call).pass, true);
  const dup = gate.check(call);
  assert.equal(dup.pass, false);
  assert.match(!dup.pass ? dup.reply!.message : "", /still in flight/);
  gate.sent({ jsonrpc: "2.0", id: "a", result: {} });
  assert.equal(gate.check(call).pass, true);
  gate.check({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } });
  assert.equal(gate.check(call).pass, true);
  // Notifications and responses to the server's own requests pass without replies.
  assert.deepEqual(gate.check({ jsonrpc: "2.0", method: "notifications/initialized" }), {
    pass: true,
  });
  assert.deepEqual(gate.check({ jsonrpc: "2.0", id: 99, result: {} }), { pass: true });
});
