/**
 * A sandbox's start. The process (the default): time from spawn to its `ready` line and its
 * resident memory once idle, against the floor of a Deno process that only prints one line (same
 * flags, same run). The thread (`--sandbox thread`): time to ready and the resident memory it adds to
 * this process while idle. Goal (issue 15): ready within 0.3 s and at most 60 MB on an idle
 * machine.
 *
 * With `--bundle FILE` (a `deno task bundle` output) two more are timed, in turn with the others:
 * the sandbox as the bundle's supervisor starts it (from the sandbox's own bundle, which the
 * bench takes out of FILE as src/sandbox/sandbox_bundle.ts does) and as `deno run FILE sandbox`
 * starts it (the whole bundle: every `node:` import hoisted to its top).
 *
 *   deno run -A bench/sandbox_start.ts [runs] [--bundle dist/remcp.js]
 */
import { repoPath } from "../tests/_harness.ts";
import { SandboxPool } from "../src/sandbox/pool.ts";
import { spawnSandboxThread } from "../src/sandbox/sandbox_thread.ts";

const bundleAt = Deno.args.indexOf("--bundle");
const BUNDLE = bundleAt >= 0 ? Deno.args[bundleAt + 1] : undefined;
const RUNS = Number(Deno.args.find((a, i) => /^\d+$/.test(a) && i !== bundleAt + 1) ?? 9);
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

/** The sandbox's own bundle inside `bundle`, written to a temporary file: the one blob not WASM. */
async function sandboxOf(bundle: string): Promise<string> {
  const text = await Deno.readTextFile(bundle);
  for (const [, blob] of text.matchAll(/\(\)\{\/\*([A-Za-z0-9+/]+=*)\*\/\}/g)) {
    const bytes = (Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(
      blob!,
    );
    if (bytes[0] === 0 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d) continue;
    const path = await Deno.makeTempFile({ prefix: "remcp-bench-sandbox-", suffix: ".js" });
    await Deno.writeFile(path, bytes);
    return path;
  }
  throw new Error(`${bundle} carries no sandbox bundle: build it again with deno task bundle`);
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
const bundled: { ms: number; rssMb: number }[] = [];
const whole: { ms: number; rssMb: number }[] = [];
const alone = BUNDLE ? await sandboxOf(BUNDLE) : undefined;
for (let i = 0; i < RUNS + 1; i++) {
  const f = await measure(["run", "-A", "--quiet", ...config, floorFile]);
  const s = await measure(["run", "-A", "--quiet", ...config, repoPath("src/main.ts"), "sandbox"]);
  const b = alone
    ? await measure(["run", "-A", "--quiet", "--no-config", alone, "sandbox"])
    : undefined;
  const w = BUNDLE
    ? await measure(["run", "-A", "--quiet", "--no-config", BUNDLE, "sandbox"])
    : undefined;
  if (i === 0) continue; // warm-up: module cache
  floor.push(f);
  sandbox.push(s);
  if (b) bundled.push(b);
  if (w) whole.push(w);
}
if (alone) await Deno.remove(alone);
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
if (bundled.length > 0) {
  const bm = median(bundled.map((x) => x.ms));
  const br = median(bundled.map((x) => x.rssMb));
  const wm = median(whole.map((x) => x.ms));
  const wr = median(whole.map((x) => x.rssMb));
  console.log(`  bundle's sandbox ready:  ${bm.toFixed(0)} ms  ${br.toFixed(1)} MB`);
  console.log(
    `  bundle to the checkout:  ${(bm / sm).toFixed(2)}x time, ${(br / sr).toFixed(2)}x memory`,
  );
  console.log(`  whole bundle as sandbox: ${wm.toFixed(0)} ms  ${wr.toFixed(1)} MB`);
}

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
