/**
 * What an `invoke` costs against a client's call, in one run: N sequential calls of one tool from
 * a real stdio client, against one `execute` (sent by the same client to the same server, sandbox
 * warm) whose script makes the same N calls with `await invoke(...)`, on a server whose sandbox is a
 * thread (`REMCP_SANDBOX=thread`), on one whose sandbox is a process (the default, with invoke
 * lanes) and on a process one without lanes (`REMCP_LANES=0`). Also the
 * split: the dispatcher called in-process (the worker hop alone) and the same script run
 * in-process. Every way is timed round by round, interleaved, so a busy machine's drift hits each
 * alike. Prints medians in ms per call and the ratios (goal: invokes >= 2x faster than client
 * calls).
 *
 * One more way measures a placement the product does not use: the QuickJS engine run on this
 * process's own event loop, its invokes answered by the dispatcher in-process (what an invoke
 * would cost if the guest ran inside the supervisor; docs/ARCHITECTURE.md §7 says why it does not).
 *
 * Before the rounds, every sandbox (the two servers' and the in-process one) runs `WARM` invokes
 * untimed: a new sandbox process spends its first ~1,000 invokes while V8 still compiles QuickJS's
 * WebAssembly with its optimizing tier (docs/ARCHITECTURE.md §7), and the goal is about a warm one.
 *
 *   deno run -A bench/invoke_cost.ts [binary] [N] [tool] [warm invokes, default 2000]
 */
import { fixture, startRemcp } from "../tests/_harness.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger, stderrSink } from "../src/log.ts";
import { createSupervisor } from "../src/supervisor/create.ts";
import type { CallContext } from "../src/supervisor/host.ts";
import { SandboxEngine } from "../src/sandbox/quickjs.ts";
import { resolveLimits } from "../src/sandbox/limits.ts";
import { resultJson } from "../src/protocol/results.ts";

const FILE = Deno.args[0] || fixture("elf_x86_64_gcc_O2");
const N = Number(Deno.args[1] ?? 100);
const TOOL = Deno.args[2] ?? "get_database_info";
const REPS = 9;
const WARM = Number(Deno.args[3] ?? 2000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const stateDir = await Deno.makeTempDir({ prefix: "remcp-bench-" });
const config = loadConfig({ REMCP_STATE_DIR: stateDir, REMCP_LOG_LEVEL: "error" });
const sup = createSupervisor(config, createLogger("bench", stderrSink("error", undefined, "b")));
const ctx: CallContext = {
  session: "bench",
  signal: new AbortController().signal,
  progress() {},
  via: "client",
};
const env = { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" };
const h = await startRemcp({ env: { ...env, REMCP_SANDBOX: "thread" } });
const hp = await startRemcp({ env: { ...env, REMCP_SANDBOX: "process" } });
// The same process sandbox without invoke lanes: every invoke through the supervisor.
const hn = await startRemcp({ env: { ...env, REMCP_SANDBOX: "process", REMCP_LANES: "0" } });
try {
  const opened = await sup.callTool("open_database", { path: FILE }, ctx);
  const database = String(opened.structuredContent?.database);
  await sup.callTool("wait_for_analysis", {}, ctx);
  for (const server of [h, hp, hn]) {
    await server.client.callTool({ name: "open_database", arguments: { path: FILE } });
    await server.client.callTool({ name: "wait_for_analysis", arguments: {} });
  }
  const args = { database };
  const code = `for (let i = 0; i < ${N}; i++) await invoke(${JSON.stringify(TOOL)}, ` +
    `${JSON.stringify(args)}); 1`;
  const engine = await SandboxEngine.load();
  const onThisLoop = async () => {
    const outcome = await engine.run(
      { code, globals: {}, limits: resolveLimits({ cpuMs: 60_000 }) },
      {
        invoke: async (_id, name, argsJson) => {
          const r = await sup.callTool(name, JSON.parse(argsJson), { ...ctx, via: "execute" });
          return { ok: true, valueJson: resultJson(r, name) };
        },
        log() {},
      },
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
  };
  const failed = (r: { isError?: unknown; content: unknown }) => {
    if (r.isError) throw new Error(JSON.stringify(r.content));
  };
  // The ways, interleaved round by round so that a busy machine's drift hits each alike.
  const ways: Record<string, () => Promise<unknown>> = {
    direct: async () => {
      for (let i = 0; i < N; i++) failed(await sup.callTool(TOOL, args, ctx));
    },
    inProcess: async () => failed(await sup.callTool("execute", { code }, ctx)),
    onThisLoop,
    client: async () => {
      for (let i = 0; i < N; i++) {
        failed(await hp.client.callTool({ name: TOOL, arguments: args }) as never);
      }
    },
    execute: async () =>
      failed(await h.client.callTool({ name: "execute", arguments: { code } }) as never),
    executeProcess: async () =>
      failed(await hp.client.callTool({ name: "execute", arguments: { code } }) as never),
    executeNoLanes: async () =>
      failed(await hn.client.callTool({ name: "execute", arguments: { code } }) as never),
  };
  for (let i = 0; i < WARM / N; i++) {
    for (
      const way of [
        ways.inProcess!,
        ways.onThisLoop!,
        ways.execute!,
        ways.executeProcess!,
        ways.executeNoLanes!,
      ]
    ) {
      await way();
    }
  }
  const times: Record<string, number[]> = {};
  for (let rep = -1; rep < REPS; rep++) {
    for (const [name, f] of Object.entries(ways)) {
      const t0 = performance.now();
      await f();
      if (rep >= 0) (times[name] ??= []).push((performance.now() - t0) / N);
    }
  }
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  console.log(`per call of ${TOOL}, median of ${REPS} rounds of ${N} calls (ms):`);
  console.log(`  dispatcher in-process (worker hop only):     ${m.direct!.toFixed(3)}`);
  console.log(`  invoke, execute run in-process:              ${m.inProcess!.toFixed(3)}`);
  console.log(`  invoke, QuickJS on this event loop:          ${m.onThisLoop!.toFixed(3)}`);
  console.log(`  invoke, execute sent by a stdio client:      ${m.executeProcess!.toFixed(3)}`);
  console.log(`  the same, without lanes (REMCP_LANES=0):      ${m.executeNoLanes!.toFixed(3)}`);
  console.log(`  the same, sandbox in a thread:               ${m.execute!.toFixed(3)}`);
  console.log(`  stdio client call:                           ${m.client!.toFixed(3)}`);
  console.log(`  sandbox cost per invoke: ${(m.inProcess! - m.direct!).toFixed(3)} ms`);
  console.log(
    `  client calls / invokes: ${(m.client! / m.executeProcess!).toFixed(2)}x (goal >= 2x); ` +
      `without lanes: ${(m.client! / m.executeNoLanes!).toFixed(2)}x; ` +
      `with the sandbox in a thread: ${(m.client! / m.execute!).toFixed(2)}x; ` +
      `QuickJS on the supervisor's loop (not the product): ${
        (m.client! / m.onThisLoop!).toFixed(2)
      }x`,
  );
} finally {
  await h.close();
  await hp.close();
  await hn.close();
  await sup.shutdown();
  await Deno.remove(stateDir, { recursive: true }).catch(() => {});
}
