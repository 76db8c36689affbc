/**
 * End-to-end: the real remcp process driven by the official MCP client over real stdio.
 */
import assert from "node:assert/strict";
import { fails, fixture, ok, repoPath, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ELF = fixture("elf_x86_64_gcc_O2");
const PE = fixture("pe_x86_64_O2.exe");

Deno.test("initialize handshake lists management tools and sends instructions", e2e, async () => {
  const h = await startRemcp({ era: "legacy" });
  try {
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    for (const n of ["open_database", "open_data", "close_database", "list_backends"]) {
      assert.ok(names.includes(n), `${n} listed`);
    }
    assert.match(h.client.getInstructions() ?? "", /open_database/);
    const backends = await ok(h.client, "list_backends");
    assert.equal((backends.items as { name: string }[])[0]!.name, "embedded");
  } finally {
    await h.close();
  }
});

Deno.test("a 2026-07-28 client (server/discover) is served", e2e, async () => {
  const h = await startRemcp({ era: "2026-07-28" });
  try {
    const r = await ok(h.client, "list_backends");
    assert.equal(r.default, "embedded");
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("open_database"));
  } finally {
    await h.close();
  }
});

/** Spawns remcp with raw pipes so that tests can write arbitrary lines. */
function rawRemcp() {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", repoPath("deno.json"), repoPath("src/main.ts")],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { REMCP_LOG_LEVEL: "error" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async send(line: string) {
      await writer.write(new TextEncoder().encode(line + "\n"));
    },
    async next(): Promise<Record<string, unknown>> {
      while (!buffer.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("server closed the pipe");
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
      await child.status;
    },
  };
}

Deno.test("raw server/discover first is answered", e2e, async () => {
  const p = rawRemcp();
  try {
    await p.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
        },
      },
    }));
    const answer = await p.next();
    assert.equal(answer.id, 1);
    assert.ok(answer.result || answer.error, "discover got an answer");
  } finally {
    await p.close();
  }
});

Deno.test(
  "requests before initialize and garbage lines get errors, not a closed pipe",
  e2e,
  async () => {
    const p = rawRemcp();
    try {
      await p.send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }));
      const first = await p.next();
      assert.equal(first.id, 7);
      assert.match((first.error as { message: string }).message, /before initialize/);
      // Invalid requests each get one reply (a batch, a bad id, no method).
      await p.send(JSON.stringify([{ jsonrpc: "2.0", id: 9, method: "ping" }]));
      assert.equal(((await p.next()).error as { code: number }).code, -32600);
      await p.send(JSON.stringify({ jsonrpc: "2.0", id: 10 }));
      const noMethod = await p.next();
      assert.equal(noMethod.id, 10);
      assert.equal((noMethod.error as { code: number }).code, -32600);
      await p.send("this is not json");
      const parseError = await p.next();
      assert.equal((parseError.error as { code: number }).code, -32700);
      // The connection still works: a normal handshake follows.
      await p.send(JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      }));
      let init = await p.next();
      while (init.id !== 8) init = await p.next();
      assert.ok(init.result, "initialize answered after bad input");
      await p.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      // Two requests with one id in one write: the first is served, the second refused.
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 11,
        method: "tools/call",
        params: { name: "list_databases", arguments: {} },
      });
      await p.send(`${call}\n${call}`);
      const answers = [await p.next(), await p.next()];
      assert.deepEqual(answers.map((a) => a.id), [11, 11]);
      assert.equal(answers.filter((a) => a.result).length, 1, "one is served");
      assert.match(
        String((answers.find((a) => a.error)?.error as { message: string }).message),
        /still in flight/,
      );
    } finally {
      await p.close();
    }
  },
);

Deno.test(
  "two databases open at once and answer in parallel; database may be omitted with one",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const a = await ok(h.client, "open_database", { path: ELF });
      // With exactly one database open, `database` may be omitted.
      await ok(h.client, "wait_for_analysis", {});
      const solo = await ok(h.client, "get_database_info", {});
      assert.equal(solo.format, "elf");
      const b = await ok(h.client, "open_database", { path: PE });
      assert.notEqual(a.database, b.database);
      await ok(h.client, "wait_for_analysis", { database: b.database });
      const [ia, ib] = await Promise.all([
        ok(h.client, "get_database_info", { database: a.database }),
        ok(h.client, "get_database_info", { database: b.database }),
      ]);
      assert.equal(ia.format, "elf");
      assert.equal(ib.format, "pe");
      // Two open: omitting database is an error naming both.
      const e = await fails(h.client, "get_database_info", {});
      assert.equal(e.error_type, "InvalidArgument");
      assert.match(e.error, new RegExp(String(a.database)));
      // Reopening the same file returns the same database.
      const again = await ok(h.client, "open_database", { path: ELF });
      assert.equal(again.database, a.database);
      assert.equal(again.existing, true);
    } finally {
      await h.close();
    }
  },
);

Deno.test("bad database ids, missing files and directories are refused clearly", e2e, async () => {
  // A rizin that is not there, so that a backend that cannot run is refused on machines with Rizin.
  const h = await startRemcp({ env: { REMCP_RIZIN: "/nonexistent/rizin" } });
  try {
    const none = await fails(h.client, "get_database_info", {});
    assert.equal(none.error_type, "NoDatabase");
    await ok(h.client, "open_database", { path: ELF });
    const bad = await fails(h.client, "get_database_info", { database: "nope" });
    assert.equal(bad.error_type, "NoDatabase");
    assert.match(bad.error, /elf_x86_64_gcc_O2/);
    const missing = await fails(h.client, "open_database", { path: "/no/such/file" });
    assert.equal(missing.error_type, "OpenFailed");
    const dir = await fails(h.client, "open_database", { path: "/tmp" });
    assert.equal(dir.error_type, "OpenFailed");
    assert.match(dir.error, /directory/);
    const arg = await fails(h.client, "open_database", { path: ELF, bogus: 1 });
    assert.equal(arg.error_type, "InvalidArgument");
    assert.match(arg.error, /bogus/);
    const backend = await fails(h.client, "open_database", { path: ELF, backend: "rizin" });
    assert.equal(backend.error_type, "Unavailable");
    // A protocol fault: an unknown tool is a JSON-RPC error.
    await assert.rejects(() => h.client.callTool({ name: "no_such_tool", arguments: {} }));
  } finally {
    await h.close();
  }
});

Deno.test(
  "while analysing, tools that need the analysis answer Busy and format tools already work",
  e2e,
  async () => {
    const h = await startRemcp({ env: { REMCP_DEBUG_ANALYSIS_DELAY_MS: "1500" } });
    try {
      const o = await ok(h.client, "open_database", { path: ELF });
      assert.equal(o.opening, true);
      const busy = await fails(h.client, "list_functions", {});
      assert.equal(busy.error_type, "Busy");
      assert.match(busy.error, /wait_for_analysis/);
      // Readiness is the worker's decision per tool: format tools answer during analysis.
      await ok(h.client, "list_sections", {});
      const progress: number[] = [];
      const r = await h.client.callTool(
        { name: "wait_for_analysis", arguments: {} },
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.equal((r.structuredContent as { state: string }).state, "ready");
      assert.ok(progress.length >= 1, "progress notifications were sent");
      await ok(h.client, "get_database_info", {});
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "kill -9 of a worker: WorkerCrashed with stderr, others unaffected, reopen works",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const a = await ok(h.client, "open_database", { path: ELF });
      const b = await ok(h.client, "open_database", { path: PE });
      await ok(h.client, "wait_for_analysis", { database: a.database });
      await ok(h.client, "wait_for_analysis", { database: b.database });
      const list = await ok(h.client, "list_databases");
      const victim = (list.items as { database: string; pid: number }[])
        .find((d) => d.database === a.database)!;
      Deno.kill(victim.pid, "SIGKILL");
      // Wait until the pool has seen the exit, however long a busy machine takes to report it.
      for (let i = 0; i < 600; i++) {
        const now = await ok(h.client, "list_databases");
        const row = (now.items as { database: string; state: string }[])
          .find((d) => d.database === a.database);
        if (row?.state === "crashed") break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const crashed = await fails(h.client, "get_database_info", { database: a.database });
      assert.equal(crashed.error_type, "WorkerCrashed");
      assert.ok(Array.isArray(crashed.detail.stderr));
      assert.match(crashed.error, /open_database/);
      const other = await ok(h.client, "get_database_info", { database: b.database });
      assert.equal(other.format, "pe");
      const reopened = await ok(h.client, "open_database", { path: ELF });
      await ok(h.client, "wait_for_analysis", { database: reopened.database });
      const info = await ok(h.client, "get_database_info", { database: reopened.database });
      assert.equal(info.format, "elf");
    } finally {
      await h.close();
    }
  },
);

Deno.test("open_data opens a sample, refuses bad base64 and oversize payloads", e2e, async () => {
  const h = await startRemcp();
  try {
    const bytes = await Deno.readFile(ELF);
    let bin = "";
    for (const b of bytes) bin += String.fromCharCode(b);
    const opened = await ok(h.client, "open_data", { name: "../../evil name", base64: btoa(bin) });
    assert.match(String(opened.path), /evil_name$/);
    assert.doesNotMatch(String(opened.path), /\.\./);
    const stat = await Deno.stat(String(opened.path));
    assert.equal(stat.mode! & 0o777, 0o600);
    await ok(h.client, "wait_for_analysis", { database: opened.database });
    const info = await ok(h.client, "get_database_info", { database: opened.database });
    assert.equal(info.size, bytes.length);
    await ok(h.client, "close_database", { database: opened.database });
    await assert.rejects(() => Deno.stat(String(opened.path)), "sample deleted on close");

    const bad = await fails(h.client, "open_data", { name: "x", base64: "***not base64***" });
    assert.equal(bad.error_type, "InvalidArgument");
    const both = await fails(h.client, "open_data", { name: "x", base64: "AA==", hex: "00" });
    assert.equal(both.error_type, "InvalidArgument");
    // Just over 64 MiB once decoded.
    const huge = await fails(h.client, "open_data", {
      name: "x",
      base64: "A".repeat(Math.ceil((64 * 1024 * 1024 + 3) / 3) * 4),
    });
    assert.equal(huge.error_type, "InvalidArgument");
    assert.match(huge.error, /64 MiB/);
    // Still serving afterwards.
    await ok(h.client, "list_databases");
  } finally {
    await h.close();
  }
});

Deno.test("close_database stops the worker and the database can be opened again", e2e, async () => {
  const h = await startRemcp();
  try {
    const a = await ok(h.client, "open_database", { path: ELF });
    await ok(h.client, "wait_for_analysis", {});
    const c = await ok(h.client, "close_database", { database: a.database });
    assert.equal(c.closed, true);
    assert.deepEqual((await ok(h.client, "list_databases")).items, []);
    const again = await ok(h.client, "open_database", { path: ELF });
    assert.equal(again.existing, false);
  } finally {
    await h.close();
  }
});

/** Pids of the server's children whose command line contains `needle`. */
async function childrenWith(parent: number, needle: string): Promise<number[]> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=", "--ppid", String(parent)],
    stdout: "piped",
  }).output();
  const pids = new TextDecoder().decode(out.stdout).split("\n").map((s) => Number(s.trim()))
    .filter((n) => n > 0);
  const found: number[] = [];
  for (const pid of pids) {
    const cmd = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => "");
    if (cmd.includes(needle)) found.push(pid);
  }
  return found;
}

Deno.test("a standby worker takes the next open; a dead standby is replaced", e2e, async () => {
  const h = await startRemcp();
  try {
    const server = h.transport.pid!;
    await ok(h.client, "open_database", { path: ELF });
    let standby: number[] = [];
    for (let i = 0; i < 100 && standby.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      standby = await childrenWith(server, "--standby");
    }
    assert.equal(standby.length, 1, "one standby worker waits after the first open");
    const b = await ok(h.client, "open_database", { path: PE });
    await ok(h.client, "wait_for_analysis", { database: b.database });
    const list = await ok(h.client, "list_databases");
    const pidB = (list.items as { database: string; pid: number }[])
      .find((d) => d.database === b.database)!.pid;
    assert.equal(pidB, standby[0], "the second database runs in the standby worker");
    assert.equal((await ok(h.client, "get_database_info", { database: b.database })).format, "pe");
    // Kill the next standby: the following open still works, in a fresh worker.
    let next: number[] = [];
    for (let i = 0; i < 100 && next.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      next = await childrenWith(server, "--standby");
    }
    Deno.kill(next[0]!, "SIGKILL");
    // Wait until the killed standby is gone from the process table (a condition, not a delay).
    for (let i = 0; i < 600 && (await childrenWith(server, "--standby")).includes(next[0]!); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const c = await ok(h.client, "open_database", { path: fixture("elf_aarch64_gcc_O2") });
    await ok(h.client, "wait_for_analysis", { database: c.database });
    assert.equal(
      (await ok(h.client, "get_database_info", { database: c.database })).arch,
      "aarch64",
    );
  } finally {
    await h.close();
  }
});

Deno.test(
  "what a new user meets: empty and unknown files, turned-off tools, rename journal",
  e2e,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "remcp-test-supervisor-" });
    const h = await startRemcp();
    try {
      const empty = `${dir}/empty.bin`;
      await Deno.writeFile(empty, new Uint8Array());
      const e = await fails(h.client, "open_database", { path: empty });
      assert.equal(e.error_type, "OpenFailed");
      assert.match(e.error, /is empty \(0 bytes\)/);

      // A failed open leaves nothing behind: no "failed" entry, and a retry gets the same id.
      const junk = `${dir}/junk.dat`;
      await Deno.writeTextFile(junk, "just some text, not a binary at all\n");
      assert.equal(
        (await fails(h.client, "open_database", { path: junk })).error_type,
        "OpenFailed",
      );
      assert.deepEqual((await ok(h.client, "list_databases")).items, []);
      await fails(h.client, "open_database", { path: junk });
      const opened = await ok(h.client, "open_database", {
        path: junk,
        options: { arch: "x86_64", base: 0 },
      });
      assert.equal(opened.database, "junk.dat");

      // A tool turned off by configuration says what turns it on.
      for (const via of ["direct", "call"]) {
        const r = via === "direct"
          ? await fails(h.client, "command", { command: "i" })
          : await fails(h.client, "call", { name: "command", arguments: { command: "i" } });
        assert.equal(r.error_type, "Unsupported", via);
        assert.match(r.error, /--allow-scripts/, via);
      }
      await ok(h.client, "close_database", { database: "junk.dat" });

      // The journal shows the name a rename replaced, as rename itself does.
      const elf = await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O0") });
      await ok(h.client, "wait_for_analysis", { database: elf.database });
      const renamed = await ok(h.client, "rename", { address: "main", name: "entry_main" });
      assert.equal(renamed.old_name, "main");
      const changes = await ok(h.client, "call", { name: "list_changes", arguments: {} });
      const first = (changes.items as { old: string | null; new: string | null }[])[0]!;
      assert.deepEqual([first.old, first.new], ["main", "entry_main"]);
    } finally {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
