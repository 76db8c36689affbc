/**
 * What a client call costs the supervisor in system calls and CPU, per client transport (pipes,
 * or sockets as a host on Node.js gives) and server stdio (`REMCP_STDIO`: `auto` serves stdin and
 * stdout on the event loop, `stream` is Deno's stdio, read through a blocking thread): counts
 * are independent of the machine's load, which the wall clock is not. Linux with `strace`.
 * For each way: the supervisor's CPU per call over every thread (schedstat, median of rounds),
 * then the system calls of all its threads over `--calls` calls (`strace -c -f -p`).
 *
 *   deno run -A bench/stdio_syscalls.ts [--calls 2000] [--ways pipe:auto,pipe:stream,...]
 */
import { parseArgs } from "node:util";
import { processCpuMs } from "./_cpu.ts";
import type { Client } from "@modelcontextprotocol/client";
import { fixture, ok, startRemcp } from "../tests/_harness.ts";
import { startRemcpOnSockets } from "../tests/_socket_stdio.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "2000" },
    ways: { type: "string", default: "pipe:auto,pipe:stream,socket:auto,socket:stream" },
  },
});
const CALLS = Number(values.calls);
const FILE = fixture("elf_x86_64_gcc_O2");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (Deno.build.os !== "linux") {
  console.log("stdio_syscalls: Linux only (/proc and strace)");
  Deno.exit(0);
}

/** `strace -c`'s table: calls per system call. */
function parseCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of text.split("\n")) {
    const f = row.trim().split(/\s+/);
    if (f.length < 5 || !/^[\d.]+$/.test(f[0]!) || f.at(-1) === "total") continue;
    counts.set(f.at(-1)!, Number(f[3]));
  }
  return counts;
}

console.log(`stdio_syscalls: get_database_info through the supervisor, per call`);
for (const spec of values.ways.split(",").filter((w) => w !== "")) {
  const [transport, stdio = "auto"] = spec.split(":");
  const env = { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error", REMCP_STDIO: stdio };
  let client: Client, pid: number, close: () => Promise<void>;
  if (transport === "socket") {
    const h = await startRemcpOnSockets({ env });
    [client, pid, close] = [h.client, h.child.pid, h.close];
  } else {
    const h = await startRemcp({ env });
    [client, pid, close] = [h.client, h.transport.pid!, h.close];
  }
  try {
    const opened = await ok(client, "open_database", { path: FILE });
    await ok(client, "wait_for_analysis", {});
    const call = () =>
      client.callTool({ name: "get_database_info", arguments: { database: opened.database } });
    for (let i = 0; i < 300; i++) await call();
    const cpu: number[] = [];
    for (let round = 0; round < 5; round++) {
      const c0 = processCpuMs(pid);
      for (let i = 0; i < 500; i++) await call();
      cpu.push((processCpuMs(pid) - c0) / 500);
    }
    const out = await Deno.makeTempFile({ prefix: "remcp-bench-strace-" });
    const strace = new Deno.Command("strace", {
      args: ["-c", "-f", "-o", out, "-p", String(pid)],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    // strace says "Process N attached" once per thread; wait for the first.
    const reader = strace.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let said = "";
    while (!said.includes("attached")) {
      const r = await reader.read();
      if (r.done) throw new Error(`strace did not attach: ${said}`);
      said += r.value;
    }
    // Keep reading: strace ends when its stderr is closed.
    const drained = (async () => {
      while (!(await reader.read()).done) { /* more "attached" lines */ }
    })();
    for (let i = 0; i < CALLS; i++) await call();
    strace.kill("SIGINT");
    await strace.status;
    await drained;
    const counts = parseCounts(await Deno.readTextFile(out));
    await Deno.remove(out);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 7)
      .map(([name, n]) => `${name} ${(n / CALLS).toFixed(2)}`).join(", ");
    console.log(
      `${`${transport}, stdio ${stdio}`.padEnd(22)} CPU ${median(cpu).toFixed(3)} ms ` +
        `(rounds ${cpu.map((c) => c.toFixed(3)).join(" ")}); ` +
        `${(total / CALLS).toFixed(1)} system calls: ${top}`,
    );
  } finally {
    await close();
  }
}
