/**
 * End-to-end: the daemon (`remcp serve`), the stdio proxy that starts and reuses it, and
 * `remcp stop`, as real processes on loopback. Every test has its own state folder and stops
 * every daemon it started.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fixture, type Harness, ok, repoPath, runRemcpCommand, startRemcp } from "./_harness.ts";
import { processAlive } from "../src/daemon/state.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ELF = fixture("elf_x86_64_gcc_O2");
const LINUX = Deno.build.os === "linux";

interface DaemonFile {
  host: string;
  port: number;
  token: string;
  pid: number;
  version: string;
  started: string;
}

/** A fresh state folder. */
function stateDir(): Promise<string> {
  return Deno.makeTempDir({ prefix: "remcp-daemon-test-" });
}

/** `remcp proxy` under the official client, in `dir`. */
function startProxy(
  dir: string,
  opts: { era?: "legacy" | "2026-07-28"; env?: Record<string, string> } = {},
): Promise<Harness> {
  return startRemcp({
    args: ["proxy"],
    stateDir: dir,
    era: opts.era ?? "legacy",
    env: { REMCP_LOG_LEVEL: "error", ...opts.env },
  });
}

async function readDaemonFile(dir: string): Promise<DaemonFile | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(`${dir}/daemon.json`)) as DaemonFile;
  } catch {
    return undefined;
  }
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits for a `remcp serve` started by hand to write its state file; a loaded machine is slow. */
async function serveStarted(dir: string): Promise<DaemonFile> {
  await waitFor("daemon.json", async () => (await readDaemonFile(dir)) !== undefined, 60_000);
  return (await readDaemonFile(dir))!;
}

/** Pids of `remcp serve` processes using state folder `dir` (Linux: read from /proc). */
function daemonPids(dir: string): number[] {
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const env = Deno.readTextFileSync(`/proc/${e.name}/environ`).split("\0");
      if (!env.includes(`REMCP_STATE_DIR=${dir}`)) continue;
      const argv = Deno.readTextFileSync(`/proc/${e.name}/cmdline`).split("\0");
      if (argv.includes("serve")) pids.push(Number(e.name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

/** Stops every daemon of `dir` and removes the folder. */
async function cleanup(dir: string): Promise<void> {
  const pids = new Set<number>(LINUX ? daemonPids(dir) : []);
  const file = await readDaemonFile(dir);
  if (file) pids.add(file.pid);
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  await waitFor("daemons to exit", () => [...pids].every((p) => !processAlive(p)), 10_000).catch(
    () => {
      for (const pid of pids) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    },
  );
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

async function health(file: DaemonFile): Promise<Record<string, unknown>> {
  const r = await fetch(`http://127.0.0.1:${file.port}/remcp/health`, {
    headers: { authorization: `Bearer ${file.token}` },
  });
  assert.equal(r.status, 200);
  return await r.json();
}

/** `remcp serve` with state folder `dir`, started by hand. */
function spawnServe(
  dir: string,
  stderr: "null" | "piped",
  flags: string[] = [],
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", repoPath("deno.json"), repoPath("src/main.ts")]
      .concat("serve", ...flags),
    env: { REMCP_STATE_DIR: dir, REMCP_LOG_LEVEL: "error" },
    stdin: "null",
    stdout: "null",
    stderr,
  }).spawn();
}

/** Runs `remcp <args>` to completion with `dir` as state folder. */
function runRemcp(dir: string, args: string[]) {
  return runRemcpCommand(args, dir);
}

/** A 2025-era `tools/call` POSTed straight to the daemon (the fast path's shape). */
function postToolCall(
  file: DaemonFile,
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`http://127.0.0.1:${file.port}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${file.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
    ...(signal ? { signal } : {}),
  });
}

/** One raw HTTP/1.1 request, so that tests can send any Host header. */
async function rawRequest(port: number, lines: string[]): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode([...lines, "Connection: close", "", ""].join("\r\n")),
    );
    const buf = new Uint8Array(256);
    const n = await conn.read(buf);
    const status = /^HTTP\/1\.1 (\d{3})/.exec(new TextDecoder().decode(buf.subarray(0, n ?? 0)));
    return Number(status?.[1] ?? 0);
  } finally {
    conn.close();
  }
}

Deno.test("proxy starts a detached daemon; a second proxy (2026 era) reuses it", e2e, async () => {
  const dir = await stateDir();
  try {
    const a = await startProxy(dir, { era: "legacy" });
    const file = await readDaemonFile(dir);
    assert.ok(file, "daemon.json written");
    assert.ok(processAlive(file.pid));
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(`${dir}/daemon.json`)).mode! & 0o777, 0o600);
      assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    }
    if (LINUX) {
      // Its own session: a terminal hang-up or the proxy's process group does not reach it.
      const sid = Deno.readTextFileSync(`/proc/${file.pid}/stat`).split(") ")[1]!.split(" ")[3];
      assert.equal(Number(sid), file.pid, "the daemon leads its own session");
    }
    assert.equal((await ok(a.client, "list_backends")).default, "embedded");
    assert.match(a.client.getInstructions() ?? "", /open_database/);

    const b = await startProxy(dir, { era: "2026-07-28" });
    const names = (await b.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("open_database"));
    assert.equal((await ok(b.client, "list_backends")).default, "embedded");
    assert.equal((await readDaemonFile(dir))?.pid, file.pid, "the same daemon");
    await waitFor("both proxies to attach", async () => (await health(file)).sessions === 2);
    await a.close();
    await b.close();
    await waitFor("sessions to detach", async () => (await health(file)).sessions === 0);
    assert.ok(processAlive(file.pid), "the daemon outlives its proxies");
  } finally {
    await cleanup(dir);
  }
});

Deno.test("workers survive a killed proxy; a new proxy sees the database", e2e, async () => {
  const dir = await stateDir();
  try {
    const a = await startProxy(dir);
    const opened = await ok(a.client, "open_database", { path: ELF });
    await ok(a.client, "wait_for_analysis", { database: opened.database });
    const file = (await readDaemonFile(dir))!;
    const proxyPid = a.transport.pid!;
    Deno.kill(proxyPid, "SIGKILL");
    await a.close();
    // The killed proxy's attach stream broke: the daemon let go of its session at once.
    await waitFor("the killed proxy to detach", async () => (await health(file)).sessions === 0);

    const b = await startProxy(dir);
    try {
      const list = await ok(b.client, "list_databases");
      const items = list.items as { database: string; state: string }[];
      assert.deepEqual(items.map((d) => d.database), [opened.database]);
      assert.equal(items[0]!.state, "ready");
      const info = await ok(b.client, "get_database_info", {});
      assert.ok(info);
      // Progress notes travel back through the proxy's SSE relay.
      const progress: number[] = [];
      const r = await b.client.callTool({
        name: "batch",
        arguments: {
          calls: [{ tool: "get_database_info" }, { tool: "list_sections" }, {
            tool: "get_database_info",
          }],
        },
      }, { onprogress: (p) => progress.push(p.progress) });
      assert.equal((r.structuredContent as { completed: number }).completed, 3);
      assert.ok(progress.length >= 1, "progress notifications relayed");
    } finally {
      await b.close();
    }
  } finally {
    await cleanup(dir);
  }
});

Deno.test("ten proxies started at once share exactly one daemon", e2e, async () => {
  const dir = await stateDir();
  try {
    const proxies = await Promise.all(Array.from({ length: 10 }, () => startProxy(dir)));
    try {
      const answers = await Promise.all(proxies.map((p) => ok(p.client, "list_backends")));
      assert.equal(answers.filter((a) => a.default === "embedded").length, 10);
      const file = (await readDaemonFile(dir))!;
      await waitFor("ten attachments", async () => (await health(file)).sessions === 10);
      if (LINUX) assert.deepEqual(daemonPids(dir), [file.pid]);
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
    }
  } finally {
    await cleanup(dir);
  }
});

Deno.test(
  "the daemon refuses a missing or wrong token (401) and rebinding pages (403)",
  e2e,
  async () => {
    const dir = await stateDir();
    const child = spawnServe(dir, "null");
    try {
      const file = await serveStarted(dir);
      assert.equal(file.pid, child.pid);
      assert.match(file.token, /^[0-9a-f]{64}$/);
      if (Deno.build.os !== "windows") {
        assert.equal((await Deno.stat(`${dir}/daemon.json`)).mode! & 0o777, 0o600);
      }
      const url = `http://127.0.0.1:${file.port}`;
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      const post = (headers: Record<string, string>) =>
        fetch(`${url}/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
          body,
        });
      const none = await post({});
      assert.equal(none.status, 401);
      await none.body?.cancel();
      const wrong = await post({ authorization: `Bearer ${"0".repeat(64)}` });
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();
      const hostileOrigin = await post({
        authorization: `Bearer ${file.token}`,
        origin: "http://evil.example",
      });
      assert.equal(hostileOrigin.status, 403);
      await hostileOrigin.body?.cancel();
      // fetch always sends the real Host; a rebinding page's request carries its own name.
      const hostileHost = await rawRequest(file.port, [
        "GET /remcp/health HTTP/1.1",
        "Host: evil.example",
        `Authorization: Bearer ${file.token}`,
      ]);
      assert.equal(hostileHost, 403);
      const goodHost = await rawRequest(file.port, [
        "GET /remcp/health HTTP/1.1",
        `Host: localhost:${file.port}`,
        `Authorization: Bearer ${file.token}`,
      ]);
      assert.equal(goodHost, 200);
      const good = await post({ authorization: `Bearer ${file.token}` });
      assert.equal(good.status, 200);
      assert.match(await good.text(), /open_database/);

      // A second `serve` refuses to start beside a live one.
      const second = await runRemcp(dir, ["serve"]);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /already running/);
      // A non-loopback address needs --allow-remote.
      const remote = await runRemcp(dir, ["serve", "--host", "0.0.0.0"]);
      assert.equal(remote.code, 2);
      assert.match(remote.stderr, /--allow-remote/);
      const stopped = await runRemcp(dir, ["stop"]);
      assert.equal(stopped.code, 0);
      assert.equal((await child.status).code, 0);
      assert.equal(await readDaemonFile(dir), undefined, "state file removed on shutdown");
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // Exited already.
      }
      await cleanup(dir);
    }
  },
);

Deno.test("an auto-started daemon exits after its idle timeout", e2e, async () => {
  const dir = await stateDir();
  try {
    const a = await startProxy(dir, { env: { REMCP_IDLE_TIMEOUT: "2" } });
    await ok(a.client, "open_database", { path: ELF });
    const file = (await readDaemonFile(dir))!;
    // Attached, the daemon does not idle out however long the client is quiet.
    await new Promise((r) => setTimeout(r, 2500));
    assert.ok(processAlive(file.pid), "still running while a proxy is attached");
    await a.close();
    const closedAt = Date.now();
    await waitFor("the idle daemon to exit", () => !processAlive(file.pid), 8000);
    const took = Date.now() - closedAt;
    assert.ok(took >= 1500, `exited after ${took} ms, not before the 2 s timeout`);
    assert.equal(await readDaemonFile(dir), undefined, "state file removed");
  } finally {
    await cleanup(dir);
  }
});

Deno.test("stop shuts the daemon down gracefully, and says when none runs", e2e, async () => {
  const dir = await stateDir();
  try {
    const a = await startProxy(dir);
    await ok(a.client, "list_backends");
    await a.close();
    const file = (await readDaemonFile(dir))!;
    const stopped = await runRemcp(dir, ["stop"]);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, new RegExp(`Stopped the remcp daemon \\(pid ${file.pid}`));
    assert.ok(!processAlive(file.pid));
    assert.equal(await readDaemonFile(dir), undefined);
    const again = await runRemcp(dir, ["stop"]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /No remcp daemon is running/);
  } finally {
    await cleanup(dir);
  }
});

Deno.test(
  "a SIGKILLed daemon's stale state file is replaced, even under a live proxy",
  e2e,
  async () => {
    const dir = await stateDir();
    try {
      const a = await startProxy(dir);
      await ok(a.client, "list_backends");
      const first = (await readDaemonFile(dir))!;
      Deno.kill(first.pid, "SIGKILL");
      await waitFor("the daemon to die", () => !processAlive(first.pid));
      // The connected proxy finds the daemon gone and starts a new one for its next request.
      assert.equal((await ok(a.client, "list_backends")).default, "embedded");
      const second = (await readDaemonFile(dir))!;
      assert.notEqual(second.pid, first.pid);
      assert.notEqual(second.token, first.token);
      await a.close();

      // With no proxy left, a killed daemon's file stays behind, stale, until a proxy comes.
      Deno.kill(second.pid, "SIGKILL");
      await waitFor("the daemon to die", () => !processAlive(second.pid));
      assert.equal((await readDaemonFile(dir))?.pid, second.pid, "the stale file is left behind");
      const b = await startProxy(dir);
      try {
        assert.equal((await ok(b.client, "list_backends")).default, "embedded");
        const third = (await readDaemonFile(dir))!;
        assert.ok(third.pid !== first.pid && third.pid !== second.pid);
        assert.ok(processAlive(third.pid));
      } finally {
        await b.close();
      }
    } finally {
      await cleanup(dir);
    }
  },
);

Deno.test("remcp serve answers requests without a warning on stderr", e2e, async () => {
  const dir = await stateDir();
  const child = spawnServe(dir, "piped");
  try {
    const file = await serveStarted(dir);
    const r = await postToolCall(file, { name: "list_databases", arguments: {} });
    assert.equal(r.status, 200);
    await r.body?.cancel();
    assert.equal((await health(file)).ok ?? true, true);
  } finally {
    child.kill("SIGTERM");
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.doesNotMatch(stderr, /request\.signal|legacy/, stderr);
    await cleanup(dir);
  }
});

const LOOP = { name: "execute", arguments: { code: "for (;;) {}", timeout_s: 600 } };

/**
 * Starts `execute` of an endless loop over HTTP and returns how to leave: on the 2026 era the v2
 * client aborts its request's stream (the era's cancellation); a 2025-era client here drops its
 * POST, as the proxy does on `notifications/cancelled` (stateless HTTP cannot route that note).
 */
async function startEndlessCall(
  file: DaemonFile,
  era: "2025-06-18" | "2026-07-28",
): Promise<{ leave(): Promise<void> }> {
  const abort = new AbortController();
  if (era === "2025-06-18") {
    const call = postToolCall(file, LOOP, abort.signal)
      .then((r) => r.text())
      .catch((err: unknown) => err);
    return {
      async leave() {
        abort.abort();
        await call;
      },
    };
  }
  const client = new Client(
    { name: "remcp-test", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: era } } } as never,
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${file.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${file.token}` } },
    }),
  );
  const call = client.callTool(LOOP, { signal: abort.signal, timeout: 700_000 })
    .catch((err: unknown) => err);
  return {
    async leave() {
      abort.abort();
      await call;
      await client.close();
    },
  };
}

for (const era of ["2026-07-28", "2025-06-18"] as const) {
  Deno.test(`an HTTP call whose client leaves is cancelled (${era} era)`, e2e, async () => {
    const dir = await stateDir();
    const child = spawnServe(dir, "null");
    try {
      const file = await serveStarted(dir);
      const call = await startEndlessCall(file, era);
      await waitFor("the call to start", async () => (await health(file)).calls_in_flight === 1);
      await call.leave();
      // Bounded well below the script's own 600 s limit: only a cancellation ends it.
      await waitFor(
        "the abandoned call to end",
        async () => (await health(file)).calls_in_flight === 0,
        60_000,
      );
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await cleanup(dir);
    }
  });
}

/** Reads `conn` until the server closes it; false if it is still open after `ms`. */
async function closedWithin(conn: Deno.Conn, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  const buf = new Uint8Array(4096);
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => {
      timer = setTimeout(() => r("late"), Math.max(0, deadline - Date.now()));
    });
    const n = await Promise.race([conn.read(buf).catch(() => null), late]);
    clearTimeout(timer);
    if (n === null) return true;
    if (n === "late") return false;
  }
}

Deno.test(
  "silent connections are closed after --connection-timeout; live calls stay",
  e2e,
  async () => {
    const dir = await stateDir();
    const child = spawnServe(dir, "null", ["--connection-timeout", "1"]);
    const conns: Deno.Conn[] = [];
    try {
      const file = await serveStarted(dir);
      const connect = async () => {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: file.port });
        conns.push(conn);
        return conn;
      };
      // Half a request, then silence (a half-open client, or a slow one that stopped).
      const partial = await connect();
      await partial.write(new TextEncoder().encode(`GET /remcp/health HTTP/1.1\r\nHost: 127.0`));
      // Connected and never a byte.
      const silent = await connect();
      // A finished request on a kept-alive connection.
      const kept = await connect();
      await kept.write(
        new TextEncoder().encode(
          `GET /remcp/health HTTP/1.1\r\nHost: 127.0.0.1:${file.port}\r\n` +
            `Authorization: Bearer ${file.token}\r\n\r\n`,
        ),
      );
      // Bounded far above the 1 s timeout, far below the minutes such connections lived before.
      for (
        const [what, conn] of [["partial", partial], ["silent", silent], ["kept", kept]] as const
      ) {
        assert.ok(await closedWithin(conn, 30_000), `the ${what} connection was closed`);
      }

      // A call that runs for 3 s on one connection is not idle: its answer streams heartbeats.
      const busy = "const t = Date.now(); while (Date.now() - t < 3000) {} 'done'";
      const r = await postToolCall(file, { name: "execute", arguments: { code: busy } });
      assert.equal(r.status, 200);
      assert.match(await r.text(), /done/);
      // With a progress token the fast path streams from the start; no progress comes, and its
      // heartbeats keep the connection.
      const streamed = await postToolCall(file, {
        name: "execute",
        arguments: { code: busy },
        _meta: { progressToken: "p" },
      });
      assert.equal(streamed.headers.get("content-type"), "text/event-stream");
      assert.match(await streamed.text(), /done/);
    } finally {
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // Closed by the daemon.
        }
      }
      child.kill("SIGTERM");
      await child.status;
      await cleanup(dir);
    }
  },
);
