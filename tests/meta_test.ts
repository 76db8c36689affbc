/** End-to-end: search_tools, get_schema, call and batch through the real server. */
import assert from "node:assert/strict";
import { fails, fixture, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test("search_tools finds hidden tools with TypeScript signatures", e2e, async () => {
  const h = await startRemcp();
  try {
    const r = await ok(h.client, "search_tools", { pattern: "segment" });
    const items = r.items as { name: string; signature: string; listed: boolean }[];
    const seg = items.find((i) => i.name === "list_segments");
    assert.ok(seg, "list_segments found");
    assert.equal(seg.listed, false);
    assert.match(seg.signature, /^list_segments\(\{.*database\?: string/);
    const full = await ok(h.client, "search_tools", { pattern: "^list_segments$", detail: "full" });
    const f = (full.items as { signature: string; description: string }[])[0]!;
    assert.match(f.signature, /^invoke\("list_segments", args: .*\): Promise<\{items: /);
    assert.ok(f.description.length > 20);
    const bad = await fails(h.client, "search_tools", { pattern: "(?=a)" });
    assert.equal(bad.error_type, "InvalidArgument");
  } finally {
    await h.close();
  }
});

Deno.test("get_schema returns JSON Schemas and the execute declaration", e2e, async () => {
  const h = await startRemcp();
  try {
    const r = await ok(h.client, "get_schema", { names: ["read_bytes", "open_database"] });
    const [rb, od] = r.items as {
      name: string;
      input_schema: { properties: Record<string, unknown>; required: string[] };
      typescript: string;
    }[];
    assert.ok(rb!.input_schema.properties.address);
    assert.ok(rb!.input_schema.properties.database, "routed tools gain database");
    assert.deepEqual(rb!.input_schema.required.sort(), ["address", "size"]);
    assert.match(rb!.typescript, /invoke\("read_bytes", args: \{address: string \| number/);
    assert.ok(!od!.input_schema.properties.database);
    const missing = await fails(h.client, "get_schema", { names: ["nope"] });
    assert.equal(missing.error_type, "NotFound");
  } finally {
    await h.close();
  }
});

Deno.test("call runs hidden tools and refuses management and meta tools", e2e, async () => {
  const h = await startRemcp();
  try {
    await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
    await ok(h.client, "wait_for_analysis");
    const info = await ok(h.client, "call", { name: "get_database_info", arguments: {} });
    assert.equal(info.format, "elf");
    const mgmt = await fails(h.client, "call", { name: "close_database", arguments: {} });
    assert.equal(mgmt.error_type, "InvalidArgument");
    assert.match(mgmt.error, /cannot be called through call/);
    const meta = await fails(h.client, "call", { name: "batch", arguments: { calls: [] } });
    assert.equal(meta.error_type, "InvalidArgument");
    const unknown = await fails(h.client, "call", { name: "no_such_tool" });
    assert.equal(unknown.error_type, "InvalidArgument");
    // The inner tool's own errors come back unchanged.
    const inner = await fails(h.client, "call", {
      name: "get_database_info",
      arguments: { database: "ghost" },
    });
    assert.equal(inner.error_type, "NoDatabase");
  } finally {
    await h.close();
  }
});

Deno.test("batch runs calls in order with per-item results, errors and progress", e2e, async () => {
  const h = await startRemcp();
  try {
    await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
    await ok(h.client, "wait_for_analysis");
    const before = h.progress.length;
    const r = await h.client.callTool({
      name: "batch",
      arguments: {
        calls: [
          { tool: "get_database_info" },
          { tool: "get_database_info", arguments: { database: "ghost" } },
          { tool: "open_database", arguments: { path: "/bin/ls" } },
          { tool: "get_database_info" },
        ],
      },
    }, { onprogress: () => {} });
    const sc = r.structuredContent as {
      results: { index: number; result?: unknown; error?: { error_type: string } }[];
      completed: number;
      failed: number;
    };
    assert.deepEqual(sc.results.map((x) => x.index), [0, 1, 2, 3]);
    assert.ok(sc.results[0]!.result);
    assert.equal(sc.results[1]!.error?.error_type, "NoDatabase");
    assert.equal(sc.results[2]!.error?.error_type, "InvalidArgument");
    assert.equal(sc.completed, 2);
    assert.equal(sc.failed, 2);
    // One note before each item and one when done, all before the result (see Harness.progress).
    assert.deepEqual(h.progress.slice(before).map((p) => p.progress), [0, 1, 2, 3, 4]);
    const stop = await ok(h.client, "batch", {
      calls: [{ tool: "get_database_info", arguments: { database: "ghost" } }, {
        tool: "get_database_info",
      }],
      stop_on_error: true,
    });
    assert.equal((stop.results as unknown[]).length, 1);
    assert.equal(stop.stopped, true);
    const tooMany = await fails(h.client, "batch", {
      calls: Array.from({ length: 101 }, () => ({ tool: "get_database_info" })),
    });
    assert.equal(tooMany.error_type, "InvalidArgument");
  } finally {
    await h.close();
  }
});

// Patterns that take exponential time on a backtracking engine: the supervisor (search_tools) and
// a worker (a listing's filter) each run them on their only thread, so one of these used to freeze
// every session. The SDK's request timeout bounds this test if that comes back.
const HOSTILE = ["([\\w ]|[\\w ])+#", "(a|a)+$", "((a+))+$"];

Deno.test(
  "hostile patterns answer at once in search_tools and a worker's filter",
  e2e,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "remcp-pattern-" });
    const h = await startRemcp();
    try {
      for (const pattern of HOSTILE) {
        await ok(h.client, "search_tools", { pattern });
      }
      // A fixture whose longest data string becomes "aaa…a!\n": 30 repetitions are enough for 2^30
      // steps of backtracking.
      const bytes = await Deno.readFile(fixture("elf_x86_64_gcc_O2"));
      const was = "dispatch=%d callback=%d sort=%d";
      const at = new TextDecoder("latin1").decode(bytes).indexOf(was);
      assert.ok(at > 0, "fixture string found");
      bytes.set(new TextEncoder().encode("a".repeat(was.length - 1) + "!"), at);
      const path = `${dir}/long_string`;
      await Deno.writeFile(path, bytes);
      const o = await ok(h.client, "open_database", { path });
      await ok(h.client, "wait_for_analysis", { database: o.database });
      for (const filter of HOSTILE) {
        const r = await ok(h.client, "list_strings", { database: o.database, filter });
        assert.equal(r.total, 0, filter);
      }
      const hit = await ok(h.client, "list_strings", {
        database: o.database,
        filter: "^(a|a)+!\\n$",
      });
      assert.equal((hit.items as { text: string }[])[0]?.text, "a".repeat(was.length - 1) + "!\n");
      assert.equal(hit.total, 1);
      const back = await fails(h.client, "list_strings", {
        database: o.database,
        filter: "(a)\\1",
      });
      assert.equal(back.error_type, "InvalidArgument");
      assert.match(back.error, /backreferences/);
    } finally {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
