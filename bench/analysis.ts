/**
 * Analysis speed and memory through the real server, per binary: the first open (analysis), the
 * worker's CPU seconds and peak resident memory (VmHWM, Linux), and the reopen from the cache.
 * The reference measured in the same run is a linear sweep: decoding every byte of the file's
 * code once with the same decoder, in this process. "× sweep" is the analysis's CPU time over
 * that sweep, so a busy machine moves both sides alike.
 *
 *   deno run -A bench/analysis.ts [files…]
 *   taskset -c 0 deno run -A bench/analysis.ts [files…]     (everything on one core)
 *
 * Without arguments: /bin/ls, python3, cmake and gdb, those of them this machine has. On one
 * core, "worker CPU s" is what opening and analysing costs that core (V8's collector and
 * compiler threads cannot run beside the analysis, so they cost less than with a core free);
 * "open s" there also holds the supervisor starting the next standby worker on the same core.
 */
import { callTool, ok, startRemcp } from "../tests/_harness.ts";
import { openImage } from "../workers/embedded/formats/open_image.ts";
import { createDecoder } from "../workers/embedded/arch/decoder.ts";
import { printAaaBeside, rizinForBench } from "./_rizin.ts";

const candidates = Deno.args.length > 0
  ? Deno.args
  : ["/bin/ls", "/usr/bin/python3", "/usr/bin/cmake", "/usr/bin/gdb"];
const files: string[] = [];
for (const f of candidates) {
  try {
    const real = await Deno.realPath(f);
    if ((await Deno.stat(real)).isFile && !files.includes(real)) files.push(real);
  } catch {
    // Not on this machine.
  }
}

/** MB of code in `bytes`, and the CPU seconds a linear sweep over it takes here. */
async function sweep(bytes: Uint8Array): Promise<{ mb: number; seconds: number }> {
  const image = openImage(bytes);
  const decoder = await createDecoder(image.arch, {
    endian: image.endian,
    bits: image.bits,
    thumb: image.thumb ?? false,
  });
  let size = 0;
  const t0 = cpuSeconds("self");
  for (const s of image.sections.filter((s) => s.kind === "code")) {
    size += s.end - s.start;
    const code = image.readUpTo(s.start, s.end - s.start);
    // Windows of 1 MiB: the decoders return one array per call.
    for (let o = 0; o < code.length; o += 1 << 20) {
      decoder.decode(code.subarray(o, Math.min(code.length, o + (1 << 20))), s.start + o);
    }
  }
  const seconds = cpuSeconds("self") - t0;
  decoder.dispose();
  return { mb: size / 1e6, seconds };
}

/** Waits in 30 s calls: one long call would outlast the client's request timeout. */
async function waitReady(client: Parameters<typeof ok>[0], database: unknown): Promise<void> {
  while (true) {
    const r = await callTool(client, "wait_for_analysis", { database, timeout: 30 });
    if (!r.isError) return;
    if (r.sc.error_type !== "Timeout") throw new Error(`wait_for_analysis failed: ${r.text}`);
  }
}

/** User + system CPU seconds of a process, from /proc (NaN elsewhere). */
function cpuSeconds(pid: number | "self"): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Peak resident memory of a process in MB, from /proc (NaN elsewhere). */
function peakMb(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

const load = () => {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
};

console.log(`load average before: ${load()}  (2-core machines are noisy: CPU s is the measure)`);
const rz = rizinForBench();
if ("reason" in rz) console.log(`rizin side by side skipped: ${rz.reason}`);
console.log(
  "file                    code MB  open s  worker CPU s  MB/CPU s  × sweep  peak MB  " +
    "MB/code MB  reopen s  reopen CPU s  cache load s  cached",
);
for (const file of files) {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-bench-analysis-" });
  const h = await startRemcp({
    stateDir,
    env: {
      REMCP_CHECK_OUTPUT: "0",
      REMCP_LOG_LEVEL: "error",
      REMCP_WORKER_MEMORY_MB: "8192",
      REMCP_ANALYSIS_TIMEOUT: "3600",
      REMCP_MAX_FILE_MB: "2048",
    },
  });
  try {
    const ref = await sweep(await Deno.readFile(file));
    const pidOf = async (database: unknown) => {
      const list = await ok(h.client, "list_databases");
      const db = (list.items as { database: string; pid?: number }[])
        .find((d) => d.database === database);
      if (db?.pid === undefined) throw new Error(`no worker pid for ${file}`);
      return db.pid;
    };
    let t0 = performance.now();
    const a = await ok(h.client, "open_database", { path: file });
    await waitReady(h.client, a.database);
    const first = (performance.now() - t0) / 1000;
    const pid = await pidOf(a.database);
    const cpu = cpuSeconds(pid);
    const peak = peakMb(pid);
    if (!("reason" in rz)) await printAaaBeside(rz, h.client, String(a.database), file, first);
    await ok(h.client, "close_database", { database: a.database });
    t0 = performance.now();
    const b = await ok(h.client, "open_database", { path: file });
    await waitReady(h.client, b.database);
    const again = (performance.now() - t0) / 1000;
    const cpu2 = cpuSeconds(await pidOf(b.database));
    const i2 = (await ok(h.client, "get_database_info", { database: b.database })).analysis as {
      cached: boolean;
      seconds: number;
    };
    const name = file.length > 22 ? `…${file.slice(-21)}` : file;
    console.log(
      `${name.padEnd(22)} ${ref.mb.toFixed(2).padStart(8)} ${first.toFixed(2).padStart(7)} ${
        cpu.toFixed(2).padStart(13)
      } ${(ref.mb / cpu).toFixed(2).padStart(9)} ${(cpu / ref.seconds).toFixed(1).padStart(7)}× ${
        peak.toFixed(0).padStart(8)
      } ${(peak / ref.mb).toFixed(0).padStart(11)} ${again.toFixed(2).padStart(9)} ${
        cpu2.toFixed(2).padStart(13)
      } ${i2.seconds.toFixed(2).padStart(13)} ${String(i2.cached).padStart(7)}`,
    );
    await ok(h.client, "close_database", { database: b.database });
  } finally {
    await h.close();
    await Deno.remove(stateDir, { recursive: true });
  }
}
console.log(`load average after: ${load()}`);
console.log(
  "worker CPU s and peak MB include the worker's start and the file's load; " +
    "× sweep = worker CPU s / linear-sweep CPU s of the same code in this process",
);
