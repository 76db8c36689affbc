/**
 * Code mode: what `execute` saves. One run, printing ratios:
 *  (a) N sequential client calls vs one execute doing the same N invokes (N = 1, 10, 100), on a
 *      server per sandbox kind (`--sandbox`), every way timed round by round, interleaved, so a
 *      busy machine's drift hits each alike (goal at N = 100: invokes >= 2x faster); at N = 100
 *      also the CPU per call of the whole process tree (Linux). The client calls, the reference,
 *      run per client transport and server stdio (`--callee`, `transport:stdio`): pipes (a Deno
 *      or Python host) or sockets (a host on Node.js), the server's stdio on its event loop
 *      (`auto`) or Deno's (`stream`, as before REMCP_STDIO existed); the first is the reference of
 *      the speedup column, the others are printed beside it;
 *  (b) sandbox start (warm process, fresh instance) and per-invoke overhead vs a direct call;
 *  (c) bytes the client receives for "summarise the ten largest functions", by single calls
 *      vs by one execute.
 *
 * A process sandbox runs once with invoke lanes (REMCP_LANES=1, the default: invokes go straight
 * to the worker once granted) and once without (`process/nolanes`, every invoke through the
 * supervisor), per `--lanes on,off`; the ratio between the two is printed at N = 100.
 *
 * Before anything is timed, each sandbox server runs `--warm` invokes (default 2,000) in executes
 * of 100: V8 compiles QuickJS's WebAssembly with its optimizing tier only after it ran a while,
 * so a new sandbox process spends its first ~1,000 invokes at up to twice the CPU per invoke
 * (docs/ARCHITECTURE.md §7); the goal is about a warm sandbox. `--warm 0` measures a cold one.
 *
 *   deno run -A bench/execute.ts [--tool get_database_info] [--sandbox process,thread]
 *     [--lanes on,off] [--callee pipe:auto,socket:auto,pipe:stream] [--rounds 9] [--warm 2000] [binary]
 */
import { parseArgs } from "node:util";
import type { Client } from "@modelcontextprotocol/client";
import { fixture, type Harness, ok, startRemcp } from "../tests/_harness.ts";
import { startRemcpOnSockets } from "../tests/_socket_stdio.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: {
    tool: { type: "string", default: "get_database_info" },
    sandbox: { type: "string", default: "process,thread" },
    lanes: { type: "string", default: "on,off" },
    rounds: { type: "string", default: "9" },
    warm: { type: "string", default: "2000" },
    callee: { type: "string", default: "pipe:auto,socket:auto,pipe:stream" },
  },
  allowPositionals: true,
});
const FILE = positionals[0] ?? fixture("elf_x86_64_gcc_O2");
const TOOL = values.tool;
const LANES = values.lanes.split(",").filter((l) => l !== "");
/** Each server's label and environment: a process sandbox once per `--lanes` setting. */
const SANDBOXES: [string, Record<string, string>][] = values.sandbox.split(",")
  .filter((k) => k !== "")
  .flatMap((kind) =>
    kind !== "process" ? [[kind, { REMCP_SANDBOX: kind }] as [string, Record<string, string>]] : (
      LANES.map((l): [string, Record<string, string>] => [
        l === "off" ? "process/nolanes" : "process",
        { REMCP_SANDBOX: kind, REMCP_LANES: l === "off" ? "0" : "1" },
      ])
    )
  );
const KINDS = SANDBOXES.map(([label]) => label);
const ROUNDS = Number(values.rounds);
const REPS = 15;
const env = { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" };
// Client calls get a server of their own: a server that has just answered them runs the next
// execute slower (measured: 2-4x, whichever kind it is), which would favour the other kinds.
const callees: [string, { client: Client; close(): Promise<void> }][] = [];
for (const spec of values.callee.split(",").filter((c) => c !== "")) {
  const [transport, stdio = "auto"] = spec.split(":");
  const calleeEnv = { ...env, REMCP_STDIO: stdio };
  callees.push([
    `client ${transport}:${stdio}`,
    transport === "socket"
      ? await startRemcpOnSockets({ env: calleeEnv })
      : await startRemcp({ env: calleeEnv }),
  ]);
}
const servers: [string, Harness][] = [];
for (const [label, sandboxEnv] of SANDBOXES) {
  servers.push([label, await startRemcp({ env: { ...env, ...sandboxEnv } })]);
}
const h = servers[0]![1];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function time(f: () => Promise<unknown>, reps = REPS): Promise<number> {
  await f();
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await f();
    xs.push(performance.now() - t0);
  }
  return median(xs);
}
/**
 * CPU time used so far by every thread of this process and its descendants (the servers, their
 * workers and sandboxes), in ms, from Linux's per-thread schedstat; 0 elsewhere. Steadier than
 * the wall clock on a busy machine. `servers` is the part of it spent by this process's own
 * children, the servers (supervisors) themselves: the one a round talks to does the work, the
 * others sit idle; a thread sandbox runs inside its server, a sandbox process and a worker do not.
 */
function treeCpuMs(): { tree: number; servers: number } {
  if (Deno.build.os !== "linux") return { tree: 0, servers: 0 };
  const parent = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      parent.set(Number(entry.name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone already.
    }
  }
  const mine = (pid: number) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === Deno.pid) return true;
    return false;
  };
  let ns = 0;
  let serversNs = 0;
  for (const pid of parent.keys()) {
    if (!mine(pid)) continue;
    try {
      for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
        const line = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`);
        const used = Number(line.split(" ")[0]);
        ns += used;
        if (parent.get(pid) === Deno.pid) serversNs += used;
      }
    } catch {
      // Gone already.
    }
  }
  return { tree: ns / 1e6, servers: serversNs / 1e6 };
}
const bytesOf = (r: unknown) => new TextEncoder().encode(JSON.stringify(r)).length;
const failed = (r: { isError?: unknown; content: unknown }) => {
  if (r.isError) throw new Error(JSON.stringify(r.content));
};

try {
  // One database per server, so calls and invokes name none (each server's only one is used).
  const dbs: string[] = [];
  for (const s of [...callees.map(([, s]) => s), ...servers.map(([, s]) => s)]) {
    const o = await ok(s.client, "open_database", { path: FILE });
    await ok(s.client, "wait_for_analysis", {});
    dbs.push(String(o.database));
  }
  const db = dbs[callees.length]!;
  const args: Record<string, unknown> = TOOL === "read_bytes" ? { address: "main", size: 16 } : {};
  const call = { name: TOOL, arguments: args };
  const warmCode = `for (let i = 0; i < 100; i++) await invoke(${JSON.stringify(TOOL)}, ` +
    `${JSON.stringify(args)}); 1`;
  for (const [, s] of servers) {
    for (let i = 0; i < Number(values.warm) / 100; i++) {
      failed(await s.client.callTool({ name: "execute", arguments: { code: warmCode } }) as never);
    }
  }

  console.log(
    `(a) N calls of ${TOOL} from a stdio client vs one execute with N invokes ` +
      `(median of ${ROUNDS} interleaved rounds, ms)`,
  );
  console.log(
    `    N   ${callees.map(([c]) => c.padStart(22)).join("")}${
      KINDS.map((k) => `execute (${k})`.padStart(26)).join("")
    }   speedup over ${callees[0]![0]}`,
  );
  for (const n of [1, 10, 100]) {
    const code = `for (let i = 0; i < ${n}; i++) await invoke(${JSON.stringify(TOOL)}, ` +
      `${JSON.stringify(args)}); ${n}`;
    const ways: [string, () => Promise<unknown>][] = callees.map(([name, c]) => [
      name,
      async () => {
        for (let i = 0; i < n; i++) failed(await c.client.callTool(call) as never);
      },
    ]);
    for (const [kind, s] of servers) {
      ways.push([kind, async () =>
        failed(
          await s.client.callTool({
            name: "execute",
            arguments: { code },
          }) as never,
        )]);
    }
    const times = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    const serverCpu = new Map<string, number[]>();
    for (let round = -1; round < ROUNDS; round++) {
      for (const [name, f] of ways) {
        const c0 = treeCpuMs();
        const t0 = performance.now();
        await f();
        const t1 = performance.now();
        const c1 = treeCpuMs();
        if (round >= 0) {
          times.set(name, [...times.get(name) ?? [], t1 - t0]);
          cpu.set(name, [...cpu.get(name) ?? [], c1.tree - c0.tree]);
          serverCpu.set(name, [...serverCpu.get(name) ?? [], c1.servers - c0.servers]);
        }
      }
    }
    const clients = callees.map(([c]) => median(times.get(c)!));
    const client = clients[0]!;
    const execs = KINDS.map((k) => median(times.get(k)!));
    console.log(
      `${String(n).padStart(5)}   ${clients.map((c) => c.toFixed(2).padStart(22)).join("")}${
        execs.map((e) => e.toFixed(2).padStart(26)).join("")
      }   ${execs.map((e) => `${(client / e).toFixed(2)}×`).join(" ")}`,
    );
    if (n === 100 && times.has("process") && times.has("process/nolanes")) {
      const on = median(times.get("process")!);
      const off = median(times.get("process/nolanes")!);
      console.log(
        `      lanes: execute (process) ${(off / on).toFixed(2)}× faster than without lanes ` +
          `(${on.toFixed(2)} against ${off.toFixed(2)} ms)`,
      );
    }
    if (n === 100 && Deno.build.os === "linux") {
      const per = (k: string, m = cpu) => (median(m.get(k)!) / n).toFixed(3);
      console.log(
        `      CPU per call (every thread of this process and its children, ms): ${
          callees.map(([c]) => `${c} ${per(c)}`).join(", ")
        }, ${KINDS.map((k) => `execute (${k}) ${per(k)}`).join(", ")}`,
      );
      console.log(
        `      of it the server's own process (the supervisor; a thread sandbox runs in it): ${
          callees.map(([c]) => `${c} ${per(c, serverCpu)}`).join(", ")
        }, ${KINDS.map((k) => `execute (${k}) ${per(k, serverCpu)}`).join(", ")}`,
      );
    }
  }

  const direct = await time(() => h.client.callTool(call), 200);
  const empty = await time(
    () => h.client.callTool({ name: "execute", arguments: { code: "1" } }),
    50,
  );
  const hundred = await time(() =>
    h.client.callTool({
      name: "execute",
      arguments: {
        database: db,
        code: `for (let i = 0; i < 100; i++) await invoke(${JSON.stringify(TOOL)}, ` +
          `${JSON.stringify(args)}); 1`,
      },
    }), 10);
  // The cost of one invoke, measured inside one script: no client hop per call.
  const routed = (hundred - empty) / 100;
  console.log("\n(b) sandbox and invoke costs (median ms)");
  console.log(`    (sandbox: ${KINDS[0]})`);
  console.log(`    direct client call of ${TOOL}:            ${direct.toFixed(3)}`);
  console.log(`    execute("1") (fresh QuickJS instance, warm sandbox): ${empty.toFixed(3)}`);
  console.log(`    per invoke inside execute (100 invokes):     ${routed.toFixed(3)}`);
  console.log(
    `    per-invoke overhead vs a direct client call: ${(routed - direct).toFixed(3)} ` +
      `(negative: an invoke is cheaper than a client round trip)`,
  );

  console.log("\n(c) ten largest functions summarised: bytes received by the client");
  let single = 0;
  const list = await h.client.callTool({
    name: "list_functions",
    arguments: { database: db, sort: "size", limit: 10 },
  });
  single += bytesOf(list);
  for (const f of (list.structuredContent as { items: { start: string }[] }).items) {
    single += bytesOf(
      await h.client.callTool({
        name: "function_summary",
        arguments: { database: db, address: f.start },
      }),
    );
  }
  const scripted = await h.client.callTool({
    name: "execute",
    arguments: {
      database: db,
      code: `const { items } = await invoke("list_functions", { sort: "size", limit: 10 });
        const rows = await Promise.all(items.map((f) => invoke("function_summary", { address: f.start })));
        rows.map((s) => ({ name: s.name, size: s.size, blocks: s.blocks, callees: s.callees_total,
          strings: s.strings.slice(0, 3).map((x) => x.text) }))`,
    },
  });
  const execBytes = bytesOf(scripted);
  console.log(`    single calls: ${single} bytes in 11 round trips`);
  console.log(`    execute:      ${execBytes} bytes in 1 round trip`);
  console.log(`    ratio: ${(single / execBytes).toFixed(1)}× fewer bytes with execute`);
} finally {
  for (const s of [...callees.map(([, s]) => s), ...servers.map(([, s]) => s)]) await s.close();
}
