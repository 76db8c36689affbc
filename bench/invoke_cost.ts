/**
 * Where an invoke's time goes, in one process: the dispatcher called directly (no client, no
 * sandbox) against the same call made N times from one `execute` script, against N calls from a
 * real stdio client. Prints medians in ms per call and the ratios.
 *
 *   deno run -A bench/invoke_cost.ts [binary] [N]
 */
import { fixture, startRemcp } from "../tests/_harness.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger, stderrSink } from "../src/log.ts";
import { createSupervisor } from "../src/supervisor/create.ts";
import type { CallContext } from "../src/supervisor/host.ts";

const FILE = Deno.args[0] ?? fixture("elf_x86_64_gcc_O2");
const N = Number(Deno.args[1] ?? 200);
const REPS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function perCall(f: () => Promise<unknown>): Promise<number> {
  await f();
  const xs: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    await f();
    xs.push((performance.now() - t0) / N);
  }
  return median(xs);
}

const stateDir = await Deno.makeTempDir({ prefix: "remcp-bench-" });
const config = loadConfig({ REMCP_STATE_DIR: stateDir, REMCP_LOG_LEVEL: "error" });
const sup = createSupervisor(config, createLogger("bench", stderrSink("error", undefined, "b")));
const ctx: CallContext = {
  session: "bench",
  signal: new AbortController().signal,
  progress() {},
  via: "client",
};
const h = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" } });
try {
  await sup.callTool("open_database", { path: FILE }, ctx);
  await sup.callTool("wait_for_analysis", {}, ctx);
  const args = { address: "main", size: 16 };
  const direct = await perCall(async () => {
    for (let i = 0; i < N; i++) await sup.callTool("read_bytes", args, ctx);
  });
  const code = `for (let i = 0; i < ${N}; i++) await invoke("read_bytes", ` +
    `{ address: "main", size: 16 }); 1`;
  const scripted = await perCall(async () => {
    const r = await sup.callTool("execute", { code }, ctx);
    if (r.isError) throw new Error(r.content[0]!.text);
  });
  await h.client.callTool({ name: "open_database", arguments: { path: FILE } });
  await h.client.callTool({ name: "wait_for_analysis", arguments: {} });
  const client = await perCall(async () => {
    for (let i = 0; i < N; i++) {
      await h.client.callTool({ name: "read_bytes", arguments: args });
    }
  });
  console.log(`per call of read_bytes, median of ${REPS} runs of ${N} calls (ms):`);
  console.log(`  dispatcher in-process (worker hop only): ${direct.toFixed(3)}`);
  console.log(`  invoke from one execute script:          ${scripted.toFixed(3)}`);
  console.log(`  stdio client call:                       ${client.toFixed(3)}`);
  console.log(`  sandbox cost per invoke: ${(scripted - direct).toFixed(3)} ms`);
  console.log(`  client calls / invokes: ${(client / scripted).toFixed(2)}x (goal >= 2x)`);
} finally {
  await h.close();
  await sup.shutdown();
  await Deno.remove(stateDir, { recursive: true }).catch(() => {});
}
