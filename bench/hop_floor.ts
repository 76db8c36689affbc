/**
 * The floor under `bench/routing.ts`: what a process that only relays lines adds to a round trip,
 * with no MCP work at all. Three set-ups, measured in the same run, round by round interleaved:
 *
 * - direct: this process ↔ an echo process over its stdio (as a client ↔ a worker);
 * - direct, after a hop: the same, each round trip preceded by an untimed one to another echo
 *   (as an invoke's worker hop follows its sandbox hop, while the dispatcher called in a loop
 *   sends the next call at once);
 * - relay over pipes: this process ↔ a relay over its stdio ↔ an echo over the relay's pipes to
 *   the echo's stdio (the supervisor ↔ worker hop before workers connected over a socket);
 * - relay over a socket: the same, the echo connected to the relay over a Unix socket and read and
 *   written directly (the hop as it is now, `src/child_socket.ts`);
 * - direct, net stdio: the echo with its stdio served on the event loop (`src/stdio_conn.ts`), as
 *   a worker serving a client directly now runs;
 * - byte pump, net stdio: a relay with its stdio on the event loop that forwards each chunk as it
 *   comes to an echo on a socket and back, with no framing or JSON at all: the least a second
 *   process can add, the floor under the supervisor as it is now.
 *
 * The relay parses and re-serializes each line both ways, as the supervisor does; the echo answers
 * a 4 KB line, the size of a `get_database_info` result. Prints medians per round trip and the CPU
 * each process spends per message (Linux: /proc), and the ratios against direct: no relay in Deno
 * can do better than these on this machine, so they bound what `bench/routing.ts` can show.
 *
 *   deno run -A bench/hop_floor.ts [round trips per round] [rounds]
 */
const N = Number(Deno.args[0] ?? 1000);
const ROUNDS = Number(Deno.args[1] ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const REQUEST = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "get_database_info", arguments: {} },
});

// Reads lines from `chunks`, answers each with `onLine`. Shared by the child programs below.
const LINES = `const dec = new TextDecoder(); const enc = new TextEncoder();
async function lines(chunks, onLine) {
  let b = "";
  for await (const c of chunks) {
    b += dec.decode(c);
    let i;
    while ((i = b.indexOf("\\n")) >= 0) { const l = b.slice(0, i); b = b.slice(i + 1); onLine(l); }
  }
}
async function* connChunks(conn) {
  const buf = new Uint8Array(65536);
  for (;;) { const n = await conn.read(buf); if (n === null) return; yield buf.subarray(0, n); }
}
async function writeAll(conn, bytes) { for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at)); }`;

// Echo: over its stdio, or over the socket named by its argument.
const ECHO = `${LINES}
const reply = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text",
  text: "x".repeat(1900) }], structuredContent: { text: "x".repeat(1900) } } });
const path = Deno.args[0];
if (path) {
  const conn = await Deno.connect({ transport: "unix", path });
  await lines(connChunks(conn), (l) => { JSON.parse(l); void writeAll(conn, enc.encode(reply + "\\n")); });
} else {
  const w = Deno.stdout.writable.getWriter();
  await lines(Deno.stdin.readable, (l) => { JSON.parse(l); void w.write(enc.encode(reply + "\\n")); });
}`;

// Relay: reads its stdio, forwards to an echo child over pipes or a socket, and back.
const RELAY = `${LINES}
const [mode, echoSrc, path] = Deno.args;
const out = Deno.stdout.writable.getWriter();
// The socket listens before the echo starts, so the echo's connect finds it.
const listener = mode === "socket" ? Deno.listen({ transport: "unix", path }) : undefined;
const child = new Deno.Command(Deno.execPath(), {
  args: ["eval", echoSrc, ...(listener ? [path] : [])],
  stdin: listener ? "null" : "piped", stdout: listener ? "null" : "piped",
}).spawn();
let send, answers;
if (listener) {
  const conn = await listener.accept();
  listener.close();
  send = (bytes) => writeAll(conn, bytes);
  answers = connChunks(conn);
} else {
  const w = child.stdin.getWriter();
  send = (bytes) => w.write(bytes);
  answers = child.stdout;
}
console.error(String(child.pid));
void lines(answers, (l) => void out.write(enc.encode(JSON.stringify(JSON.parse(l)) + "\\n")));
await lines(Deno.stdin.readable, (l) => void send(enc.encode(JSON.stringify(JSON.parse(l)) + "\\n")));
child.kill();
Deno.exit(0);`;

// The same two programs with their stdio served on the event loop, as remcp's servers do now
// (src/stdio_conn.ts: node:net adopts fd 0 and 1): an echo, and a relay that is a pure byte
// pump (chunks forwarded as they come, no framing or JSON at all), the least any relay can do.
const NET_STDIO = `import { Socket } from "node:net";
function netStdio() {
  const input = new Socket({ fd: 0, readable: true, writable: false, allowHalfOpen: true });
  const output = new Socket({ fd: 1, readable: false, writable: true, allowHalfOpen: true });
  input.on("end", () => Deno.exit(0));
  return { input, output };
}`;
const ECHO_NET = `${LINES}
${NET_STDIO}
const reply = enc.encode(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text",
  text: "x".repeat(1900) }], structuredContent: { text: "x".repeat(1900) } } }) + "\\n");
const path = Deno.args[0];
if (path) {
  const conn = await Deno.connect({ transport: "unix", path });
  await lines(connChunks(conn), (l) => { JSON.parse(l); void writeAll(conn, reply); });
} else {
  const { input, output } = netStdio();
  let b = "";
  input.on("data", (c) => {
    b += dec.decode(c);
    let i;
    while ((i = b.indexOf("\\n")) >= 0) { JSON.parse(b.slice(0, i)); b = b.slice(i + 1); output.write(reply); }
  });
}`;
const PUMP = `${LINES}
${NET_STDIO}
const [echoSrc, path] = Deno.args;
const listener = Deno.listen({ transport: "unix", path });
const child = new Deno.Command(Deno.execPath(), {
  args: ["eval", echoSrc, path], stdin: "null", stdout: "null",
}).spawn();
const conn = await listener.accept();
listener.close();
console.error(String(child.pid));
const { input, output } = netStdio();
input.on("data", (c) => void writeAll(conn, c));
for await (const c of connChunks(conn)) output.write(c.slice());`;

/** CPU time of a process so far, ms (Linux). */
function cpuMs(pid: number): number {
  const s = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

interface Setup {
  name: string;
  pids: number[];
  /** Untimed, before each timed round trip. */
  before?: () => Promise<void>;
  roundTrip(): Promise<void>;
  close(): Promise<void>;
}

async function start(name: string, args: string[], childPid: boolean): Promise<Setup> {
  const proc = new Deno.Command(Deno.execPath(), {
    args: ["eval", ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = proc.stdin.getWriter();
  const reader = proc.stdout.getReader();
  const pids = [proc.pid];
  if (childPid) {
    const err = proc.stderr.getReader();
    let text = "";
    while (!text.includes("\n")) text += new TextDecoder().decode((await err.read()).value);
    pids.push(Number(text.trim()));
    err.releaseLock();
  }
  void proc.stderr.pipeTo(new WritableStream()).catch(() => {});
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  let buf = "";
  return {
    name,
    pids,
    async roundTrip() {
      await writer.write(enc.encode(REQUEST + "\n"));
      let nl: number;
      while ((nl = buf.indexOf("\n")) < 0) buf += dec.decode((await reader.read()).value);
      JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    },
    async close() {
      await writer.close();
      reader.releaseLock();
      await proc.status;
    },
  };
}

const dir = await Deno.makeTempDir({ prefix: "remcp-hop-" });
const other = await start("other", [ECHO], false);
const setups: Setup[] = [
  await start("direct", [ECHO], false),
  // As an invoke's worker hop follows its sandbox hop: the echo has waited out another round trip.
  { ...await start("direct, after a hop", [ECHO], false), before: () => other.roundTrip() },
  await start("relay over pipes", [RELAY, "pipes", ECHO], true),
  await start("relay over a socket", [RELAY, "socket", ECHO, `${dir}/echo.sock`], true),
  await start("direct, net stdio", [ECHO_NET], false),
  await start("byte pump, net stdio", [PUMP, ECHO_NET, `${dir}/pump.sock`], true),
];
const linux = Deno.build.os === "linux";
const wall = new Map<string, number[]>();
const cpu = new Map<string, number[][]>();
try {
  for (let round = -1; round < ROUNDS; round++) {
    for (const s of setups) {
      const c0 = linux ? s.pids.map(cpuMs) : [];
      const times: number[] = [];
      for (let i = 0; i < N; i++) {
        await s.before?.();
        const t0 = performance.now();
        await s.roundTrip();
        times.push(performance.now() - t0);
      }
      if (round < 0) continue; // warm-up
      (wall.get(s.name) ?? wall.set(s.name, []).get(s.name)!).push(median(times));
      if (linux) {
        const per = s.pids.map((p, i) => (cpuMs(p) - c0[i]!) / N);
        (cpu.get(s.name) ?? cpu.set(s.name, []).get(s.name)!).push(per);
      }
    }
  }
} finally {
  for (const s of [...setups, other]) await s.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
const direct = median(wall.get("direct")!);
console.log(`round trip of a request and a 4 KB answer, median of ${ROUNDS} rounds of ${N}`);
console.log("set-up                 wall ms   ratio   CPU ms per message (first process, echo)");
for (const s of setups) {
  const w = median(wall.get(s.name)!);
  const c = cpu.get(s.name);
  const cpuText = c
    ? s.pids.map((_, i) => median(c.map((r) => r[i]!)).toFixed(3)).join(" + ")
    : "n/a";
  console.log(
    `${s.name.padEnd(21)} ${w.toFixed(3).padStart(7)}   ${
      (w / direct).toFixed(2).padStart(5)
    }   ${cpuText}`,
  );
}
