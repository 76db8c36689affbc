/**
 * Errors through SDK v1 clients, the client most MCP hosts embed. A v1 client caches the output
 * schemas of the tools it lists and checks every result's structured content against them, error
 * results included; a failure must still reach the agent as a tool result whose text is the error
 * object. Each error type is provoked through stdio, the daemon over HTTP and the stdio proxy.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { fixture, repoPath } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ELF = fixture("elf_x86_64_gcc_O2");

/** Every tool listed, so that the client holds an output schema for each tool called. */
const ENV = { REMCP_TOOL_SEARCH: "0", REMCP_LOG_LEVEL: "error" };

/** `remcp ARGS` as a v1 stdio transport with state folder `dir`. */
function stdio(dir: string, args: string[], env: Record<string, string> = {}): Transport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", "--config", repoPath("deno.json"), repoPath("src/main.ts")]
      .concat(args),
    env: { ...Deno.env.toObject(), REMCP_STATE_DIR: dir, ...ENV, ...env },
    stderr: "ignore",
  });
}

/** A v1 client connected over `transport` that has listed the tools (caching their schemas). */
async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "remcp-v1-test", version: "0.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.ok(
    tools.some((t: { name: string; outputSchema?: unknown }) =>
      t.name === "list_functions" && t.outputSchema
    ),
  );
  return client;
}

interface Failure {
  error: string;
  error_type: string;
  detail: Record<string, unknown>;
}

/** Calls a tool that must fail and returns the error object the agent reads in the text. */
async function failure(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Failure> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text?: string }[])[0]?.text ?? "";
  assert.equal(r.isError, true, `${name} should fail but returned ${text}`);
  const payload = JSON.parse(text) as Failure;
  assert.ok(payload.error.length > 0, `${name}: empty message`);
  assert.equal(typeof payload.detail, "object");
  return payload;
}

/** Calls a tool that must succeed and returns its structured content. */
async function success(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  return r.structuredContent as Record<string, unknown>;
}

/** Provokes each error type a ready session can meet and checks code and message. */
async function everyError(client: Client): Promise<void> {
  const noDb = await failure(client, "list_functions", {});
  assert.equal(noDb.error_type, "NoDatabase");
  assert.match(noDb.error, /open_database/);

  const missing = await failure(client, "open_database", { path: "/no/such/file/anywhere" });
  assert.equal(missing.error_type, "OpenFailed");
  assert.match(missing.error, /No such file/);

  const badPath = await failure(client, "open_database", { path: 42 });
  assert.equal(badPath.error_type, "InvalidArgument");
  assert.match(badPath.error, /path/);

  const opened = await success(client, "open_database", { path: ELF, force_new: true });
  const database = String(opened.database);
  await success(client, "wait_for_analysis", { database, timeout: 120 });

  const badArg = await failure(client, "list_functions", { database, limit: "many" });
  assert.equal(badArg.error_type, "InvalidArgument");
  assert.match(badArg.error, /limit/);

  const badAddress = await failure(client, "disassemble_function", {
    database,
    address: "no_such_symbol_anywhere",
  });
  assert.equal(badAddress.error_type, "InvalidAddress");
  assert.match(badAddress.error, /no_such_symbol_anywhere/);

  const noTool = await failure(client, "get_schema", { names: ["no_such_tool"] });
  assert.equal(noTool.error_type, "NotFound");
  assert.match(noTool.error, /no_such_tool/);

  const unsupported = await failure(client, "decompile_function", { database, address: "main" });
  assert.equal(unsupported.error_type, "Unsupported");
  assert.match(unsupported.error, /decompil/i);

  const thrown = await failure(client, "execute", { code: "throw new Error('boom in script')" });
  assert.equal(thrown.error_type, "SandboxError");
  assert.match(thrown.error, /boom in script/);

  // A failure of a nested call reaches the agent the same way.
  const nested = await failure(client, "execute", {
    database,
    code: "await invoke('disassemble_function', { address: 'nowhere_at_all' })",
  });
  assert.equal(nested.error_type, "SandboxError");
  assert.match(nested.error, /nowhere_at_all/);

  // Successes still carry structured content the client accepts.
  const page = await success(client, "list_functions", { database, limit: 2 });
  assert.equal((page.items as unknown[]).length, 2);
  await success(client, "close_database", { database });
}

Deno.test("v1 client reads every error type over stdio", e2e, async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-v1-" });
  const client = await connect(stdio(dir, []));
  try {
    await everyError(client);
    const timeout = await failure(client, "execute", { code: "for (;;) {}", timeout_s: 1 });
    assert.equal(timeout.error_type, "SandboxTimeout");
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("v1 client reads Busy and Timeout while a database is analysing", e2e, async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-v1-" });
  // The debugging hold keeps the database analysing for as long as the test needs.
  const client = await connect(stdio(dir, [], { REMCP_DEBUG_ANALYSIS_DELAY_MS: "600000" }));
  try {
    const opened = await success(client, "open_database", { path: ELF });
    const database = String(opened.database);
    const busy = await failure(client, "list_functions", { database });
    assert.equal(busy.error_type, "Busy");
    const timeout = await failure(client, "wait_for_analysis", { database, timeout: 0.2 });
    assert.equal(timeout.error_type, "Timeout");
    assert.match(timeout.error, /wait_for_analysis/);
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("v1 client reads every error type through the daemon and the proxy", e2e, async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-v1-" });
  // The proxy starts the daemon; the HTTP client then talks to the same daemon directly.
  const proxy = await connect(stdio(dir, ["proxy"]));
  let pid: number | undefined;
  try {
    const file = JSON.parse(await Deno.readTextFile(`${dir}/daemon.json`)) as {
      port: number;
      token: string;
      pid: number;
    };
    pid = file.pid;
    const http = await connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${file.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${file.token}` } },
      }),
    );
    try {
      await everyError(http);
    } finally {
      await http.close();
    }
    await everyError(proxy);
  } finally {
    await proxy.close();
    if (pid !== undefined) {
      try {
        Deno.kill(pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
