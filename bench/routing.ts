/**
 * Routing overhead: a trivial tool call (`get_database_info`) made (a) directly to a worker over
 * its own stdio and (b) through the supervisor, in one run, round by round interleaved so that a
 * busy machine's drift hits every way alike. Each pair runs per client transport: pipes (as a
 * Deno or Python host gives, and this project's tests) and Unix sockets (as a host on Node.js
 * gives: its child_process hands the child a socket pair per stream), and per server stdio
 * (`REMCP_STDIO`: `auto` serves both on the event loop, `stream` is Deno's stdio, the reference
 * before that). Prints the median per call (median of the rounds' medians), the ratio per pair
 * (target: the supervisor hop adds at most 50%), and on Linux the CPU each process spends per
 * call (/proc). `bench/hop_floor.ts` measures the same hop with no MCP work.
 *
 *   deno run -A bench/routing.ts [--calls 500] [--rounds 7] [--client pipe,socket]
 *     [--stdio auto,stream]
 */
import { parseArgs } from "node:util";
import { processCpuMs } from "./_cpu.ts";
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
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const CLIENTS = values.client.split(",").filter((c) => c !== "");
const STDIOS = values.stdio.split(",").filter((c) => c !== "");
const FILE = fixture("elf_x86_64_gcc_O2");
const linux = Deno.build.os === "linux";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
}

/** A server started with `args`, its client over `client`: the client and the server's pid. */
async function serve(
  args: string[],
  client: string,
  env: Record<string, string>,
): Promise<{ client: Client; pid: number; close(): Promise<unknown> }> {
  if (client === "socket") {
    const h = await startRemcpOnSockets({ args, env });
    return { client: h.client, pid: h.child.pid, close: h.close };
  }
  const h = await startRemcp({ args, env });
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
    // (b) through the supervisor.
    const routed = await serve([], client, { ...env, REMCP_STDIO: stdio });
    const opened = await ok(routed.client, "open_database", { path: FILE });
    await ok(routed.client, "wait_for_analysis", {});
    const tag = `${client}, stdio ${stdio}`;
    ways.push({
      name: `direct (${tag})`,
      client: direct.client,
      args: {},
      pids: linux ? [direct.pid] : [],
      close: direct.close,
      wall: [],
      cpu: [],
    }, {
      name: `routed (${tag})`,
      client: routed.client,
      args: { database: opened.database },
      pids: linux ? [routed.pid, busiestChild(routed.pid)] : [],
      close: routed.close,
      wall: [],
      cpu: [],
    });
  }
}
try {
  for (let round = -1; round < ROUNDS; round++) {
    // Each round starts one way later, so no way always follows the same one.
    const start = Math.max(round, 0) % ways.length;
    for (const way of [...ways.slice(start), ...ways.slice(0, start)]) {
      const c0 = way.pids.map(processCpuMs);
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
    }
  }
} finally {
  for (const way of ways) await way.close().catch(() => {});
}

const cpuText = (w: Way) =>
  ["client", ...(w.pids.length === 2 ? ["supervisor", "worker"] : ["worker"])]
    .map((n, i) => `${n} ${median(w.cpu.map((r) => r[i]!)).toFixed(3)}`).join(", ");
console.log(`routing: get_database_info, median of ${ROUNDS} rounds of ${CALLS} calls (ms)`);
for (const way of ways) {
  console.log(
    `${way.name.padEnd(34)} ${median(way.wall).toFixed(3).padStart(7)}` +
      (linux ? `   CPU ms per call: ${cpuText(way)}` : ""),
  );
}
for (let i = 0; i + 1 < ways.length; i += 2) {
  const [d, r] = [ways[i]!, ways[i + 1]!];
  const ratio = median(r.wall) / median(d.wall);
  console.log(`ratio ${r.name.slice(7)}: ${ratio.toFixed(2)} (target ≤ 1.50)`);
}
