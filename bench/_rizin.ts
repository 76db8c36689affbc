/**
 * Rizin beside remcp, for the benchmarks that compare with it when `rizin` is on PATH (or
 * REMCP_RIZIN names it): `aaa` time and peak memory beside the embedded analysis
 * (bench/analysis.ts), and `rz-diff -t functions` beside diff_databases (bench/diff.ts). Without
 * Rizin, {@link rizinForBench} says why and the benchmarks print that and go on without it.
 * Peak memory is VmHWM from /proc, so Linux only.
 *
 *   deno run -A bench/_rizin.ts FILE…   (aaa beside remcp's open, long calls allowed: big files
 *                                        outlast the client's default request timeout)
 */
import type { Client } from "@modelcontextprotocol/client";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { findRizin, probeVersion, supported } from "../src/probes/rizin.ts";
import { RizinPipe } from "../workers/rizin/pipe.ts";
import { startRemcp } from "../tests/_harness.ts";
import { z } from "zod";
import { runCpuLimited } from "./_cpu_limit.ts";
import { type MatchScore, scoreMatches } from "./_match_score.ts";

/** Request options for calls that may run for a long time on a busy machine. */
const LONG = { timeout: 3_600_000, resetTimeoutOnProgress: true };

/** The Rizin executables a benchmark can compare with. */
export interface RizinForBench {
  rizin: string;
  /** rz-diff beside rizin (or on PATH), when there is one. */
  rzDiff?: string;
  version: string;
}

/** Rizin to compare with, or why there is none (printed once by the caller). */
export function rizinForBench(): RizinForBench | { reason: string } {
  const rizin = findRizin(Deno.env.get("REMCP_RIZIN"), Deno.env.toObject());
  if (!rizin) return { reason: "rizin is not installed (put it on PATH or set REMCP_RIZIN)" };
  const { version, error } = probeVersion(rizin);
  if (!version) return { reason: error ?? `${rizin} -v failed` };
  if (!supported(version)) return { reason: `rizin ${version.text} is older than 0.7` };
  if (Deno.build.os !== "linux") return { reason: "peak memory is read from /proc (Linux only)" };
  const rzDiff = [dirname(rizin), ...(Deno.env.get("PATH") ?? "").split(delimiter)]
    .filter((d) => isAbsolute(d)).map((d) => join(d, "rz-diff")).find(isFile);
  return { rizin, version: version.text, ...(rzDiff ? { rzDiff } : {}) };
}

/** Peak resident memory of a live process, MiB (VmHWM). */
export function peakMib(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** One `rizin FILE` then `aaa`: load and analysis seconds, peak memory, functions found. */
export interface RizinAaa {
  loadSeconds: number;
  aaaSeconds: number;
  peakMib: number;
  functions: number;
}

/** Runs `aaa` on `file` in a fresh `rizin -q0` (the way the rizin backend drives it). */
export async function rizinAaa(rz: RizinForBench, file: string): Promise<RizinAaa> {
  const hour = 3_600_000;
  const t0 = performance.now();
  const pipe = await RizinPipe.start([rz.rizin, "-q0", "-N", "-e", "scr.color=0", file], {
    startupTimeoutMs: hour,
  });
  try {
    const loadSeconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    await pipe.run("aaa", hour);
    const aaaSeconds = (performance.now() - t1) / 1000;
    const peak = peakMib(pipe.pid);
    const functions = Number((await pipe.run("aflc", 60_000)).output.trim());
    return { loadSeconds, aaaSeconds, peakMib: peak, functions };
  } finally {
    await pipe.quit();
  }
}

/**
 * Rizin's `aaa` on `file` beside remcp's open of the same file (already analysed in `database`;
 * `remcpSeconds` from open_database to analysed): one printed line with the time and peak-memory
 * ratios.
 */
export async function printAaaBeside(
  rz: RizinForBench,
  client: Client,
  database: string,
  file: string,
  remcpSeconds: number,
): Promise<void> {
  const list = await client.callTool({ name: "list_databases", arguments: {} }, LONG);
  const db = (list.structuredContent as { items: { database: string; pid?: number }[] }).items
    .find((d) => d.database === database);
  const remcpPeak = db?.pid ? peakMib(db.pid) : NaN;
  const info = await client.callTool(
    { name: "list_functions", arguments: { database, limit: 1 } },
    LONG,
  );
  const remcpFunctions = (info.structuredContent as { total?: number }).total ?? NaN;
  const r = await rizinAaa(rz, file);
  console.log(
    `  ${file}: rizin ${rz.version} aaa: ${r.aaaSeconds.toFixed(2)} s (+ ${
      r.loadSeconds.toFixed(2)
    } s load), peak ${r.peakMib.toFixed(0)} MiB, ${r.functions} functions | remcp: ${
      remcpSeconds.toFixed(2)
    } s, worker peak ${remcpPeak.toFixed(0)} MiB, ${remcpFunctions} functions | rizin/remcp: time ${
      ((r.loadSeconds + r.aaaSeconds) / remcpSeconds).toFixed(2)
    }×, memory ${(r.peakMib / remcpPeak).toFixed(2)}× (load ${Deno.loadavg()[0]!.toFixed(1)})`,
  );
}

/** rz-diff's function matching scored the way bench/diff.ts scores diff_databases. */
export type RzDiffScore = Omit<MatchScore, "wrong"> & {
  matched: number;
  seconds: number;
  cpuSeconds: number;
};

/** rz-diff killed for going over its CPU-time limit, with what it had used by then. */
export interface RzDiffOverLimit {
  overLimit: true;
  limitSeconds: number;
  cpuSeconds: number;
  seconds: number;
}

/**
 * CPU time rz-diff may use on one pair before it is stopped (session 21 saw it run 47 minutes
 * on SQLite without finishing): 40 CPU-minutes.
 */
export const RZ_DIFF_CPU_LIMIT_SECONDS = 2400;

/** The function pairs and the function starts of each side in `rz-diff -t functions -j` output. */
export interface RzDiffFunctions {
  matched: (readonly [number, number])[];
  foundA: Set<number>;
  foundB: Set<number>;
}

const RzDiffRows = z.array(
  z.object({
    original: z.object({ addr: z.number() }).nullable().optional(),
    modified: z.object({ addr: z.number() }).nullable().optional(),
  }).loose(),
);

/**
 * Parses `rz-diff -t functions -j` output: a JSON array of rows, each an `original` function (of
 * the first file), a `modified` one (of the second) or both when rz-diff paired them. Anything rz-diff
 * printed before the array (analysis messages) is skipped.
 */
export function parseRzDiffFunctions(text: string): RzDiffFunctions {
  // A message such as "[x] Analyze all flags" is not the array: that starts a line with "[{" or
  // "[]".
  const at = text.search(/^\[\s*[{\]]/m);
  if (at < 0) throw new Error(`rz-diff printed no JSON array: ${text.slice(0, 200)}`);
  // Rizin 0.7.3 at times drops the comma between two rows ("}{"): seen on Lua 5.2.4 → 5.3.6 after
  // a zero-size function its matcher could not read ("cannot allocate buffer for function").
  // Function names hold no braces, so a brace pair can only be two rows.
  const rows = RzDiffRows.parse(JSON.parse(text.slice(at).replaceAll(/\}\s*\{/g, "},{")));
  return {
    matched: rows.flatMap((r) =>
      r.original && r.modified ? [[r.original.addr, r.modified.addr] as const] : []
    ),
    foundA: new Set(rows.flatMap((r) => r.original ? [r.original.addr] : [])),
    foundB: new Set(rows.flatMap((r) => r.modified ? [r.modified.addr] : [])),
  };
}

/**
 * `rz-diff -t functions` (which runs `aaa` on both files, then matches) on the stripped pair;
 * `symA`/`symB` map function starts to the unstripped builds' unique names (a's already renamed
 * to b's names). Scored as diff_databases is ({@link scoreMatches}), over the starts rizin found.
 * Stopped once it has used `cpuLimitSeconds` of CPU time.
 */
export async function rzDiffScore(
  rz: RizinForBench,
  a: string,
  b: string,
  symA: Map<number, string>,
  symB: Map<number, string>,
  cpuLimitSeconds = RZ_DIFF_CPU_LIMIT_SECONDS,
): Promise<RzDiffScore | RzDiffOverLimit> {
  if (!rz.rzDiff) throw new Error(`no rz-diff beside ${rz.rizin}`);
  const run = await runCpuLimited(
    rz.rzDiff,
    ["-t", "functions", "-j", "-C", a, b],
    cpuLimitSeconds,
  );
  if (run.overLimit) {
    return {
      overLimit: true,
      limitSeconds: cpuLimitSeconds,
      cpuSeconds: run.cpuSeconds,
      seconds: run.wallSeconds,
    };
  }
  if (!run.success) throw new Error(`rz-diff failed: ${run.stderr.slice(-400)}`);
  const { matched, foundA, foundB } = parseRzDiffFunctions(run.stdout);
  const { wrong: _, ...score } = scoreMatches(matched, symA, symB, foundA, foundB);
  return {
    ...score,
    matched: matched.length,
    seconds: run.wallSeconds,
    cpuSeconds: run.cpuSeconds,
  };
}

/** rz-diff on a bench/diff.ts pair, printed beside remcp's score and time for it. */
export async function printRzDiffBeside(
  rz: RizinForBench,
  a: string,
  b: string,
  symA: Map<number, string>,
  symB: Map<number, string>,
  remcp: { f1: number; openSeconds: number; diffSeconds: number },
  rename: (name: string) => string = (n) => n,
  cpuLimitSeconds = RZ_DIFF_CPU_LIMIT_SECONDS,
): Promise<void> {
  if (!rz.rzDiff) {
    console.log(`  rz-diff: skipped (no rz-diff beside ${rz.rizin})`);
    return;
  }
  const renamed = new Map([...symA].map(([at, n]) => [at, rename(n)]));
  const s = await rzDiffScore(rz, `${a}.stripped`, `${b}.stripped`, renamed, symB, cpuLimitSeconds);
  const remcpSeconds = remcp.openSeconds + remcp.diffSeconds;
  const load = Deno.loadavg()[0]!.toFixed(1);
  if ("overLimit" in s) {
    console.log(
      `  rz-diff ${rz.version} -t functions: not finished in ${
        (s.limitSeconds / 60).toFixed(0)
      } CPU-min (stopped after ${s.cpuSeconds.toFixed(0)} CPU s, ${
        s.seconds.toFixed(0)
      } s wall; remcp F1 ${remcp.f1.toFixed(3)}, open+analysis+diff ${
        remcpSeconds.toFixed(1)
      } s, load ${load})`,
    );
    return;
  }
  console.log(
    `  rz-diff ${rz.version} -t functions: truth ${s.truth}, matched ${s.matched}, judged ${s.judged}, ` +
      `correct ${s.correct}: precision ${s.precision.toFixed(3)}, recall ${
        s.recall.toFixed(3)
      }, F1 ${s.f1.toFixed(3)} (remcp F1 ${remcp.f1.toFixed(3)}); ${s.seconds.toFixed(1)} s (${
        s.cpuSeconds.toFixed(1)
      } CPU s) with its two aaa vs remcp open+analysis+diff ${remcpSeconds.toFixed(1)} s (${
        (s.seconds / remcpSeconds).toFixed(2)
      }×, load ${load})`,
  );
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

async function main(files: string[]): Promise<void> {
  const rz = rizinForBench();
  if ("reason" in rz) {
    console.log(`rizin side by side skipped: ${rz.reason}`);
    return;
  }
  const h = await startRemcp({ env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" } });
  try {
    for (const file of files) {
      const t0 = performance.now();
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = await h.client.callTool({ name, arguments: args }, LONG);
        if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
        return r.structuredContent as Record<string, unknown>;
      };
      const { database } = await call("open_database", { path: file, force_new: true });
      await call("wait_for_analysis", { database, timeout: 3600 });
      const seconds = (performance.now() - t0) / 1000;
      await printAaaBeside(rz, h.client, String(database), file, seconds);
      await call("close_database", { database, force: true });
    }
  } finally {
    await h.close();
  }
}

if (import.meta.main) await main(Deno.args);
