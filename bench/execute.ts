/**
 * Code mode: what `execute` saves. One run, printing ratios:
 *  (a) N sequential client calls vs one execute doing the same N invokes (N = 1, 10, 100);
 *  (b) sandbox start (warm process, fresh instance) and per-invoke overhead vs a direct call;
 *  (c) bytes the client receives for "summarise the ten largest functions", by single calls
 *      vs by one execute.
 *
 *   deno run -A bench/execute.ts [binary]
 */
import { fixture, ok, startRemcp } from "../tests/_harness.ts";

const FILE = Deno.args[0] ?? fixture("elf_x86_64_gcc_O2");
const REPS = 15;
const h = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" } });
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
const bytesOf = (r: unknown) => new TextEncoder().encode(JSON.stringify(r)).length;

try {
  const o = await ok(h.client, "open_database", { path: FILE });
  await ok(h.client, "wait_for_analysis", {});
  const db = String(o.database);
  const call = { name: "read_bytes", arguments: { database: db, address: "main", size: 16 } };

  console.log("(a) N calls from the client vs one execute with N invokes (median ms)");
  console.log("    N   client calls   execute   speedup");
  for (const n of [1, 10, 100]) {
    const client = await time(async () => {
      for (let i = 0; i < n; i++) await h.client.callTool(call);
    }, n === 100 ? 5 : REPS);
    const script = `for (let i = 0; i < ${n}; i++) await invoke("read_bytes", ` +
      `{ address: "main", size: 16 }); ${n}`;
    const exec = await time(
      () => h.client.callTool({ name: "execute", arguments: { database: db, code: script } }),
      n === 100 ? 5 : REPS,
    );
    console.log(
      `${String(n).padStart(5)} ${client.toFixed(2).padStart(14)} ${exec.toFixed(2).padStart(9)} ${
        (client / exec).toFixed(2).padStart(8)
      }×`,
    );
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
        code: 'for (let i = 0; i < 100; i++) await invoke("read_bytes", ' +
          '{ address: "main", size: 16 }); 1',
      },
    }), 10);
  // The cost of one invoke, measured inside one script: no client hop per call.
  const routed = (hundred - empty) / 100;
  console.log("\n(b) sandbox and invoke costs (median ms)");
  console.log(`    direct client call of read_bytes:            ${direct.toFixed(3)}`);
  console.log(`    execute("1") (fresh QuickJS instance, warm process): ${empty.toFixed(3)}`);
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
  await h.close();
}
