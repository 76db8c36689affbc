/**
 * A sandbox's start. The process (the default): time from spawn to its `ready` line and its
 * resident memory once idle, against the floor of a Deno process that only prints one line (same
 * flags, same run). The thread (`--sandbox thread`): time to ready and the resident memory it adds to
 * this process while idle. Goal (issue 15): ready within 0.3 s and at most 60 MB on an idle
 * machine.
 *
 *   deno run -A bench/sandbox_start.ts [runs]
 */
import { repoPath } from "../tests/_harness.ts";
import { SandboxPool } from "../src/sandbox/pool.ts";
import { spawnSandboxThread } from "../src/sandbox/sandbox_thread.ts";

const RUNS = Number(Deno.args[0] ?? 9);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(args: string[]): Promise<{ ms: number; rssMb: number }> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value);
  }
  const ms = performance.now() - t0;
  const status = await Deno.readTextFile(`/proc/${child.pid}/status`).catch(() => "");
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  reader.releaseLock();
  await child.stdin.close();
  child.kill("SIGKILL");
  await child.status;
  return { ms, rssMb };
}

const config = ["--config", repoPath("deno.json")];
const floorFile = await Deno.makeTempFile({ prefix: "remcp-bench-sandbox-", suffix: ".ts" });
// The floor waits on stdin like a sandbox does, so its memory is read while it idles.
await Deno.writeTextFile(
  floorFile,
  "console.log('{}');\nfor await (const _ of Deno.stdin.readable);\n",
);
const floor: { ms: number; rssMb: number }[] = [];
const sandbox: { ms: number; rssMb: number }[] = [];
for (let i = 0; i < RUNS + 1; i++) {
  const f = await measure(["run", "-A", "--quiet", ...config, floorFile]);
  const s = await measure(["run", "-A", "--quiet", ...config, repoPath("src/main.ts"), "sandbox"]);
  if (i === 0) continue; // warm-up: module cache
  floor.push(f);
  sandbox.push(s);
}
await Deno.remove(floorFile);
const fm = median(floor.map((x) => x.ms));
const sm = median(sandbox.map((x) => x.ms));
const fr = median(floor.map((x) => x.rssMb));
const sr = median(sandbox.map((x) => x.rssMb));
console.log(`sandbox process start, median of ${RUNS}:`);
console.log(`  floor (deno, one line):  ${fm.toFixed(0)} ms  ${fr.toFixed(1)} MB`);
console.log(`  remcp sandbox ready:     ${sm.toFixed(0)} ms  ${sr.toFixed(1)} MB`);
console.log(
  `  ratio to the floor:      ${(sm / fm).toFixed(2)}x time, ${(sr / fr).toFixed(2)}x memory`,
);

/** Resident memory of this process, MB. */
function rssMb(): number {
  return Deno.memoryUsage().rss / (1024 * 1024);
}

const threads: { ms: number; rssMb: number }[] = [];
for (let i = 0; i < RUNS + 1; i++) {
  const before = rssMb();
  const t0 = performance.now();
  const pool = new SandboxPool({ size: 1, spawn: spawnSandboxThread });
  await pool.warm();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 200));
  const added = rssMb() - before;
  await pool.close();
  await new Promise((r) => setTimeout(r, 200));
  if (i > 0) threads.push({ ms, rssMb: added });
}
console.log(`sandbox thread start, median of ${RUNS}:`);
console.log(
  `  remcp sandbox thread ready: ${median(threads.map((x) => x.ms)).toFixed(0)} ms, ` +
    `adds ${median(threads.map((x) => x.rssMb)).toFixed(1)} MB to the process's RSS`,
);
