/**
 * The embedded decompiler, measured (issue "A decompiler of our own"):
 *
 * - correctness by differential testing: the corpus in bench/decompile/corpus/ (over 200 small C
 *   functions) built with gcc and clang at -O0 and -O2, each function decompiled from the
 *   stripped binary, recompiled with gcc against bench/decompile/remcp_decomp.h, and run against
 *   the original on the same random inputs in a crash-safe driver;
 * - structure and speed: gotos and lines per function, median and p99 ms per function, with the
 *   ratio to disassemble_function on the same functions in the same run;
 * - coverage on real binaries (/bin/ls, python3, and with `--corpus DIR` the programs
 *   bench/corpus.sh built from Debian sources): bench/lifted_share.ts's measurement.
 *
 *   deno run -A bench/decompile.ts [--cc gcc,clang,i386-gcc,i386-clang,aarch64-gcc,aarch64-clang] [--opt O0,O2] [--trials 100]
 *     [--only f1,f2] [--no-coverage] [--coverage-only] [--coverage-max N] [--corpus DIR]
 *     [--identity] [--keep DIR] [--json FILE]
 *     [--show NAME] [--ghidra PATH/decomp_opt [--sleigh-home DIR]] [--tier simplified|last-resort]
 *
 * `--cc` takes compiler labels: gcc and clang build for the host (x86-64); i386-gcc and
 * i386-clang for x86-32 with `-m32` (`apt-get install lib32gcc-12-dev libc6-dev-i386 qemu-user`:
 * not gcc-multilib, which Debian makes conflict with the cross compilers), the driver run under
 * qemu-i386; aarch64-gcc and aarch64-clang build for AArch64 with Debian's cross toolchain and run
 * the driver under qemu-user (`apt-get install gcc-aarch64-linux-gnu qemu-user`).
 *
 * `--tier` makes the engine answer every function with that tier alone (it sets
 * REMCP_DEBUG_DECOMPILER_TIER for the engine's processes): the differential run of the tiers a
 * function gets when the full pipeline runs out of budget.
 *
 * `--identity` replaces the decompiler with the corpus source itself (a check of the harness:
 * everything must come out equivalent). `--show NAME` prints that function's pseudo-C and
 * outcome per build. `--ghidra` adds Ghidra's decompiler side by side on the same functions: its
 * stand-alone console, which the person running the benchmark builds from Ghidra's sources
 * (nothing in this repository builds or ships it); SLEIGHHOME (or --sleigh-home) is a folder
 * holding Ghidra/Processors/x86/data/languages with x86-64.sla compiled.
 */
import { parseArgs } from "node:util";
import { TIER_ENV } from "../workers/embedded/decompiler/service.ts";
import { buildCorpus, type CorpusBuild, haveCompiler } from "./decompile/build.ts";
import { ghidraAnswer, ghidraDecompileAll } from "./decompile/ghidra_runner.ts";
import { pairUp, SIDE_HEADER, sideRow } from "./decompile/side_by_side.ts";
import {
  type Decompiler,
  type FunctionOutcome,
  runDifferential,
  summarize,
} from "./decompile/differential.ts";
import { decompileAll } from "./decompile/engine_runner.ts";
import { liftedShare, row, SHARE_HEADER, type ShareResult } from "./lifted_share.ts";
import { identityDecompiler } from "./decompile/identity.ts";
import { loadCorpus } from "./decompile/signatures.ts";
import { mean, pct, quantile, table, topCounts } from "./decompile/stats.ts";

const engineDecompiler = (budgetS: number): Decompiler => async (build, targets) => {
  const { results } = await decompileAll(
    build.stripped,
    targets.map((t) => `0x${t.address.toString(16)}`),
    { budgetS },
  );
  return results;
};

function fmt(n: number, digits = 1): string {
  return Number.isNaN(n) ? "-" : n.toFixed(digits);
}

/** The columns both tables end with: structure, speed, the speed reference, wall time. */
const SHAPE_HEADER = ["gotos/fn", "lines/fn", "median ms", "p99 ms", "× disasm", "wall s"];

function shapeCells(
  gotos: readonly number[],
  lines: readonly number[],
  ms: readonly number[],
  disasmMs: readonly number[],
  t0: number,
): string[] {
  return [
    fmt(mean(gotos), 2),
    fmt(mean(lines)),
    fmt(quantile(ms, 0.5), 2),
    fmt(quantile(ms, 0.99), 2),
    ratio(ms, disasmMs),
    fmt((performance.now() - t0) / 1000, 0),
  ];
}

/** Median of `ms` over median of the reference, as "12.3×". */
function ratio(ms: readonly number[], reference: readonly number[]): string {
  const r = quantile(ms, 0.5) / quantile(reference, 0.5);
  return Number.isFinite(r) ? `${r.toFixed(1)}×` : "-";
}

function reasonOf(o: FunctionOutcome): string {
  const d = o.detail.replace(/\bdec_\w+/g, "dec_NAME").replace(/0x[0-9a-f]+/gi, "0x…")
    .replace(/\d+/g, "N").slice(0, 110);
  return `${o.stage}: ${d}`;
}

async function differential(
  args: {
    ccs: string[];
    opts: string[];
    trials: number;
    only: string[] | undefined;
    identity: boolean;
    keep: string | undefined;
    budgetS: number;
    show: string | undefined;
    ghidra: { decomp: string; sleighHome: string } | undefined;
  },
): Promise<Record<string, FunctionOutcome[]>> {
  const corpus = await loadCorpus();
  const sigs = args.only ? corpus.filter((s) => args.only!.includes(s.name)) : corpus;
  const tmp = args.keep ?? await Deno.makeTempDir({ prefix: "remcp_bench_decompile_" });
  const all: Record<string, FunctionOutcome[]> = {};
  const rows: string[][] = [];
  const sideBySide: string[][] = [];
  const reasons: string[] = [];
  const decompiler = args.identity ? identityDecompiler : engineDecompiler(args.budgetS);
  try {
    for (const cc of args.ccs) {
      if (!(await haveCompiler(cc))) {
        console.log(`skip ${cc}: not installed`);
        continue;
      }
      for (const opt of args.opts) {
        const label = `${cc} -${opt}`;
        const t0 = performance.now();
        const build = await buildCorpus(cc, `-${opt}`, `${tmp}/${cc}_${opt}`, corpus);
        const outcomes = await runDifferential(build, sigs, decompiler, { trials: args.trials });
        all[label] = outcomes;
        if (args.keep) {
          await Deno.writeTextFile(
            `${build.dir}/outcomes.json`,
            JSON.stringify(outcomes, null, 1),
          );
        }
        const s = summarize(outcomes);
        rows.push([
          label,
          String(s.total),
          pct(s.decompiled, s.total),
          pct(s.recompiled, s.total),
          pct(s.equivalent, s.total),
          ...shapeCells(s.gotos, s.lines, s.ms, s.disasmMs, t0),
        ]);
        for (const o of outcomes) if (o.stage !== "equivalent") reasons.push(reasonOf(o));
        if (args.ghidra) {
          sideBySide.push(await compareWithGhidra(label, build, outcomes, args.ghidra));
        }
        console.error(`${label}: ${pct(s.equivalent, s.total)} equivalent`);
        if (args.show) {
          const o = outcomes.find((x) => x.name === args.show);
          console.log(`\n--- ${args.show} (${label}): ${o?.stage} ${o?.detail}\n${o?.code ?? ""}`);
        }
      }
    }
  } finally {
    if (!args.keep) await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  console.log(
    `\nDifferential testing (${
      args.identity ? "IDENTITY CHECK: corpus source as the decompiler's output" : "engine remcp"
    }, ${args.trials} random inputs per function; goals: equivalent >= 90% at -O0, >= 80% at -O2)`,
  );
  console.log(table(
    [
      "build",
      "functions",
      "decompiled",
      "recompiled",
      "equivalent",
      ...SHAPE_HEADER,
    ],
    rows,
  ));
  console.log(
    "× disasm: median decompile_function ms over median disassemble_function ms, same functions",
  );
  if (reasons.length > 0) {
    console.log("\nMost frequent reasons a function is not equivalent (all builds):");
    for (const line of topCounts(reasons, 15)) console.log(`  ${line}`);
  }
  if (sideBySide.length > 0) {
    console.log(
      "\nSide by side with Ghidra's decompiler (its console, decomp_opt), on the functions both " +
        "decompiled (goals: fewer gotos than Ghidra, faster at the median)",
    );
    console.log(table(
      ["build", ...SIDE_HEADER],
      sideBySide,
    ));
  }
  return all;
}

/** One side-by-side row: the same functions of `build` through Ghidra's console decompiler. */
async function compareWithGhidra(
  label: string,
  build: CorpusBuild,
  outcomes: readonly FunctionOutcome[],
  ghidra: { decomp: string; sleighHome: string },
): Promise<string[]> {
  const ours = outcomes.filter((o) => o.shape !== undefined && o.address !== undefined);
  const theirs = await ghidraDecompileAll(
    ghidra.decomp,
    ghidra.sleighHome,
    build.stripped,
    ours.map((o) => `0x${o.address!.toString(16)}`),
  );
  const pairs = pairUp(
    ours.map((o) => o.name),
    ours.map((o) => ({ ms: o.ms ?? 0, code: o.code ?? "" })),
    theirs.map(ghidraAnswer),
  );
  return sideRow(label, pairs, ours.length);
}

/**
 * Coverage on real stripped binaries (and the Debian-source corpus of bench/corpus.sh with
 * `--corpus DIR`): bench/lifted_share.ts's in-process measurement, one row per binary.
 */
async function coverage(max: number, corpus: string | undefined): Promise<ShareResult[]> {
  const files: string[] = [];
  for (const f of ["/bin/ls", "/usr/bin/python3"]) {
    try {
      files.push(await Deno.realPath(f));
    } catch {
      console.log(`skip ${f}: not on this machine`);
    }
  }
  if (corpus) {
    for await (const e of Deno.readDir(`${corpus}/bin`)) {
      if (e.isFile) files.push(`${corpus}/bin/${e.name}`);
    }
  }
  const out: ShareResult[] = [];
  for (const file of files) out.push(await liftedShare(file, max));
  console.log(
    "\nCoverage on real binaries (goals: 100% give output, >= 99.5% of instructions " +
      "lifted without intrinsics)",
  );
  console.log(table(SHARE_HEADER, out.map((r) => row(r, r.path.replace(/^.*\/bin\//, "")))));
  const errors = out.flatMap((r) => [...r.errors].flatMap(([why, n]) => Array(n).fill(why)));
  if (errors.length > 0) {
    console.log("\nMost frequent errors:");
    for (const line of topCounts(errors, 10)) console.log(`  ${line}`);
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      cc: { type: "string", default: "gcc,clang" },
      opt: { type: "string", default: "O0,O2" },
      trials: { type: "string", default: "100" },
      only: { type: "string" },
      "no-coverage": { type: "boolean" },
      "coverage-only": { type: "boolean" },
      "coverage-max": { type: "string", default: "1500" },
      corpus: { type: "string" },
      budget: { type: "string", default: "60" },
      identity: { type: "boolean" },
      keep: { type: "string" },
      json: { type: "string" },
      show: { type: "string" },
      ghidra: { type: "string" },
      "sleigh-home": { type: "string" },
      tier: { type: "string" },
    },
  });
  const budgetS = Number(values.budget);
  // The engine's children inherit the variable: every function gets that tier's output.
  if (values.tier !== undefined) Deno.env.set(TIER_ENV, values.tier);
  const report: Record<string, unknown> = {};
  if (!values["coverage-only"]) {
    report.differential = await differential({
      ccs: values.cc.split(","),
      opts: values.opt.split(","),
      trials: Number(values.trials),
      only: values.only?.split(","),
      identity: values.identity === true,
      keep: values.keep,
      budgetS,
      show: values.show,
      ghidra: values.ghidra
        ? {
          decomp: values.ghidra,
          sleighHome: values["sleigh-home"] ?? Deno.env.get("SLEIGHHOME") ?? "",
        }
        : undefined,
    });
  }
  if (!values["no-coverage"] && !values.identity) {
    report.coverage = (await coverage(Number(values["coverage-max"]), values.corpus)).map((r) => ({
      ...r,
      mnemonics: Object.fromEntries(r.mnemonics),
      errors: Object.fromEntries(r.errors),
    }));
  }
  if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(report, null, 1));
}

if (import.meta.main) await main();
