/**
 * The dispatcher in-process: a real Supervisor whose workers run in this process through an
 * injected spawner (the real worker code and embedded engine over in-memory pipes), so these
 * tests start no process and check the dispatcher's decisions directly.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../config.ts";
import { createLogger, stderrSink } from "../log.ts";
import type { ToolResult } from "../protocol/results.ts";
import { WireResult } from "../protocol/wire_result.ts";
import { serveWorker } from "../../workers/worker_main.ts";
import { createSupervisor } from "./create.ts";
import type { CallContext } from "./host.ts";
import type { Spawner } from "./worker_process.ts";
import type { Supervisor } from "./supervisor.ts";

const ELF = fileURLToPath(new URL("../../tests/fixtures/bin/elf_x86_64_gcc_O2", import.meta.url));
const sanitize = { sanitizeOps: false, sanitizeResources: false };

/** Runs each worker in this process over in-memory streams. */
const inProcess: Spawner = (args, env) => {
  const toWorker = new TransformStream<Uint8Array, Uint8Array>();
  const fromWorker = new TransformStream<Uint8Array, Uint8Array>();
  const stderr = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const stop = new AbortController();
  const status = serveWorker(
    args,
    () => ({ readable: toWorker.readable, writable: fromWorker.writable }),
    env,
    stop.signal,
  ).then((code): Deno.CommandStatus => ({ success: code === 0, code, signal: null }));
  return {
    pid: 0,
    stdin: toWorker.writable,
    stdout: fromWorker.readable,
    stderr,
    status,
    kill: () => {
      stop.abort();
      void toWorker.writable.close().catch(() => {});
    },
  };
};

async function withSupervisor(
  env: Record<string, string>,
  body: (
    sup: Supervisor,
    call: (name: string, args?: unknown) => Promise<ToolResult>,
  ) => Promise<void>,
): Promise<void> {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-sup-test-" });
  const config = loadConfig({ REMCP_STATE_DIR: stateDir, REMCP_LOG_LEVEL: "error", ...env });
  const sup = createSupervisor(config, createLogger("test", stderrSink("error", undefined, "t")), {
    spawn: inProcess,
  });
  const ctx: CallContext = {
    session: "test",
    signal: new AbortController().signal,
    progress() {},
    via: "client",
  };
  try {
    await body(sup, (name, args) => sup.callTool(name, args ?? {}, ctx));
  } finally {
    await sup.shutdown();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

function errorOf(
  r: ToolResult,
): { error: string; error_type: string; detail: Record<string, unknown> } {
  assert.equal(r.isError, true, `expected an error: ${r.content[0]?.text}`);
  assert.equal(r.structuredContent, undefined, "errors carry no structured content");
  return JSON.parse(r.content[0]!.text);
}

Deno.test(
  "Supervisor dispatches to an in-process worker and refuses what it must",
  sanitize,
  async () => {
    await withSupervisor({}, async (sup, call) => {
      // Before any open: a worker tool names the fix.
      assert.equal(errorOf(await call("list_functions")).error_type, "NoDatabase");
      const opened = await call("open_database", { path: ELF });
      assert.equal(opened.isError, undefined, opened.content[0]!.text);
      const ready = await call("wait_for_analysis", {});
      assert.equal(ready.structuredContent?.state, "ready");

      const fns = await call("list_functions", { limit: 2 });
      assert.equal((fns.structuredContent?.items as unknown[]).length, 2);

      // The routed `database` argument is parsed by its declared schema.
      const badDb = errorOf(await call("list_functions", { database: 42 }));
      assert.equal(badDb.error_type, "InvalidArgument");
      assert.match(badDb.error, /database/);
      // Unknown tools and undeclared arguments are refused with what to do next.
      assert.match(errorOf(await call("no_such_tool")).error, /search_tools/);
      assert.equal(
        errorOf(await call("list_functions", { nope: 1 })).error_type,
        "InvalidArgument",
      );
      // Tool presence is the worker's own list: the embedded worker has no raw engine command.
      const cmd = errorOf(await call("command", { command: "afl" }));
      assert.ok(["Unsupported", "InvalidArgument"].includes(cmd.error_type), cmd.error);
      // Lifecycle tools cannot be reached through call.
      const nested = errorOf(
        await call("call", { name: "open_database", arguments: { path: ELF } }),
      );
      assert.match(nested.error, /call it directly/);
      assert.ok(sup.pool.list().length === 1);
    });
  },
);

Deno.test("Supervisor keeps every error within the output cap", sanitize, async () => {
  await withSupervisor({ REMCP_MAX_OUTPUT_BYTES: "4096" }, async (_sup, call) => {
    const r = await call("open_database", { path: `/nonexistent/${"x".repeat(20_000)}` });
    const text = r.content[0]!.text;
    assert.ok(new TextEncoder().encode(text).length <= 4096, `${text.length} bytes`);
    assert.equal(JSON.parse(text).error_type, "InvalidArgument");
  });
});

Deno.test(
  "readiness is the worker's per-tool decision while the file analyses",
  sanitize,
  async () => {
    await withSupervisor({ REMCP_DEBUG_ANALYSIS_DELAY_MS: "60000" }, async (_sup, call) => {
      await call("open_database", { path: ELF });
      // Wait on the condition (the worker has read the file), never a fixed sleep.
      for (let i = 0; i < 2000; i++) {
        if (!(await call("list_sections", {})).isError) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const sections = await call("list_sections", {});
      assert.equal(sections.isError, undefined, sections.content[0]!.text);
      const busy = errorOf(await call("list_functions", {}));
      assert.equal(busy.error_type, "Busy");
      assert.match(busy.error, /wait_for_analysis/);
    });
  },
);

Deno.test(
  "callToolWire(): a worker's success as its bytes, everything else as callTool gives it",
  sanitize,
  async () => {
    await withSupervisor({}, async (sup, call) => {
      const ctx: CallContext = {
        session: "test",
        signal: new AbortController().signal,
        progress() {},
        via: "client",
      };
      const wire = (name: string, args: unknown) => sup.callToolWire(name, args, ctx);
      // Before any open, the refusal is the usual error result.
      const none = await wire("list_functions", {});
      assert.ok(!(none instanceof WireResult) && none.isError === true);
      const opened = await call("open_database", { path: ELF });
      const database = opened.structuredContent!.database as string;
      await call("wait_for_analysis", {});

      const parsed = await call("list_functions", { database, limit: 3 });
      const raw = await wire("list_functions", { database, limit: 3 });
      assert.ok(raw instanceof WireResult, "a worker's success comes as bytes");
      assert.deepEqual(raw.result(), parsed);
      // A worker's failure goes through the dispatcher's error rules, never as bytes.
      const failed = await wire("decompile_function", { database, address: "0xdeadbeef0" });
      assert.ok(!(failed instanceof WireResult));
      assert.equal(failed.isError, true);
      assert.equal(failed.structuredContent, undefined);
      // Supervisor-side tools are never bytes; a database id checked once is still checked
      // against its schema when it changes.
      assert.ok(!((await wire("list_databases", {})) instanceof WireResult));
      assert.equal(
        errorOf(await call("list_functions", { database: "" })).error_type,
        "InvalidArgument",
      );
      assert.ok((await wire("list_functions", { database, limit: 1 })) instanceof WireResult);
      assert.equal(
        errorOf(await call("list_functions", { database: "x".repeat(200) })).error_type,
        "InvalidArgument",
      );
    });
  },
);
