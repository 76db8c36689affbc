/**
 * The shared Python worker runtime (workers/python/), tested through the real supervisor with
 * the engine-free `pytest-echo` test backend (enabled only by REMCP_ENABLE_TEST_BACKEND=1), plus
 * the raw worker protocol and the Python unit tests. Ghidra, IDA and Binary Ninja cannot run
 * here: their detection is tested (Unavailable with the reason); the contract tests run them
 * where they are installed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig, VERSION } from "../src/config.ts";
import { jsonCatalog } from "../src/protocol/catalog/json_catalog.ts";
import {
  pythonCatalogSpecs,
  PythonWorkers,
  TEST_BACKEND,
} from "../src/supervisor/python_workers.ts";
import { callTool, fails, fixture, ok, repoPath, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const FILE = fixture("elf_x86_64_gcc_O0");
const TEST_ENV = { REMCP_ENABLE_TEST_BACKEND: "1", REMCP_MAX_OUTPUT_BYTES: "8192" };

async function pidOf(client: Parameters<typeof ok>[0], database: string): Promise<number> {
  const list = await ok(client, "list_databases");
  const db = (list.items as { database: string; pid?: number }[]).find((d) =>
    d.database === database
  );
  assert.ok(db?.pid, `${database} has a live worker`);
  return db.pid;
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("Python worker: the test backend exists only when enabled", e2e, async () => {
  const h = await startRemcp({ env: { REMCP_ENABLE_TEST_BACKEND: "0" } });
  try {
    const names = ((await ok(h.client, "list_backends")).items as { name: string }[])
      .map((b) => b.name);
    assert.ok(!names.includes(TEST_BACKEND), "not listed");
    const e = await fails(h.client, "open_database", { path: FILE, backend: TEST_BACKEND });
    assert.equal(e.error_type, "InvalidArgument");
    assert.doesNotMatch(e.error.split("known:")[1] ?? "", /pytest/);
  } finally {
    await h.close();
  }
});

Deno.test("Python worker through the supervisor", e2e, async (t) => {
  const h = await startRemcp({ env: TEST_ENV });
  try {
    const opened = await ok(h.client, "open_database", { path: FILE, backend: TEST_BACKEND });
    const db = opened.database as string;
    await ok(h.client, "wait_for_analysis", { database: db });

    await t.step("serves catalog tools with catalog shapes", async () => {
      const info = await ok(h.client, "get_database_info", { database: db });
      assert.equal(info.backend, TEST_BACKEND);
      assert.match(info.sha256 as string, /^[0-9a-f]{64}$/);
      const bytes = await ok(h.client, "read_bytes", { address: "sym_00001+2", size: 4 });
      assert.deepEqual(bytes, { address: "0x10012", size: 4, hex: "3e000100" });
      const where = await ok(h.client, "resolve_address", { address: "0x10025" });
      assert.equal(where.symbol, "sym_00002");
      assert.equal(where.symbol_offset, 5);
      assert.equal(where.file_offset, "0x25");
      // A tool the worker does not list is refused by the supervisor, naming the backends.
      const missing = await fails(h.client, "list_imports", {});
      assert.equal(missing.error_type, "Unsupported");
      assert.match(missing.error, /not available on the pytest-echo backend/);
    });

    await t.step("argument errors name the argument and the accepted ones", async () => {
      const missing = await fails(h.client, "read_bytes", { size: 4 });
      assert.equal(missing.error_type, "InvalidArgument");
      assert.match(missing.error, /missing the required parameter "address"/);
      assert.deepEqual(missing.detail.accepted, ["address", "size"]);
      const mistyped = await fails(h.client, "read_bytes", { address: "0x10000", size: "4" });
      assert.equal(mistyped.detail.param, "size");
      assert.match(mistyped.error, /expected integer, received string/);
      const range = await fails(h.client, "read_bytes", { address: "0x10000", size: 0 });
      assert.match(range.error, /"size" is invalid: must be ≥ 1/);
      const undeclared = await fails(h.client, "list_names", { limit: 2, colour: "red" });
      assert.match(undeclared.error, /has no parameter "colour"; it accepts: offset, limit/);
      const nullRequired = await fails(h.client, "read_bytes", { address: "0x10000", size: null });
      assert.match(nullRequired.error, /missing the required parameter "size"/);
      const nullOptional = await ok(h.client, "list_names", { limit: 1, filter: null });
      assert.equal(nullOptional.total, 3000);
      const badAddress = await fails(h.client, "read_bytes", { address: "sym_0000", size: 1 });
      assert.equal(badAddress.error_type, "InvalidAddress");
      assert.match(badAddress.error, /did you mean sym_00000, sym_00001/);
      const badRegex = await fails(h.client, "list_names", { filter: "(a)\\1" });
      assert.equal(badRegex.error_type, "InvalidArgument");
      assert.match(badRegex.error, /backreferences/);
      // Backtracks for ever in Python's re; linear here, so the answer comes at once.
      const nested = await ok(h.client, "list_names", { filter: "(s|s)+$" });
      assert.equal(nested.total, 0);
    });

    await t.step("pages are cut to the output cap as valid JSON with next_offset", async () => {
      const r = await callTool(h.client, "list_names", { limit: 1000 });
      assert.equal(r.isError, false);
      assert.ok(new TextEncoder().encode(r.text).length <= 8192, "within the cap");
      assert.deepEqual(JSON.parse(r.text), r.sc, "text is the structured content");
      const items = r.sc.items as { name: string }[];
      assert.ok(items.length > 10 && items.length < 1000, `cut to ${items.length}`);
      assert.equal(r.sc.truncated, true);
      assert.equal(r.sc.has_more, true);
      assert.equal(r.sc.next_offset, items.length);
      const next = await ok(h.client, "list_names", { offset: items.length, limit: 2 });
      assert.equal(
        (next.items as { name: string }[])[0]!.name,
        `sym_${String(items.length).padStart(5, "0")}`,
      );
      const page = await ok(h.client, "list_names", { filter: "^sym_0299", limit: 5 });
      assert.deepEqual([page.total, page.has_more, page.next_offset], [10, true, 5]);
    });

    await t.step("progress notifications reach the client", async () => {
      const slow = await ok(h.client, "open_database", {
        path: FILE,
        backend: TEST_BACKEND,
        options: { search_delay_s: 0.4 },
      });
      await ok(h.client, "wait_for_analysis", { database: slow.database });
      const progress: number[] = [];
      const r = await h.client.callTool(
        { name: "search_bytes", arguments: { database: slow.database, pattern: "7f 45 4c 46" } },
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.equal(r.isError, undefined);
      assert.equal((r.structuredContent as { total: number }).total, 1);
      assert.ok(progress.length >= 3, `${progress.length} progress notifications`);
      await ok(h.client, "close_database", { database: slow.database });
    });

    await t.step("engine exceptions keep their message and become Internal", async () => {
      const bad = await ok(h.client, "open_database", {
        path: FILE,
        backend: TEST_BACKEND,
        options: { fail: "list_entry_points" },
      });
      await ok(h.client, "wait_for_analysis", { database: bad.database });
      const r = await callTool(h.client, "list_entry_points", { database: bad.database });
      assert.equal(r.isError, true);
      assert.deepEqual(JSON.parse(r.text), r.sc);
      assert.equal(r.sc.error_type, "Internal");
      assert.match(r.sc.error as string, /ValueError: synthetic engine failure/);
      // The worker survives its handler's failure.
      await ok(h.client, "get_database_info", { database: bad.database });
      await ok(h.client, "close_database", { database: bad.database });
    });

    await t.step("SIGTERM saves annotations and exits; a reopen has them", async () => {
      const renamed = await ok(h.client, "rename", { address: "sym_00007", name: "kept_name" });
      assert.deepEqual([renamed.old_name, renamed.new_name], ["sym_00007", "kept_name"]);
      Deno.kill(await pidOf(h.client, db), "SIGTERM");
      await until("the worker to exit", async () => {
        const list = await ok(h.client, "list_databases");
        return (list.items as { state: string }[])[0]!.state === "crashed";
      });
      const crashed = await fails(h.client, "get_database_info", { database: db });
      assert.equal(crashed.error_type, "WorkerCrashed");
      assert.match(crashed.error, /exited with code 0/);
      await ok(h.client, "open_database", { path: FILE, backend: TEST_BACKEND });
      await ok(h.client, "wait_for_analysis", { database: db });
      const names = await ok(h.client, "list_names", { filter: "kept_name" });
      assert.equal(names.total, 1);
      assert.equal((names.items as { source: string }[])[0]!.source, "user");
    });

    await t.step("a client abort cancels the running call; the next answers at once", async () => {
      const slow = await ok(h.client, "open_database", {
        path: FILE,
        backend: TEST_BACKEND,
        options: { search_delay_s: 30 },
      });
      const sdb = slow.database as string;
      await ok(h.client, "wait_for_analysis", { database: sdb });
      const pid = await pidOf(h.client, sdb);
      const abort = new AbortController();
      const started = Date.now();
      // The first progress note says the worker is inside the call: abort then, not after a
      // guessed delay that a busy machine may not meet.
      const call = h.client.callTool(
        { name: "search_bytes", arguments: { database: sdb, pattern: "00" } },
        { signal: abort.signal, onprogress: () => abort.abort() },
      );
      await assert.rejects(call);
      await ok(h.client, "get_database_info", { database: sdb });
      // Uninterrupted, the search takes 30 s.
      assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
      assert.equal(await pidOf(h.client, sdb), pid, "the same worker answered");

      // SIGUSR1 (what the supervisor sends IDA workers) also stops the running call.
      const running = Promise.withResolvers<void>();
      const second = h.client.callTool(
        { name: "search_bytes", arguments: { database: sdb, pattern: "00" } },
        { onprogress: () => running.resolve() },
      );
      await running.promise;
      Deno.kill(pid, "SIGUSR1");
      const r = await second;
      assert.equal(r.isError, true);
      const text = (r.content as { type: string; text?: string }[])[0]?.text ?? "";
      assert.equal(JSON.parse(text).error_type, "Cancelled");

      Deno.kill(pid, "SIGKILL");
      await until("the kill to be seen", async () => {
        const list = await ok(h.client, "list_databases");
        return (list.items as { database: string; state: string }[])
          .some((d) => d.database === sdb && d.state === "crashed");
      });
      const dead = await fails(h.client, "get_database_info", { database: sdb });
      assert.equal(dead.error_type, "WorkerCrashed");
      assert.match(dead.error, /SIGKILL/);
      // Other databases are untouched.
      await ok(h.client, "get_database_info", { database: db });
    });

    await t.step("engines missing here are Unavailable with the reason", async () => {
      const listed = (await ok(h.client, "list_backends")).items as {
        name: string;
        available: boolean;
        reason?: string;
      }[];
      for (const name of ["ghidra", "ida", "binja"]) {
        const b = listed.find((x) => x.name === name);
        assert.ok(b, `${name} listed`);
        if (b.available) continue; // Installed here: the contract tests exercise it.
        assert.ok(b.reason && b.reason.length > 20, `${name} says why`);
        const e = await fails(h.client, "open_database", { path: FILE, backend: name });
        assert.equal(e.error_type, "Unavailable");
        assert.ok(e.error.includes(b.reason), e.error);
      }
      const ghidra = listed.find((x) => x.name === "ghidra")!;
      if (!ghidra.available && !Deno.env.get("GHIDRA_INSTALL_DIR")) {
        assert.match(ghidra.reason!, /GHIDRA_INSTALL_DIR is not set/);
      }
    });
  } finally {
    await h.close();
  }
});

/** Speaks newline-delimited JSON-RPC to one Python worker started directly. */
function rawWorker(dir: string, state: string, args: string[]) {
  const child = new Deno.Command("python3", {
    args: [join(dir, "remcp_worker.py"), "--catalog", join(dir, "catalog.json"), ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { ...Deno.env.toObject(), REMCP_ENABLE_TEST_BACKEND: "1", REMCP_STATE_DIR: state },
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    child,
    send: (m: unknown) =>
      writer.write(
        new TextEncoder().encode((typeof m === "string" ? m : JSON.stringify(m)) + "\n"),
      ),
    async next(): Promise<Record<string, unknown>> {
      while (!buffer.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("worker closed stdout");
        buffer += value;
      }
      const nl = buffer.indexOf("\n");
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      return JSON.parse(line);
    },
    async close() {
      await writer.close().catch(() => {});
      await reader.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
      return await child.status;
    },
  };
}

Deno.test("Python worker speaks MCP on its own stdio", e2e, async () => {
  const state = await Deno.makeTempDir({ prefix: "remcp-py-" });
  try {
    const dir = new PythonWorkers(loadConfig({ REMCP_STATE_DIR: state }), undefined, {
      REMCP_ENABLE_TEST_BACKEND: "1",
    }).ensureScripts();
    const w = rawWorker(dir, state, ["--backend", TEST_BACKEND, "--state-dir", state, FILE]);
    // Before initialize, a request is still answered; garbage gets a parse error.
    await w.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    assert.deepEqual(await w.next(), { jsonrpc: "2.0", id: 1, result: {} });
    await w.send("{not json");
    assert.equal(((await w.next()).error as { code: number }).code, -32700);
    await w.send({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t" } },
    });
    const init = (await w.next()).result as Record<string, unknown>;
    assert.equal(init.protocolVersion, "2025-06-18");
    await w.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await w.send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    const tools = ((await w.next()).result as { tools: { name: string; inputSchema: unknown }[] })
      .tools;
    const names = tools.map((t) => t.name);
    for (const n of ["_status", "_save", "list_names", "read_bytes", "search_bytes"]) {
      assert.ok(names.includes(n), `${n} listed`);
    }
    assert.ok(!names.includes("list_imports"), "unimplemented tools are not listed");
    const catalog = jsonCatalog(pythonCatalogSpecs(), VERSION);
    const spec = catalog.tools.find((t) => t.name === "read_bytes")!;
    assert.deepEqual(tools.find((t) => t.name === "read_bytes")!.inputSchema, spec.inputSchema);
    await w.send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nope" } });
    assert.equal(((await w.next()).error as { code: number }).code, -32602);
    await w.send({ jsonrpc: "2.0", id: 5, method: "frobnicate" });
    assert.equal(((await w.next()).error as { code: number }).code, -32601);
    // End of input saves and exits cleanly.
    const status = await w.close();
    assert.equal(status.code, 0);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("Python runtime unit tests pass", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-pyunit-" });
  try {
    const catalog = join(dir, "catalog.json");
    await Deno.writeTextFile(catalog, JSON.stringify(jsonCatalog(pythonCatalogSpecs(), VERSION)));
    const out = await new Deno.Command("python3", {
      args: [
        "-m",
        "unittest",
        "discover",
        "-s",
        repoPath("workers/python/tests"),
        "-t",
        repoPath("workers/python"),
      ],
      cwd: repoPath("workers/python"),
      env: { REMCP_TEST_CATALOG: catalog, PYTHONDONTWRITEBYTECODE: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    assert.match(text, /Ran [1-9]\d* tests/);
    assert.match(text, /\nOK/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
