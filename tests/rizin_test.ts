/**
 * End-to-end: the rizin backend against real rizin, through the real server (and, for tools the
 * supervisor does not list yet, through `remcp worker --backend rizin` directly). Skipped, with
 * the reason printed, when rizin is not installed; the Unavailable path runs everywhere.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { findRizin, probeVersion, supported } from "../src/probes/rizin.ts";
import { callTool, fails, fixture, ok, remcpArgs, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const FILE = "elf_x86_64_gcc_O0";

function rizinHere(): { binary?: string; reason?: string } {
  const binary = findRizin(Deno.env.get("REMCP_RIZIN"), Deno.env.toObject());
  if (!binary) return { reason: "rizin is not installed (set REMCP_RIZIN or put rizin on PATH)" };
  const { version, error } = probeVersion(binary);
  if (!version) return { reason: error ?? "rizin -v failed" };
  if (!supported(version)) return { reason: `rizin ${version.text} is older than 0.7` };
  return { binary };
}

const here = rizinHere();
const skip = here.binary === undefined;
if (skip) console.log(`rizin tests: skipping: ${here.reason}`);
const rizinEnv: Record<string, string> = here.binary ? { REMCP_RIZIN: here.binary } : {};

type Truth = {
  functions: { name: string; address: string; size: number }[];
  direct_calls: Record<string, string[]>;
};
const truth = (name: string): Truth =>
  JSON.parse(Deno.readTextFileSync(fixture(`${name}.truth.json`)));

/** A client on `remcp worker --backend rizin PATH`, ready. */
async function worker(path: string, env: Record<string, string> = {}) {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-rizin-worker-" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: remcpArgs(["worker", "--backend", "rizin", path]),
    env: {
      ...Deno.env.toObject(),
      ...rizinEnv,
      REMCP_STATE_DIR: stateDir,
      REMCP_CHECK_OUTPUT: "1",
      REMCP_LOG_LEVEL: "error",
      ...env,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "rizin-test", version: "0" });
  await client.connect(transport);
  await ready(client);
  return {
    client,
    async close() {
      await client.close().catch(() => {});
      await Deno.remove(stateDir, { recursive: true }).catch(() => {});
    },
  };
}

async function ready(client: Client, seconds = 120): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const s = await ok(client, "_status");
    if (s.state === "ready") return;
    if (s.state === "failed") throw new Error(`rizin worker failed: ${JSON.stringify(s.error)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("rizin worker did not become ready");
}

Deno.test(
  "rizin: without rizin, list_backends says why and open_database is Unavailable",
  e2e,
  async () => {
    const h = await startRemcp({ env: { REMCP_RIZIN: "/nonexistent/rizin" } });
    try {
      const b = await ok(h.client, "list_backends");
      const rz = (b.items as { name: string; available: boolean; reason?: string }[])
        .find((x) => x.name === "rizin")!;
      assert.equal(rz.available, false);
      assert.match(rz.reason ?? "", /install Rizin/);
      const e = await fails(h.client, "open_database", { path: fixture(FILE), backend: "rizin" });
      assert.equal(e.error_type, "Unavailable");
      assert.match(e.error, /install Rizin/);
    } finally {
      await h.close();
    }
  },
);

Deno.test({
  name: "rizin: opens a fixture and agrees with the truth file on functions, calls and strings",
  ignore: skip,
  ...e2e,
  fn: async () => {
    const h = await startRemcp({ env: rizinEnv });
    try {
      const b = await ok(h.client, "list_backends");
      const rz = (b.items as { name: string; version?: string }[]).find((x) => x.name === "rizin")!;
      assert.match(rz.version ?? "", /^\d+\.\d+\.\d+/);
      await ok(h.client, "open_database", { path: fixture(FILE), backend: "rizin" });
      await ok(h.client, "wait_for_analysis", { timeout: 120 });
      const info = await ok(h.client, "get_database_info");
      assert.equal(info.backend, "rizin");
      assert.equal(info.arch, "x86_64");
      assert.equal((info.details as { rizin_version: string }).rizin_version, rz.version);
      const d = await ok(h.client, "disassemble", { address: "main", count: 200 });
      const calls = (d.items as { target_name?: string }[]).map((r) => r.target_name);
      for (const callee of ["remcp_fact", "remcp_fib"]) assert.ok(calls.includes(callee), callee);
      const hit = await ok(h.client, "search_text", { text: "hello, REMCP" });
      assert.equal((hit.items as { address: string }[])[0]?.address, "0x2080");
      const unmapped = await fails(h.client, "disassemble", { address: "0x7ffff0000000" });
      assert.equal(unmapped.error_type, "InvalidAddress");
      const bytes = await fails(h.client, "read_bytes", { address: "0x7ffff0000000", size: 4 });
      assert.equal(bytes.error_type, "InvalidAddress");
    } finally {
      await h.close();
    }

    const t = truth(FILE);
    const w = await worker(fixture(FILE));
    try {
      const fns = await ok(w.client, "list_functions", { limit: 10_000 });
      const found = new Map(
        (fns.items as { name: string; start: string }[]).map((f) => [f.name, f.start]),
      );
      const expected = t.functions.filter((f) => f.size > 0 && f.name.startsWith("remcp_"));
      assert.ok(expected.length > 5);
      for (const f of expected) assert.equal(found.get(f.name), f.address, f.name);
      assert.equal(found.get("main"), t.functions.find((f) => f.name === "main")!.address);
      const callers = await ok(w.client, "xrefs_to", { address: "remcp_fact", type: "code" });
      const from = callers.items as { function?: string; type: string }[];
      assert.ok(from.some((x) => x.function === "main" && x.type === "call"));
      const callees = await ok(w.client, "xrefs_from", { address: "main", limit: 1000 });
      const names = new Set((callees.items as { to_name?: string }[]).map((x) => x.to_name));
      for (const c of t.direct_calls.main!.filter((c) => c.startsWith("remcp_"))) {
        assert.ok(names.has(c), `main calls ${c}`);
      }
      const strings = await ok(w.client, "list_strings", { filter: "Hello, remcp" });
      assert.equal((strings.items as { address: string }[])[0]?.address, "0x2080");
      const users = await ok(w.client, "find_code_by_string", { pattern: "^Hello, remcp" });
      assert.ok((users.items as { function?: string }[]).length > 0);
      const listing = await ok(w.client, "disassemble_function", { address: "main", limit: 5 });
      assert.equal((listing.items as unknown[]).length, 5);
      assert.equal(listing.has_more, true);
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "rizin: recovers main on a stripped PIE from the entry's __libc_start_main call",
  ignore: skip,
  ...e2e,
  fn: async () => {
    const w = await worker(fixture("elf_x86_64_gcc_O0_stripped"));
    try {
      const r = await ok(w.client, "resolve_address", { address: "main" });
      assert.equal(r.address, "0x11cb");
      const f = await ok(w.client, "get_function", { address: "main" });
      assert.equal(f.start, "0x11cb");
      const e = await ok(w.client, "list_entry_points");
      assert.ok((e.items as { kind: string }[]).some((x) => x.kind === "main"));
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "rizin: a rename goes through rizin, refuses injection and persists across reopen",
  ignore: skip,
  ...e2e,
  fn: async () => {
    const h = await startRemcp({ env: rizinEnv });
    try {
      await ok(h.client, "open_database", { path: fixture(FILE), backend: "rizin" });
      await ok(h.client, "wait_for_analysis", { timeout: 120 });
      const bad = await fails(h.client, "rename", { address: "remcp_fib", name: "x; !id" });
      assert.equal(bad.error_type, "InvalidArgument");
      const r = await ok(h.client, "rename", { address: "remcp_fib", name: "fib_renamed" });
      assert.equal(r.old_name, "remcp_fib");
      assert.equal(r.new_name, "fib_renamed");
      const tricky = 'say "hi"; !id `id` $(id) | cat > /tmp/x @ 0';
      await ok(h.client, "set_comment", { address: "main", comment: tricky });
      await ok(h.client, "close_database", {});
      await ok(h.client, "open_database", { path: fixture(FILE), backend: "rizin" });
      await ok(h.client, "wait_for_analysis", { timeout: 120 });
      const n = await ok(h.client, "list_names", { filter: "^fib_renamed$" });
      assert.equal((n.items as { address: string }[])[0]?.address, "0x194a");
      const d = await ok(h.client, "disassemble", { address: "main", count: 200 });
      assert.ok(
        (d.items as { target_name?: string }[]).some((x) => x.target_name === "fib_renamed"),
      );
      assert.equal((d.items as { comment?: string }[])[0]?.comment, tricky);
      const c = await ok(h.client, "list_comments");
      assert.equal((c.items as { comment: string }[])[0]?.comment, tricky);
    } finally {
      await h.close();
    }
  },
});

Deno.test({
  name: "rizin: raw commands refuse shell escapes and report rizin's errors",
  ignore: skip,
  ...e2e,
  fn: async () => {
    const w = await worker(fixture(FILE), { REMCP_ALLOW_SCRIPTS: "1" });
    try {
      const shell = await fails(w.client, "command", { command: "!id" });
      assert.equal(shell.error_type, "InvalidArgument");
      const piped = await fails(w.client, "command", { command: "afl | sh" });
      assert.equal(piped.error_type, "InvalidArgument");
      const seek = await fails(w.client, "command", { command: "s no_such_flag_here" });
      assert.match(seek.error, /unknown address/);
      const afl = await ok(w.client, "command", { command: "afl~remcp_fact" });
      assert.match(String(afl.output), /remcp_fact/);
      const j = await ok(w.client, "command_json", { command: "afij @ main" });
      assert.equal((j.value as { offset: number }[])[0]?.offset, 0x11cb);
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "rizin: a command that times out kills and restarts rizin, and the call says so",
  ignore: skip,
  ...e2e,
  fn: async () => {
    const w = await worker(fixture(FILE), {
      REMCP_ALLOW_SCRIPTS: "1",
      REMCP_RIZIN_TIMEOUT_MS: "1500",
    });
    try {
      const r = await callTool(w.client, "command", { command: "sleep 5" });
      assert.equal(r.isError, true);
      const e = r.sc as { error_type: string; error: string; detail: { restarted?: boolean } };
      assert.equal(e.error_type, "Timeout");
      assert.equal(e.detail.restarted, true);
      assert.match(e.error, /restarting/);
      await ready(w.client);
      const info = await ok(w.client, "get_database_info");
      assert.equal((info.details as { rizin_restarts?: number }).rizin_restarts, 1);
      const d = await ok(w.client, "disassemble", { address: "main", count: 3 });
      assert.equal((d.items as unknown[]).length, 3);
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "rizin: decompile_function names the engine, or why each engine was skipped",
  ignore: skip,
  ...e2e,
  fn: async () => {
    const w = await worker(fixture(FILE));
    try {
      const r = await callTool(w.client, "decompile_function", { address: "main" });
      if (!r.isError) {
        assert.match(String(r.sc.engine), /pdg|pdd|pdc/);
        assert.ok(String(r.sc.code).length > 0);
      } else {
        const e = r.sc as {
          error_type: string;
          detail: { engines: { command: string; reason: string }[] };
        };
        assert.equal(e.error_type, "Unsupported");
        assert.deepEqual(e.detail.engines.map((x) => x.command), ["pdg", "pdd", "pdc"]);
        for (const x of e.detail.engines) assert.ok(x.reason.length > 0);
      }
    } finally {
      await w.close();
    }
  },
});
