/**
 * `remcp run` over many files: the same script over 40 fixture and system binaries with --jobs 1
 * and --jobs 2 (speedup on this machine's cores), and the per-file overhead of `run` (spawn,
 * open, analyse, close) against a direct `execute` on an already open database.
 *
 *   deno run -A bench/run_batch.ts
 */
import { fixture, ok, remcpArgs, repoPath, startRemcp } from "../tests/_harness.ts";

const SCRIPT = "const i = await invoke('get_database_info', {}); " +
  "({ arch: i.arch, functions: (await invoke('list_functions', { limit: 1 })).total })";

const files: string[] = [];
for await (const e of Deno.readDir(repoPath("tests/fixtures/bin"))) {
  if (
    e.isFile && !e.name.endsWith(".json") && !e.name.startsWith("raw_") && e.name !== "macho_fat"
  ) {
    files.push(fixture(e.name));
  }
}
for await (const e of Deno.readDir("/usr/bin")) {
  if (files.length >= 40) break;
  const p = `/usr/bin/${e.name}`;
  try {
    const st = await Deno.stat(p);
    if (!st.isFile || st.size > 400_000 || st.size < 20_000) continue;
    const head = new Uint8Array(4);
    const f = await Deno.open(p);
    await f.read(head);
    f.close();
    if (head[0] === 0x7f && head[1] === 0x45) files.push(p);
  } catch {
    // Unreadable: skip.
  }
}
files.splice(40);

async function runAll(jobs: number): Promise<{ seconds: number; failed: number }> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-bench-run-batch-" });
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: remcpArgs(["run", "-e", SCRIPT, "--ndjson", "--quiet", "--jobs", String(jobs), ...files]),
    env: { REMCP_STATE_DIR: dir, REMCP_LOG_LEVEL: "error" },
    stdout: "piped",
    stderr: "null",
  }).output();
  const seconds = (performance.now() - t0) / 1000;
  await Deno.remove(dir, { recursive: true });
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
  return { seconds, failed: lines.filter((l) => !l.ok).length };
}

const one = await runAll(1);
const two = await runAll(2);

// Direct execute on an already open database: the floor of what a file costs.
const h = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" } });
await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
await ok(h.client, "wait_for_analysis", {});
const xs: number[] = [];
for (let i = 0; i < 20; i++) {
  const t0 = performance.now();
  await ok(h.client, "execute", { code: SCRIPT });
  xs.push(performance.now() - t0);
}
await h.close();
const direct = xs.sort((a, b) => a - b)[10]! / 1000;

console.log(`remcp run: ${files.length} files (${navigator.hardwareConcurrency} cores)`);
console.log(`  --jobs 1: ${one.seconds.toFixed(2)} s (${one.failed} failed)`);
console.log(`  --jobs 2: ${two.seconds.toFixed(2)} s (${two.failed} failed)`);
console.log(`  speedup: ${(one.seconds / two.seconds).toFixed(2)}×`);
console.log(
  `  per file with --jobs 1: ${(one.seconds / files.length * 1000).toFixed(0)} ms vs ` +
    `${(direct * 1000).toFixed(1)} ms for execute on an open database ` +
    `(overhead ${((one.seconds / files.length - direct) * 1000).toFixed(0)} ms: worker start, ` +
    `open, analysis, close)`,
);
