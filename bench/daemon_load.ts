/**
 * Daemon load: 8 concurrent MCP clients over streamable HTTP (the SDK's
 * StreamableHTTPClientTransport with the bearer token), each making 500 mixed calls
 * (list_databases, get_database_info, list_sections, search_text) on two databases, against one
 * `remcp serve` on loopback. Prints throughput, p50/p99 latency and errors (must be 0), then the
 * latency of one call made one at a time over HTTP, through `remcp proxy`, and over plain stdio
 * — measured in the same run — and their ratios to stdio.
 *
 *   deno run -A bench/daemon_load.ts [clients] [calls-per-client]
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fixture, ok, remcpArgs, startRemcp } from "../tests/_harness.ts";

const CLIENTS = Number(Deno.args[0] ?? 8);
const CALLS = Number(Deno.args[1] ?? 500);
const SERIAL = 500;
/** The whole load phase must finish within this, or the run fails. */
const LOAD_DEADLINE_MS = 120_000;
const FILES = [fixture("elf_x86_64_gcc_O2"), fixture("pe_x86_64_O2.exe")];

interface DaemonFile {
  port: number;
  token: string;
  pid: number;
}

const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
const ms = (v: number) => v.toFixed(3).padStart(9);

async function httpClient(file: DaemonFile, session: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://127.0.0.1:${file.port}/mcp`),
    {
      requestInit: {
        headers: { authorization: `Bearer ${file.token}`, "x-remcp-session": session },
      },
    },
  );
  const client = new Client({ name: "bench", version: "0" }, {
    versionNegotiation: { mode: "legacy" },
  } as never);
  await client.connect(transport);
  return client;
}

/** The mixed call sequence one client makes. */
function mixedCall(i: number, dbs: string[]): { name: string; arguments: Record<string, unknown> } {
  const database = dbs[i % dbs.length]!;
  switch (i % 4) {
    case 0:
      return { name: "list_databases", arguments: {} };
    case 1:
      return { name: "get_database_info", arguments: { database } };
    case 2:
      return { name: "list_sections", arguments: { database } };
    default:
      return { name: "search_text", arguments: { database, text: "GCC", limit: 5 } };
  }
}

async function timeSerial(client: Client, database: string): Promise<number[]> {
  const call = { name: "get_database_info", arguments: { database } };
  for (let i = 0; i < 50; i++) await client.callTool(call);
  const times: number[] = [];
  for (let i = 0; i < SERIAL; i++) {
    const t0 = performance.now();
    await client.callTool(call);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

const stateDir = await Deno.makeTempDir({ prefix: "remcp-bench-daemon-" });
const env = { REMCP_STATE_DIR: stateDir, REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" };
const daemon = new Deno.Command(Deno.execPath(), {
  args: remcpArgs(["serve"]),
  env,
  stdin: "null",
  stdout: "null",
  stderr: "inherit",
}).spawn();

try {
  let file: DaemonFile | undefined;
  const startDeadline = Date.now() + 30_000;
  while (!file) {
    if (Date.now() > startDeadline) throw new Error("the daemon did not start within 30 s");
    try {
      file = JSON.parse(await Deno.readTextFile(`${stateDir}/daemon.json`)) as DaemonFile;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  const setup = await httpClient(file, "bench-setup");
  const dbs: string[] = [];
  for (const path of FILES) {
    const opened = await ok(setup, "open_database", { path });
    await ok(setup, "wait_for_analysis", { database: opened.database, timeout: 60 });
    dbs.push(opened.database as string);
  }

  // Load: every client makes its calls one after another; the clients run at once.
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) => httpClient(file!, `bench-${i}`)),
  );
  const latencies: number[] = [];
  let errors = 0;
  const firstErrors: string[] = [];
  const deadline = AbortSignal.timeout(LOAD_DEADLINE_MS);
  const t0 = performance.now();
  await Promise.all(clients.map(async (client, c) => {
    for (let i = 0; i < CALLS; i++) {
      if (deadline.aborted) throw new Error(`load did not finish within ${LOAD_DEADLINE_MS} ms`);
      const call = mixedCall(i + c, dbs);
      const s = performance.now();
      try {
        const r = await client.callTool(call, { signal: deadline } as never);
        if (r.isError) {
          errors++;
          if (firstErrors.length < 3) {
            firstErrors.push(`${call.name}: ${JSON.stringify(r.content).slice(0, 200)}`);
          }
        }
      } catch (err) {
        errors++;
        if (firstErrors.length < 3) firstErrors.push(`${call.name}: ${(err as Error).message}`);
      }
      latencies.push(performance.now() - s);
    }
  }));
  const wall = performance.now() - t0;
  latencies.sort((a, b) => a - b);
  await Promise.all(clients.map((c) => c.close()));

  // One call at a time, the same call, over each path.
  const httpSerial = await timeSerial(setup, dbs[0]!);
  await setup.close();
  const proxy = await startRemcp({ args: ["proxy"], stateDir, env });
  const proxySerial = await timeSerial(proxy.client, dbs[0]!);
  await proxy.close();
  const stdio = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" } });
  const sdb = await ok(stdio.client, "open_database", { path: FILES[0]! });
  await ok(stdio.client, "wait_for_analysis", { database: sdb.database });
  const stdioSerial = await timeSerial(stdio.client, sdb.database as string);
  await stdio.close();

  const total = CLIENTS * CALLS;
  console.log(`daemon load: ${CLIENTS} HTTP clients × ${CALLS} mixed calls on 2 databases`);
  console.log(`  calls        ${total} in ${(wall / 1000).toFixed(2)} s`);
  console.log(`  throughput   ${(total / (wall / 1000)).toFixed(0)} calls/s`);
  console.log(
    `  latency      p50 ${pct(latencies, 0.5).toFixed(3)} ms   p99 ${
      pct(latencies, 0.99).toFixed(3)
    } ms   max ${latencies.at(-1)!.toFixed(3)} ms`,
  );
  console.log(`  errors       ${errors}${errors ? ` (e.g. ${firstErrors.join("; ")})` : ""}`);
  console.log("");
  console.log(`one get_database_info at a time, ${SERIAL} calls per path`);
  console.log("path                       p50 ms     p99 ms   ratio p50 to stdio");
  const row = (name: string, s: number[]) =>
    console.log(
      `${name.padEnd(22)} ${ms(pct(s, 0.5))}  ${ms(pct(s, 0.99))}   ${
        (pct(s, 0.5) / pct(stdioSerial, 0.5)).toFixed(2)
      }`,
    );
  row("stdio (reference)", stdioSerial);
  row("HTTP to the daemon", httpSerial);
  row("stdio → proxy → HTTP", proxySerial);
  if (errors > 0) Deno.exitCode = 1;
} finally {
  try {
    daemon.kill("SIGTERM");
  } catch {
    // Exited already.
  }
  await daemon.status;
  await Deno.remove(stateDir, { recursive: true }).catch(() => {});
}
