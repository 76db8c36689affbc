/**
 * The differential run of one corpus build: decompile each function from the stripped binary,
 * recompile the pseudo-C, run original and recompiled on the same random inputs, and classify
 * each function. Shared by bench/decompile.ts (the whole corpus, four builds) and
 * tests/decompile_diff_test.ts (a committed subset).
 */
import type { CorpusBuild } from "./build.ts";
import { sh } from "./build.ts";
import { generateDriver, parseDriverOutput } from "./driver.ts";
import type { Decompiled } from "./engine_runner.ts";
import { compileDecompiled, linkDriver, prepareSource } from "./recompile.ts";
import type { Signature } from "./signatures.ts";
import { type CodeShape, shapeOf } from "./stats.ts";
import { toolchain } from "./toolchain.ts";

/** Where one function ended up, in pipeline order. */
export type Stage =
  | "missing" // not in the binary's symbols
  | "decompile" // decompile_function failed
  | "compile" // the pseudo-C does not compile
  | "link" // it compiles but does not link (a missing intrinsic or global)
  | "diff" // it runs and differs from the original
  | "crash" // the recompiled code crashed
  | "timeout" // the recompiled code did not return
  | "equivalent";

/** One function's outcome. */
export interface FunctionOutcome {
  name: string;
  address?: number;
  stage: Stage;
  /** Why it stopped there (error text, first difference). */
  detail: string;
  ms?: number;
  /** disassemble_function on the same function, when the engine measured it. */
  disasmMs?: number;
  shape?: CodeShape;
  code?: string;
}

/** Anything that decompiles the given functions of a build (the engine, or the identity check). */
export type Decompiler = (
  build: CorpusBuild,
  targets: readonly { sig: Signature; address: number }[],
) => Promise<Decompiled[]>;

/** Runs the differential pipeline on `build` for `sigs`. */
export async function runDifferential(
  build: CorpusBuild,
  sigs: readonly Signature[],
  decompile: Decompiler,
  opts: { trials: number; driverTimeoutS?: number; jobs?: number },
): Promise<FunctionOutcome[]> {
  const outcomes = new Map<string, FunctionOutcome>();
  const byAddress = new Map<number, Signature>();
  for (const sig of build.sigs) {
    const address = build.addresses.get(sig.name);
    if (address !== undefined) byAddress.set(address, sig);
  }
  const targets: { sig: Signature; address: number }[] = [];
  for (const sig of sigs) {
    const address = build.addresses.get(sig.name);
    if (address === undefined) {
      outcomes.set(sig.name, { name: sig.name, stage: "missing", detail: "no symbol" });
      continue;
    }
    targets.push({ sig, address });
  }
  const decompiled = await decompile(build, targets);
  const decDir = `${build.dir}/dec`;
  await Deno.mkdir(decDir, { recursive: true });
  const sources = new Map<string, string>();
  const objects = new Map<string, string>();
  const toCompile: string[] = [];
  targets.forEach(({ sig, address }, i) => {
    const d = decompiled[i]!;
    const base = {
      name: sig.name,
      address,
      ms: d.ms,
      ...(d.disasmMs !== undefined ? { disasmMs: d.disasmMs } : {}),
    };
    if (!d.ok || typeof d.result?.code !== "string") {
      outcomes.set(sig.name, {
        ...base,
        stage: "decompile",
        detail: `${d.errorType ?? "Error"}: ${d.error ?? "no code in the result"}`,
      });
      return;
    }
    const code = d.result.code;
    sources.set(sig.name, prepareSource(code, sig, address, byAddress));
    toCompile.push(sig.name);
    outcomes.set(sig.name, { ...base, shape: shapeOf(code), code, stage: "link", detail: "" });
  });
  for (const [name, src] of sources) await Deno.writeTextFile(`${decDir}/${name}.c`, src);
  const tools = toolchain(build.cc);
  const failed = await compileDecompiled(decDir, toCompile, {
    jobs: opts.jobs ?? 2,
    gcc: tools.gcc,
  });
  for (const name of toCompile) {
    const error = failed.get(name);
    if (error === undefined) objects.set(name, `${decDir}/${name}.o`);
    else Object.assign(outcomes.get(name)!, { stage: "compile", detail: error });
  }

  const sigOf = new Map(build.sigs.map((s) => [s.name, s]));
  const link = await linkDriver(
    build.dir,
    build.objects,
    objects,
    (names) => generateDriver(names.map((n) => sigOf.get(n)!), opts.trials),
    tools.gcc,
  );
  for (const [name, why] of link.failures) outcomes.get(name)!.detail = why;
  if (link.exe) {
    const [cmd, args] = tools.run(link.exe, [build.binary]);
    const run = await sh(cmd, args, {
      timeoutMs: (opts.driverTimeoutS ?? 1800) * 1000,
    });
    const results = parseDriverOutput(run.out);
    for (const name of link.linked) {
      const o = outcomes.get(name)!;
      const r = results.get(name);
      if (!r) {
        o.stage = "crash";
        o.detail = "the driver stopped before this function";
      } else {
        o.stage = r.status === "ok" ? "equivalent" : r.status;
        o.detail = r.detail;
      }
    }
  }
  return sigs.map((s) => outcomes.get(s.name)!);
}

/** Counts of outcomes for a report row. */
export interface Summary {
  total: number;
  decompiled: number;
  recompiled: number;
  equivalent: number;
  gotos: number[];
  lines: number[];
  ms: number[];
  disasmMs: number[];
}

/** Summarises outcomes: a function counts as recompiled once it compiles and links. */
export function summarize(outcomes: readonly FunctionOutcome[]): Summary {
  const past = (o: FunctionOutcome, stages: Stage[]) => !stages.includes(o.stage);
  return {
    total: outcomes.length,
    decompiled: outcomes.filter((o) => past(o, ["missing", "decompile"])).length,
    recompiled: outcomes.filter((o) => past(o, ["missing", "decompile", "compile", "link"]))
      .length,
    equivalent: outcomes.filter((o) => o.stage === "equivalent").length,
    gotos: outcomes.flatMap((o) => o.shape ? [o.shape.gotos] : []),
    lines: outcomes.flatMap((o) => o.shape ? [o.shape.lines] : []),
    ms: outcomes.flatMap((o) => o.ms !== undefined && o.stage !== "missing" ? [o.ms] : []),
    disasmMs: outcomes.flatMap((o) => o.disasmMs !== undefined ? [o.disasmMs] : []),
  };
}
