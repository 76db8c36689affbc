/**
 * Routing overhead: a trivial tool call (`get_database_info`) made (a) directly to a worker over
 * its own stdio and (b) through the supervisor, in one run, round by round interleaved so that a
 * busy machine's drift hits every way alike. Each pair runs per client transport: pipes (as a
 * Deno or Python host gives, and this project's tests) and Unix sockets (as a host on Node.js
 * gives: its child_process hands the child a socket pair per stream), and per server stdio
 * (`REMCP_STDIO`: `auto` serves both on the event loop, `stream` is Deno's stdio, the reference
 * before that). Prints the median per call (median of the rounds' medians), the ratio per pair
 * (target: the supervisor hop adds at most 50%), and on Linux the CPU each process spends per
 * call (/proc) and how often each process's main thread went to sleep per call (voluntary context
 * switches: each is a wake-up later). `--base DIR[,DIR…]` adds a routed way per client and stdio
 * served by the checkout at each DIR (a `git worktree` of another commit), so versions of the
 * supervisor are compared in one run. `bench/hop_floor.ts` measures the same hop with no MCP work.
 *
 *   deno run -A bench/routing.ts [--calls 500] [--rounds 7] [--client pipe,socket]
 *     [--stdio auto,stream] [--base DIR[,DIR…]]
 */
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { processCpuMs, processSleeps } from "./_cpu.ts";
import type { Client } from "@modelcontextprotocol/client";
import { fixture, ok, startRemcp } from "../tests/_harness.ts";
import { startRemcpOnSockets } from "../tests/_socket_stdio.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "500" },
    rounds: { type: "string", default: "7" },
    client: { type: "string", default: "pipe,socket" },
    stdio: { type: "string", default: "auto,stream" },
    base: { type: "string" },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const CLIENTS = values.client.split(",").filter((c) => c !== "");
const STDIOS = values.stdio.split(",").filter((c) => c !== "");
const FILE = fixture("elf_x86_64_gcc_O2");
const linux = Deno.build.os === "linux";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A size field of /proc/PID/status (VmRSS, VmHWM), in MiB. */
function statusMib(pid: number, field: string): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
}

/** The worker a supervisor started for the file: its busiest child. */
function busiestChild(pid: number): number {
  const kids: number[] = [];
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    const c = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/children`).trim();
    if (c) kids.push(...c.split(" ").map(Number));
  }
  return kids.map((k) => [k, processCpuMs(k)] as const).sort((a, b) => b[1] - a[1])[0]![0];
}

interface Way {
  name: string;
  client: Client;
  args: Record<string, unknown>;
  /** Processes whose CPU is counted: the server the client talks to, then its worker if any. */
  pids: number[];
  close(): Promise<unknown>;
  wall: number[];
  cpu: number[][];
  /** Per round: the main thread's sleeps per call of each process in `pids`, then every thread's. */
  sleeps: number[][];
  /** The server's resident MiB after each round, then its peak, when the run ended. */
  rss: number[];
  peakRss?: number;
}

/** A server started with `args`, its client over `client`: the client and the server's pid. */
async function serve(
  args: string[],
  client: string,
  env: Record<string, string>,
  root?: string,
): Promise<{ client: Client; pid: number; close(): Promise<unknown> }> {
  if (client === "socket") {
    const h = await startRemcpOnSockets({ args, env, ...(root ? { root } : {}) });
    return { client: h.client, pid: h.child.pid, close: h.close };
  }
  const h = await startRemcp({ args, env, ...(root ? { root } : {}) });
  return { client: h.client, pid: h.transport.pid!, close: h.close };
}

const ways: Way[] = [];
const env = { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" };
for (const client of CLIENTS) {
  for (const stdio of STDIOS) {
    // (a) direct: the worker is a complete MCP server on its own.
    const direct = await serve(
      ["worker", "--backend", "embedded", FILE],
      client,
      { ...env, REMCP_STDIO: stdio },
    );
    for (let i = 0; i < 100; i++) {
      const r = await direct.client.callTool({ name: "_status", arguments: {} });
      if ((r.structuredContent as { state: string }).state === "ready") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const tag = `${client}, stdio ${stdio}`;
    ways.push({
      name: `direct (${tag})`,
      client: direct.client,
      args: {},
      pids: linux ? [direct.pid] : [],
      close: direct.close,
      wall: [],
      cpu: [],
      sleeps: [],
      rss: [],
    });
    // (b) through the supervisor, and through the other checkout's when asked.
    for (const root of [undefined, ...(values.base?.split(",").filter((b) => b !== "") ?? [])]) {
      const routed = await serve([], client, { ...env, REMCP_STDIO: stdio }, root);
      const opened = await ok(routed.client, "open_database", { path: FILE });
      await ok(routed.client, "wait_for_analysis", {});
      ways.push({
        name: `${root ? `via ${basename(root)}` : "routed"} (${tag})`,
        client: routed.client,
        args: { database: opened.database },
        pids: linux ? [routed.pid, busiestChild(routed.pid)] : [],
        close: routed.close,
        wall: [],
        cpu: [],
        sleeps: [],
        rss: [],
      });
    }
  }
}
try {
  for (let round = -1; round < ROUNDS; round++) {
    // Each round starts one way later, so no way always follows the same one.
    const start = Math.max(round, 0) % ways.length;
    for (const way of [...ways.slice(start), ...ways.slice(0, start)]) {
      const c0 = way.pids.map(processCpuMs);
      const s0 = way.pids.map(processSleeps);
      const me0 = process.cpuUsage();
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        await way.client.callTool({ name: "get_database_info", arguments: way.args });
        times.push(performance.now() - t0);
      }
      if (round < 0) continue; // warm-up
      const me = process.cpuUsage(me0);
      way.wall.push(median(times));
      way.cpu.push([
        (me.user + me.system) / 1000 / CALLS,
        ...way.pids.map((p, i) => (processCpuMs(p) - c0[i]!) / CALLS),
      ]);
      if (linux) way.rss.push(statusMib(way.pids[0]!, "VmRSS"));
      const s1 = way.pids.map(processSleeps);
      way.sleeps.push([
        ...s1.map((s, i) => (s.main - s0[i]!.main) / CALLS),
        ...s1.map((s, i) => (s.all - s0[i]!.all) / CALLS),
      ]);
    }
  }
  if (linux) { for (const way of ways) way.peakRss = statusMib(way.pids[0]!, "VmHWM"); }
} finally {
  for (const way of ways) await way.close().catch(() => {});
}

const names = (w: Way) => w.pids.length === 2 ? ["supervisor", "worker"] : ["worker"];
const cpuText = (w: Way) =>
  ["client", ...names(w)]
    .map((n, i) => `${n} ${median(w.cpu.map((r) => r[i]!)).toFixed(3)}`).join(", ");
const sleepText = (w: Way) =>
  names(w).map((n, i) =>
    `${n} ${median(w.sleeps.map((r) => r[i]!)).toFixed(2)}` +
    ` (all threads ${median(w.sleeps.map((r) => r[i + w.pids.length]!)).toFixed(2)})`
  ).join(", ");
console.log(`routing: get_database_info, median of ${ROUNDS} rounds of ${CALLS} calls (ms)`);
for (const way of ways) {
  console.log(
    `${way.name.padEnd(34)} ${median(way.wall).toFixed(3).padStart(7)}` +
      (linux
        ? `   CPU ms per call: ${cpuText(way)}; sleeps per call: ${sleepText(way)}; ` +
          `server MiB per round ${way.rss.map((r) => r.toFixed(0)).join(" ")}, ` +
          `peak ${way.peakRss?.toFixed(0)}`
        : ""),
  );
}
let direct: Way | undefined;
for (const way of ways) {
  if (way.name.startsWith("direct")) direct = way;
  else if (direct) {
    const ratio = median(way.wall) / median(direct.wall);
    console.log(`ratio ${way.name}: ${ratio.toFixed(2)} (target ≤ 1.50)`);
  }
}
