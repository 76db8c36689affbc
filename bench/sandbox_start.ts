/**
 * A sandbox process's start: time from spawn to its `ready` line and its resident memory once
 * idle, against the floor of a Deno process that only prints one line (same flags, same run).
 * Goal (issue 15): ready within 0.3 s and at most 60 MB on an idle machine.
 *
 *   deno run -A bench/sandbox_start.ts [runs]
 */
import { repoPath } from "../tests/_harness.ts";

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
const floorFile = await Deno.makeTempFile({ suffix: ".ts" });
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
