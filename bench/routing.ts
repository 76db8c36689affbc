/**
 * Routing overhead: a trivial tool call (`get_database_info`) made (a) directly to a worker over
 * its own stdio and (b) through the supervisor, in one run, round by round interleaved so that a
 * busy machine's drift hits both alike. Prints the median per call (median of the rounds'
 * medians), the ratio (target: the supervisor hop adds at most 50%), and on Linux the CPU each
 * process spends per call (/proc). `bench/hop_floor.ts` measures the same hop with no MCP work.
 *
 *   deno run -A bench/routing.ts [calls per round] [rounds]
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fixture, ok, remcpArgs, startRemcp } from "../tests/_harness.ts";

const CALLS = Number(Deno.args[0] ?? 500);
const ROUNDS = Number(Deno.args[1] ?? 7);
const FILE = fixture("elf_x86_64_gcc_O2");
const linux = Deno.build.os === "linux";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** CPU time of a process so far, ms (Linux). */
function cpuMs(pid: number): number {
  const s = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** The worker a supervisor started for the file: its busiest child. */
function busiestChild(pid: number): number {
  const kids: number[] = [];
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    const c = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/children`).trim();
    if (c) kids.push(...c.split(" ").map(Number));
  }
  return kids.map((k) => [k, cpuMs(k)] as const).sort((a, b) => b[1] - a[1])[0]![0];
}

interface Way {
  client: Client;
  args: Record<string, unknown>;
  /** Processes whose CPU is counted: the server the client talks to, then its worker if any. */
  pids: number[];
  wall: number[];
  cpu: number[][];
}

// (a) direct: the worker is a complete MCP server on its own.
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: remcpArgs(["worker", "--backend", "embedded", FILE]),
  env: { ...Deno.env.toObject(), REMCP_LOG_LEVEL: "error" },
  stderr: "ignore",
});
const directClient = new Client({ name: "bench", version: "0" });
await directClient.connect(transport);
// Let the worker finish loading.
for (let i = 0; i < 100; i++) {
  const r = await directClient.callTool({ name: "_status", arguments: {} });
  if ((r.structuredContent as { state: string }).state === "ready") break;
  await new Promise((r) => setTimeout(r, 50));
}

// (b) through the supervisor.
const h = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" } });
const opened = await ok(h.client, "open_database", { path: FILE });
await ok(h.client, "wait_for_analysis", {});

const ways: Record<string, Way> = {
  direct: {
    client: directClient,
    args: {},
    pids: linux ? [transport.pid!] : [],
    wall: [],
    cpu: [],
  },
  routed: {
    client: h.client,
    args: { database: opened.database },
    pids: linux ? [h.transport.pid!, busiestChild(h.transport.pid!)] : [],
    wall: [],
    cpu: [],
  },
};
try {
  for (let round = -1; round < ROUNDS; round++) {
    for (const way of Object.values(ways)) {
      const c0 = way.pids.map(cpuMs);
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
        ...way.pids.map((p, i) => (cpuMs(p) - c0[i]!) / CALLS),
      ]);
    }
  }
} finally {
  await directClient.close();
  await h.close();
}

const cpuText = (w: Way, names: string[]) =>
  names.map((n, i) => `${n} ${median(w.cpu.map((r) => r[i]!)).toFixed(3)}`).join(", ");
const ma = median(ways.direct!.wall);
const mb = median(ways.routed!.wall);
console.log(`routing: get_database_info, median of ${ROUNDS} rounds of ${CALLS} calls (ms)`);
console.log(`direct to worker     ${ma.toFixed(3).padStart(7)}`);
console.log(`through supervisor   ${mb.toFixed(3).padStart(7)}`);
console.log(`ratio supervisor/direct: ${(mb / ma).toFixed(2)} (target ≤ 1.50)`);
if (linux) {
  console.log(`CPU ms per call, direct: ${cpuText(ways.direct!, ["client", "worker"])}`);
  console.log(
    `CPU ms per call, routed: ${cpuText(ways.routed!, ["client", "supervisor", "worker"])}`,
  );
}
