/**
 * Routing overhead: median latency of a trivial tool call made (a) directly to a worker over its
 * own stdio and (b) through the supervisor, 2,000 calls each, in one run. Prints both and the
 * ratio (target: the supervisor hop adds at most 50%).
 *
 *   deno run -A bench/routing.ts [calls]
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fixture, ok, remcpArgs, startRemcp } from "../tests/_harness.ts";

const CALLS = Number(Deno.args[0] ?? 2000);
const FILE = fixture("elf_x86_64_gcc_O2");

async function timeCalls(client: Client, args: Record<string, unknown>): Promise<number[]> {
  for (let i = 0; i < 50; i++) {
    await client.callTool({ name: "get_database_info", arguments: args });
  }
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await client.callTool({ name: "get_database_info", arguments: args });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))]!;

// (a) direct: the worker is a complete MCP server on its own.
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: remcpArgs(["worker", "--backend", "embedded", FILE]),
  env: { ...Deno.env.toObject(), REMCP_LOG_LEVEL: "error" },
  stderr: "ignore",
});
const direct = new Client({ name: "bench", version: "0" });
await direct.connect(transport);
// Let the worker finish loading.
for (let i = 0; i < 100; i++) {
  const r = await direct.callTool({ name: "_status", arguments: {} });
  if ((r.structuredContent as { state: string }).state === "ready") break;
  await new Promise((r) => setTimeout(r, 50));
}
const a = await timeCalls(direct, {});
await direct.close();

// (b) through the supervisor.
const h = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" } });
const opened = await ok(h.client, "open_database", { path: FILE });
await ok(h.client, "wait_for_analysis", {});
const b = await timeCalls(h.client, { database: opened.database });
await h.close();

const ma = pct(a, 0.5);
const mb = pct(b, 0.5);
console.log(`routing: ${CALLS} calls of get_database_info each`);
console.log("path                 median ms   p99 ms");
console.log(`direct to worker     ${ma.toFixed(3).padStart(9)}   ${pct(a, 0.99).toFixed(3)}`);
console.log(`through supervisor   ${mb.toFixed(3).padStart(9)}   ${pct(b, 0.99).toFixed(3)}`);
console.log(`ratio supervisor/direct: ${(mb / ma).toFixed(2)} (target ≤ 1.50)`);
