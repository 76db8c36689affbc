/**
 * Startup: for the bundle (`deno run -A remcp.js`, as the README runs it), for the checkout
 * (`deno run src/main.ts`) and for the floor (a minimal Deno MCP server with one tool), the median
 * over N spawns of
 * - time from spawn to the `initialize` response,
 * - time from spawn to the first `disassemble` at `main` (open_database, wait_for_analysis,
 *   disassemble on a fixture with symbols; a fresh state folder each time, so analysis is cold),
 * - resident memory (VmRSS) of the idle server right after `initialize` (Linux).
 * Prints each against the floor. Targets: the bundle answers `initialize` within 1.5× the floor;
 * an idle supervisor stays at or under 80 MB.
 *
 * `--base FILE` adds another bundle (e.g. one built from an earlier commit) to the turns, for A/B.
 *
 *   deno run -A bench/startup.ts [runs] [--base OTHER_BUNDLE.js]
 */
import { fixture, repoPath } from "../tests/_harness.ts";

const baseAt = Deno.args.indexOf("--base");
const BASE = baseAt >= 0 ? Deno.args[baseAt + 1] : undefined;
const RUNS = Number(Deno.args.find((a, i) => /^\d+$/.test(a) && i !== baseAt + 1) ?? 20);
const FILE = fixture("elf_x86_64_gcc_O2");
const FLOOR_SERVER = `
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "floor", version: "0.0.0" });
  server.registerTool(
    "ping",
    { description: "Answer pong", inputSchema: z.object({}) },
    () => ({ content: [{ type: "text", text: "pong" }] }),
  );
  return server;
});
`;

/** One way of starting a server. */
interface Variant {
  name: string;
  args: string[];
  cwd: string;
  /** Whether it is remcp (and so can disassemble). */
  remcp: boolean;
}

/** What one spawn measured, in milliseconds and megabytes. */
interface Sample {
  init: number;
  rssMb: number | undefined;
  disasm: number | undefined;
}

/** Newline-delimited JSON-RPC over a child's pipes, with no SDK in the way of the clock. */
class LineClient {
  #reader: ReadableStreamDefaultReader<string>;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #buffer = "";
  #nextId = 1;

  constructor(readonly child: Deno.ChildProcess) {
    this.#reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    this.#writer = child.stdin.getWriter();
  }

  async notify(method: string, params: Record<string, unknown> = {}): Promise<void> {
    await this.#send({ jsonrpc: "2.0", method, params });
  }

  async request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.#nextId++;
    await this.#send({ jsonrpc: "2.0", id, method, params });
    for (;;) {
      const msg = await this.#readMessage();
      if (msg.id !== id) continue;
      if (msg.error) throw new Error(`${method}: ${JSON.stringify(msg.error)}`);
      return msg.result;
    }
  }

  async tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await this.request("tools/call", { name, arguments: args }) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content?: { text?: string }[];
    };
    if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
    return r.structuredContent ?? {};
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel().catch(() => {});
    await this.child.status;
  }

  async #send(msg: unknown): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n"));
  }

  async #readMessage(): Promise<{ id?: number; result?: unknown; error?: unknown }> {
    for (;;) {
      const nl = this.#buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl).trim();
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line) return JSON.parse(line);
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("server closed stdout");
      this.#buffer += value;
    }
  }
}

/** VmRSS of a process in MB, or undefined off Linux. */
function rssMb(pid: number): number | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Spawns the variant once and measures it. */
async function sample(v: Variant): Promise<Sample> {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-bench-state-" });
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: v.args,
    cwd: v.cwd,
    env: { REMCP_STATE_DIR: stateDir, REMCP_LOG_LEVEL: "error" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const client = new LineClient(child);
  try {
    await client.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench-startup", version: "0" },
    });
    const init = performance.now() - t0;
    const rss = rssMb(child.pid);
    let disasm: number | undefined;
    if (v.remcp) {
      await client.notify("notifications/initialized");
      const opened = await client.tool("open_database", { path: FILE });
      await client.tool("wait_for_analysis", { database: opened.database });
      const dis = await client.tool("disassemble", { address: "main", count: 20 });
      if (!Array.isArray(dis.items) || dis.items.length === 0) throw new Error("empty disassembly");
      disasm = performance.now() - t0;
    }
    return { init, rssMb: rss, disasm };
  } catch (err) {
    await client.close();
    throw new Error(`${v.name}: ${(err as Error).message}\n${await stderr}`);
  } finally {
    await client.close();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Medians of a variant's samples. */
function summarize(samples: Sample[]): { init: number; rss?: number; disasm?: number } {
  const rss = samples.map((s) => s.rssMb).filter((x) => x !== undefined);
  const disasm = samples.map((s) => s.disasm).filter((x) => x !== undefined);
  return {
    init: median(samples.map((s) => s.init)),
    ...(rss.length ? { rss: median(rss) } : {}),
    ...(disasm.length ? { disasm: median(disasm) } : {}),
  };
}

async function run(args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), { args, cwd, stdout: "null" }).output();
  if (!out.success) {
    throw new Error(`deno ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

// The bundle runs alone in a folder of its own, as a user who downloaded it runs it.
await run(["task", "bundle"], repoPath(""));
const work = await Deno.makeTempDir({ prefix: "remcp-bench-startup-" });
await Deno.copyFile(repoPath("dist/remcp.js"), `${work}/remcp.js`);
if (BASE) await Deno.copyFile(BASE, `${work}/base.js`);
await Deno.writeTextFile(`${work}/floor.ts`, FLOOR_SERVER);
const config = repoPath("deno.json");
// Load the floor's npm packages once so its first spawn does not pay for resolution.
await run(["cache", "--config", config, `${work}/floor.ts`], work);

const variants: Variant[] = [
  {
    name: "floor (1-tool server)",
    args: ["run", "-A", "--quiet", "--config", config, `${work}/floor.ts`],
    cwd: work,
    remcp: false,
  },
  { name: "bundle remcp.js", args: ["run", "-A", "remcp.js"], cwd: work, remcp: true },
  {
    name: "deno run src/main.ts",
    args: ["run", "-A", "--quiet", "--config", config, repoPath("src/main.ts")],
    cwd: repoPath(""),
    remcp: true,
  },
  ...(BASE
    ? [{ name: "base bundle", args: ["run", "-A", "base.js"], cwd: work, remcp: true }]
    : []),
];

// One unmeasured warm-up each (module and code caches), then the variants take turns, so a
// change in machine load hits all of them alike.
for (const v of variants) await sample(v);
const samples = variants.map((): Sample[] => []);
for (let i = 0; i < RUNS; i++) {
  for (const [k, v] of variants.entries()) samples[k]!.push(await sample(v));
}
const results = variants.map((v, k) => ({ v, r: summarize(samples[k]!) }));
await Deno.remove(work, { recursive: true }).catch(() => {});

const floor = results[0]!.r;
const fmt = (x: number | undefined, digits = 0) => x === undefined ? "-" : x.toFixed(digits);
console.log(
  `startup: median of ${RUNS} spawns each, interleaved, after one warm-up; ` +
    `disassemble on ${FILE.split("/").pop()} with a fresh state folder`,
);
console.log(
  "variant                  initialize ms  × floor   first disassemble ms   idle RSS MB  × floor",
);
for (const { v, r } of results) {
  console.log(
    [
      v.name.padEnd(24),
      fmt(r.init).padStart(13),
      (r.init / floor.init).toFixed(2).padStart(8),
      fmt(r.disasm).padStart(22),
      fmt(r.rss, 1).padStart(13),
      r.rss && floor.rss ? (r.rss / floor.rss).toFixed(2).padStart(8) : "       -",
    ].join(" "),
  );
}
const bundle = results[1]!.r;
console.log(
  `bundle initialize / floor: ${(bundle.init / floor.init).toFixed(2)} (target ≤ 1.50); ` +
    `idle supervisor RSS: ${fmt(bundle.rss, 1)} MB (target ≤ 80)`,
);
