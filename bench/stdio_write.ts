/**
 * The CPU one answer line costs the process writing it to an adopted stdout (`src/stdio_conn.ts`):
 * written at once with one `write` system call, against through node:net's stream machinery (a
 * write request, its callback, a tick), interleaved round by round. The bench runs itself as a
 * child whose stdout is a pipe this process drains, as a client's would be.
 *
 *   deno run -A bench/stdio_write.ts [--bytes 4057] [--writes 2000] [--rounds 15]
 */
import { parseArgs } from "node:util";
import { writeSync } from "node:fs";
import { Socket } from "node:net";
import { SocketPairConn } from "../src/stdio_conn.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    bytes: { type: "string", default: "4057" },
    writes: { type: "string", default: "2000" },
    rounds: { type: "string", default: "15" },
    child: { type: "boolean", default: false },
  },
});
const WRITES = Number(values.writes);
const ROUNDS = Number(values.rounds);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function child(): Promise<void> {
  const out = new Socket({ fd: 1, readable: false, writable: true, allowHalfOpen: true });
  // Both ways write through one output socket; neither reads (an unconnected input).
  const ways: [string, SocketPairConn][] = [
    ["one write(2)", new SocketPairConn(new Socket(), out, (b) => writeSync(1, b))],
    ["node:net", new SocketPairConn(new Socket(), out)],
  ];
  const line = new Uint8Array(Number(values.bytes)).fill(0x78);
  line[line.length - 1] = 0x0a;
  const cpu = new Map<string, number[]>(ways.map(([name]) => [name, []]));
  for (let round = -1; round < ROUNDS; round++) {
    for (const [name, conn] of round % 2 ? ways : [...ways].reverse()) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < WRITES; i++) await conn.write(line);
      const c = process.cpuUsage(c0);
      if (round >= 0) cpu.get(name)!.push((c.user + c.system) / WRITES);
    }
  }
  const [now, net] = [median(cpu.get("one write(2)")!), median(cpu.get("node:net")!)];
  console.error(
    `stdio_write: CPU µs per ${line.length}-byte line to a pipe (median of ${ROUNDS} rounds of ` +
      `${WRITES}): one write(2) ${now.toFixed(1)}, node:net ${net.toFixed(1)} ` +
      `(node:net costs ${(net / now).toFixed(2)}×)`,
  );
  out.end();
}

if (values.child) {
  await child();
} else {
  const proc = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--child", ...Deno.args],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  for await (const _ of proc.stdout) { /* drained, as a client reads */ }
  await proc.stdin.close();
  Deno.exit((await proc.status).code);
}
