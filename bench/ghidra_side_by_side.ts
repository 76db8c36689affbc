/**
 * remcp's decompiler side by side with Ghidra's, on the same functions (issue "A decompiler of
 * our own": fewer gotos than Ghidra, faster than it at the median):
 *
 * - the stripped x86-64 ELF fixtures (tests/fixtures), every function the analysis finds;
 * - the differential harness's corpus (bench/decompile/corpus/) built with gcc and clang at -O0
 *   and -O2 and stripped, its corpus functions;
 * - /bin/ls, an evenly spread sample of its functions;
 * - with `--bin A,B,…`, other binaries (bench/corpus.sh's Debian builds), a sample of each.
 *
 * For each: gotos and lines per function (comments and blank lines not counted), median and p99
 * milliseconds per function, and the ratio of Ghidra's median to ours, over the functions both
 * decompiled, and the median CPU milliseconds per function (on a busy machine wall time is mostly
 * waiting for a core; CPU time is what the work costs). Our time is decompile_function through
 * the worker's tool runner (decoding, decompiling, printing; the binary opened and analysed
 * before). Ghidra's is the same work in
 * one console session per binary (the binary loaded before): `load addr` (flow following and
 * decoding), `decompile` and `print C`, timed from the first command to the prompt after the
 * last, so process start and loading are amortised for both. CPU time: the whole Deno process
 * (all threads) over our call, the console's one thread (/proc/PID/schedstat) over its three.
 *
 * Both sides are measured warm, as they are used: a worker is long-lived and decompiles many
 * functions of one binary, as Ghidra's process does. Before the measured functions each side
 * decompiles the same `--warm N` (default 20) other functions of the binary, unmeasured, in a
 * fresh process: that charges our JIT's compiling the passes, Ghidra's first-use setup, and
 * what either keeps per binary (our callee summaries, shared by every later function that calls
 * the same callee) to no measured function on either side. Nothing is hidden: the first warm-up
 * function of each binary, in a process that has decompiled nothing yet, is printed as the cold
 * time of each side, per binary and as a median in the table (`cold first`); `--warm 0` measures
 * from a cold process as before.
 *
 * Ghidra's decompiler is not part of remcp: whoever runs this builds its stand-alone console
 * (`decomp_opt`, from Ghidra/Features/Decompiler/src/decompile/cpp) and compiles x86-64.sla
 * from Ghidra's sleigh specs; this script only runs what it is given.
 *
 *   deno run -A bench/ghidra_side_by_side.ts --ghidra PATH/decomp_opt [--sleigh-home DIR]
 *     [--sets fixtures,corpus,ls] [--cc gcc,clang] [--opt O0,O2] [--ls-max 300]
 *     [--bin PATH,PATH… [--bin-max 150]] [--baseline DIR] [--warm 20]
 *     [--worst N] [--dump DIR] [--json FILE]
 *
 * `--baseline DIR` is another remcp checkout (an earlier commit): its decompiler runs on the same
 * functions right before this one's and Ghidra's, binary by binary, and gets rows of its own
 * (`…, baseline`), so a change is measured before and after under the same load. The load
 * average is printed at the start and the end.
 *
 * `--ghidra` defaults to $REMCP_GHIDRA_DECOMP; the sleigh home (a folder holding
 * Ghidra/Processors/x86/data/languages with x86-64.sla) to $SLEIGHHOME. `--worst N` lists the N
 * functions where we print the most gotos more than Ghidra; `--dump DIR` writes both outputs of
 * every paired function there.
 */
import { parseArgs } from "node:util";
import { buildCorpus, haveCompiler, sh } from "./decompile/build.ts";
import { decompileAll, type Decompiled, listFunctions } from "./decompile/engine_runner.ts";
import { ghidraAnswer, ghidraDecompileAll } from "./decompile/ghidra_runner.ts";
import { type Pair, pairUp, SIDE_HEADER, sideRow } from "./decompile/side_by_side.ts";
import { loadCorpus } from "./decompile/signatures.ts";
import { quantile, table } from "./decompile/stats.ts";

const FIXTURES = [
  "elf_x86_64_gcc_O0_stripped",
  "elf_x86_64_gcc_O2_stripped",
  "elf_x86_64_clang_O2",
  "elf_x86_64_switch_gcc_O0",
  "elf_x86_64_switch_gcc_O2",
  "elf_x86_64_switch_clang_O2",
  "elf_x86_64_switch_clang_O3_nopie",
];

interface Target {
  label: string;
  binary: string;
  /** Function starts, "0x…"; undefined: every function the analysis finds (or a sample). */
  addresses?: string[];
  /** Names to report instead of addresses, same order. */
  names?: string[];
  max?: number;
}

interface Ghidra {
  decomp: string;
  sleighHome: string;
}

function usage(message: string): never {
  console.error(
    `${message}\n\nThis benchmark compares remcp's decompiler with Ghidra's stand-alone console ` +
      `decompiler, which you build yourself from Ghidra's sources (nothing in remcp builds or ` +
      `ships it): the console decomp_opt (Ghidra/Features/Decompiler/src/decompile/cpp), and ` +
      `x86-64.sla compiled from Ghidra/Processors/x86/data/languages/x86-64.slaspec with its ` +
      `sleigh compiler. Then pass --ghidra PATH/decomp_opt and --sleigh-home with the folder ` +
      `that holds Ghidra/Processors (or set REMCP_GHIDRA_DECOMP and SLEIGHHOME).`,
  );
  Deno.exit(2);
}

async function checkGhidra(g: Ghidra): Promise<void> {
  try {
    const st = await Deno.stat(g.decomp);
    if (!st.isFile) usage(`--ghidra ${g.decomp} is not a file`);
  } catch {
    usage(`--ghidra ${g.decomp} does not exist`);
  }
  if (g.sleighHome === "") usage("no sleigh home: pass --sleigh-home or set SLEIGHHOME");
  const sla = `${g.sleighHome}/Ghidra/Processors/x86/data/languages/x86-64.sla`;
  try {
    await Deno.stat(sla);
  } catch {
    usage(`${sla} is missing: compile it with sleigh_opt from x86-64.slaspec`);
  }
}

/** A stripped copy of `binary` in `dir` (the decompilers see no symbols). */
async function stripped(binary: string, dir: string): Promise<string> {
  const out = `${dir}/${binary.split("/").pop()}.stripped`;
  const r = await sh("strip", ["-o", out, binary]);
  return r.ok ? out : binary;
}

async function targets(
  sets: string[],
  ccs: string[],
  opts: string[],
  lsMax: number,
  tmp: string,
  bins: string[] = [],
  binMax = 150,
): Promise<Target[]> {
  const out: Target[] = [];
  if (sets.includes("fixtures")) {
    const dir = new URL("../tests/fixtures/bin/", import.meta.url).pathname;
    for (const f of FIXTURES) {
      const path = `${dir}${f}`;
      const binary = f.endsWith("_stripped") ? path : await stripped(path, tmp);
      out.push({
        label: `fixture ${f.replace(/^elf_x86_64_/, "").replace(/_stripped$/, "")}`,
        binary,
      });
    }
  }
  if (sets.includes("corpus")) {
    const corpus = await loadCorpus();
    for (const cc of ccs) {
      if (!(await haveCompiler(cc))) {
        console.error(`skip corpus with ${cc}: not installed`);
        continue;
      }
      for (const opt of opts) {
        const build = await buildCorpus(cc, `-${opt}`, `${tmp}/${cc}_${opt}`, corpus);
        const fns = [...build.addresses].sort((a, b) => a[1] - b[1]);
        out.push({
          label: `corpus ${cc} -${opt}`,
          binary: build.stripped,
          addresses: fns.map(([, a]) => `0x${a.toString(16)}`),
          names: fns.map(([n]) => n),
        });
      }
    }
  }
  for (const binary of bins) {
    try {
      const real = await Deno.realPath(binary);
      out.push({ label: binary.split("/").pop()!, binary: await stripped(real, tmp), max: binMax });
    } catch {
      console.error(`skip ${binary}: not found`);
    }
  }
  if (sets.includes("ls")) {
    try {
      out.push({ label: "/bin/ls", binary: await Deno.realPath("/bin/ls"), max: lsMax });
    } catch {
      console.error("skip /bin/ls: not on this machine");
    }
  }
  return out;
}

/** An evenly spread sample of at most `max` of `all`. */
function sample(all: readonly string[], max: number): string[] {
  const step = Math.max(1, all.length / max);
  const out: string[] = [];
  for (let i = 0; i < all.length && out.length < max; i += step) out.push(all[Math.floor(i)]!);
  return out;
}

/** The pairs of one target, and those of the baseline checkout when one is given. */
interface Compared {
  pairs: Pair[];
  baseline?: Pair[];
  tried: number;
  /** CPU (else wall) milliseconds of the first function in a fresh process, per side. */
  cold: { ours: number | undefined; theirs: number | undefined; baseline?: number | undefined };
}

/** Up to `n` functions of `all` not in `measured`, evenly spread: the warm-up. */
function warmUp(all: readonly string[], measured: readonly string[], n: number): string[] {
  const skip = new Set(measured.map((a) => Number(a)));
  const rest = all.filter((a) => !skip.has(Number(a)));
  return n > 0 ? sample(rest, n) : [];
}

async function compare(
  t: Target,
  ghidra: Ghidra,
  warm: number,
  baselineChild?: string,
): Promise<Compared> {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp_bench_side_" });
  try {
    const listed = t.addresses === undefined || warm > 0
      ? await listFunctions(t.binary, { stateDir })
      : [];
    let addresses = t.addresses ?? listed;
    if (t.max !== undefined) addresses = sample(addresses, t.max);
    // The same warm-up functions first on each side, in the same order; then the measured ones.
    const warmed = warmUp(listed, addresses, warm);
    const list = [...warmed, ...addresses];
    const measured = <T>(rs: T[]) => rs.slice(warmed.length);
    const coldOf = (rs: Decompiled[]) => rs[0]?.cpuMs ?? rs[0]?.ms;
    // The baseline, ours, then Ghidra's, on the same binary back to back: all under the same
    // load.
    const before = baselineChild
      ? (await decompileAll(t.binary, list, { stateDir, child: baselineChild })).results
      : undefined;
    const { results: all } = await decompileAll(t.binary, list, { stateDir });
    const theirsAll = await ghidraDecompileAll(ghidra.decomp, ghidra.sleighHome, t.binary, list);
    const results = measured(all);
    const theirs = measured(theirsAll);
    const names = t.names ?? addresses;
    const what = names.map((n) => `${t.label}: ${n}`);
    const answers = (rs: Decompiled[]) =>
      rs.map((r) => ({
        ms: r.ms,
        ...(r.cpuMs !== undefined ? { cpuMs: r.cpuMs } : {}),
        code: r.ok && typeof r.result?.code === "string" ? r.result.code : undefined,
      }));
    const pairs = pairUp(what, answers(results), theirs.map(ghidraAnswer));
    const ourFails = results.filter((r) => !r.ok).length;
    const theirFails = theirs.filter((r) => !r.ok).length;
    const cold = {
      ours: coldOf(all),
      theirs: coldOf(theirsAll),
      ...(before ? { baseline: coldOf(before) } : {}),
    };
    console.error(
      `${t.label}: ${addresses.length} functions (after ${warmed.length} to warm up), ` +
        `${pairs.length} both, remcp failed ${ourFails}, Ghidra failed ${theirFails}` +
        (before ? `, baseline failed ${measured(before).filter((r) => !r.ok).length}` : "") +
        `; cold first function: remcp ${fmtMs(cold.ours)} ms, Ghidra ${fmtMs(cold.theirs)} ms` +
        (before ? `, baseline ${fmtMs(cold.baseline)} ms` : ""),
    );
    return {
      pairs,
      ...(before
        ? { baseline: pairUp(what, answers(measured(before)), theirs.map(ghidraAnswer)) }
        : {}),
      tried: addresses.length,
      cold,
    };
  } finally {
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

function fmtMs(ms: number | undefined): string {
  return ms === undefined ? "-" : ms.toFixed(1);
}

/** The median of the defined values, "-" when there are none. */
function medianOf(values: (number | undefined)[]): string {
  const v = values.filter((x): x is number => x !== undefined);
  return v.length === 0 ? "-" : fmtMs(quantile(v, 0.5));
}

/** The load averages (1, 5, 15 minutes), where /proc says them. */
function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      ghidra: { type: "string" },
      "sleigh-home": { type: "string" },
      sets: { type: "string", default: "fixtures,corpus,ls" },
      cc: { type: "string", default: "gcc,clang" },
      opt: { type: "string", default: "O0,O2" },
      "ls-max": { type: "string", default: "300" },
      bin: { type: "string", default: "" },
      "bin-max": { type: "string", default: "150" },
      warm: { type: "string", default: "20" },
      baseline: { type: "string" },
      worst: { type: "string", default: "0" },
      dump: { type: "string" },
      json: { type: "string" },
    },
  });
  const decomp = values.ghidra ?? Deno.env.get("REMCP_GHIDRA_DECOMP");
  if (decomp === undefined || decomp === "") {
    usage("no Ghidra decompiler given: pass --ghidra PATH/decomp_opt or set REMCP_GHIDRA_DECOMP");
  }
  const ghidra: Ghidra = {
    decomp,
    sleighHome: values["sleigh-home"] ?? Deno.env.get("SLEIGHHOME") ?? "",
  };
  await checkGhidra(ghidra);
  let baselineChild: string | undefined;
  if (values.baseline) {
    baselineChild = `${values.baseline}/bench/decompile/decompile_child.ts`;
    try {
      await Deno.stat(baselineChild);
    } catch {
      usage(`--baseline ${values.baseline} is not a remcp checkout (no ${baselineChild})`);
    }
  }
  const tmp = await Deno.makeTempDir({ prefix: "remcp_bench_side_" });
  const rows: string[][] = [];
  const all: Pair[] = [];
  const allBefore: Pair[] = [];
  let tried = 0;
  const colds: Compared["cold"][] = [];
  const warm = Number(values.warm);
  const loadAtStart = loadAverage();
  try {
    const list = await targets(
      values.sets.split(","),
      values.cc.split(","),
      values.opt.split(","),
      Number(values["ls-max"]),
      tmp,
      values.bin.split(",").filter((b) => b !== ""),
      Number(values["bin-max"]),
    );
    for (const t of list) {
      const r = await compare(t, ghidra, warm, baselineChild);
      colds.push(r.cold);
      const added = r.baseline ? [sideRow(`${t.label}, baseline`, r.baseline, r.tried)] : [];
      added.push(sideRow(t.label, r.pairs, r.tried));
      rows.push(...added);
      // Each row as it comes (a whole run takes long on a busy machine).
      console.error(table(["set", ...SIDE_HEADER], added));
      all.push(...r.pairs);
      allBefore.push(...(r.baseline ?? []));
      tried += r.tried;
    }
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  if (baselineChild) rows.push(sideRow("all, baseline", allBefore, tried));
  rows.push(sideRow("all", all, tried));
  console.log(
    `\nload average (1, 5, 15 min): ${loadAtStart} at the start, ${loadAverage()} at the end`,
  );
  console.log(
    "\nremcp's decompiler side by side with Ghidra's (its console, decomp_opt), on the functions " +
      "both decompiled (goals: fewer gotos than Ghidra, faster at the median)",
  );
  console.log(table(["set", ...SIDE_HEADER], rows));
  console.log(
    "fewer/more gotos: functions where remcp prints fewer / more gotos than Ghidra; " +
      "Ghidra/remcp median: Ghidra's median ms over ours (above 1: remcp is faster)",
  );
  console.log(
    `measured warm: ${warm} other functions of each binary decompiled first on each side, ` +
      `unmeasured; cold first function (a fresh process's first, CPU ms, median over ` +
      `${colds.length} binaries): remcp ${medianOf(colds.map((c) => c.ours))}, Ghidra ` +
      `${medianOf(colds.map((c) => c.theirs))}` +
      (baselineChild ? `, baseline ${medianOf(colds.map((c) => c.baseline))}` : ""),
  );
  const worst = Number(values.worst);
  if (worst > 0) {
    const losses = all.filter((p) => p.ours.shape.gotos > p.theirs.shape.gotos)
      .sort((a, b) =>
        (b.ours.shape.gotos - b.theirs.shape.gotos) - (a.ours.shape.gotos - a.theirs.shape.gotos)
      ).slice(0, worst);
    console.log(`\nMost gotos more than Ghidra (remcp vs Ghidra):`);
    for (const p of losses) {
      console.log(`  ${p.what}: ${p.ours.shape.gotos} vs ${p.theirs.shape.gotos}`);
    }
  }
  if (values.dump) {
    await Deno.mkdir(values.dump, { recursive: true });
    for (const [i, p] of all.entries()) {
      const base = `${values.dump}/${String(i).padStart(4, "0")}`;
      await Deno.writeTextFile(`${base}.remcp.c`, `// ${p.what}\n${p.ours.code}`);
      await Deno.writeTextFile(`${base}.ghidra.c`, `// ${p.what}\n${p.theirs.code}`);
    }
  }
  if (values.json) {
    await Deno.writeTextFile(
      values.json,
      JSON.stringify(
        all.map((p) => ({
          what: p.what,
          remcp: { ms: p.ours.ms, cpu_ms: p.ours.cpuMs, ...p.ours.shape },
          ghidra: { ms: p.theirs.ms, cpu_ms: p.theirs.cpuMs, ...p.theirs.shape },
        })),
        null,
        1,
      ),
    );
  }
}

if (import.meta.main) await main();
