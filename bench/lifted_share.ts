/**
 * The embedded decompiler over the functions of real binaries, in process: the share of
 * functions that give C (and of those, the share the simplified tier gave: functions past the
 * full pipeline's budget share or size cap), the share of instructions lifted without `__asm_` intrinsics (and which
 * mnemonics are not), gotos per function, and milliseconds per function (median, p99) against
 * decoding the same functions with text in the same run.
 *
 * Run: `deno run -A bench/lifted_share.ts [--max N] [--corpus DIR] [--budget MS] [file ...]`
 * (default /bin/ls). `--budget MS` gives each tier MS milliseconds instead of 10 s: a machine
 * under load, simulated (the last-resort column counts the functions past both).
 * `--max N` decompiles N functions spread evenly over the binary's (python3 has thousands);
 * `--corpus DIR` adds every program bench/corpus.sh built into DIR/bin (Debian sources built
 * with gcc and clang at each optimization level) and prints one table row per program.
 */

import { parseArgs } from "node:util";
import { openImage } from "../workers/embedded/formats/open_image.ts";
import type { BinaryImage } from "../workers/embedded/formats/image.ts";
import { NameIndex } from "../workers/embedded/names.ts";
import { CodeView } from "../workers/embedded/code.ts";
import { analyze } from "../workers/embedded/analysis/analyze.ts";
import { AnnotationStore } from "../workers/shared/store/store.ts";
import type { EmbeddedDb } from "../workers/embedded/db.ts";
import {
  decompiled,
  type DecompileLimits,
  DecompilerCache,
  DEFAULT_LIMITS,
  renderFor,
} from "../workers/embedded/decompiler/service.ts";
import { MAX_CODE_BYTES } from "../workers/embedded/decompiler/fit.ts";
import { evenSample, quantile, table } from "./decompile/stats.ts";

/** What one binary measured. */
export interface ShareResult {
  path: string;
  /** Functions in the binary (imports excluded) and how many were decompiled. */
  functions: number;
  sampled: number;
  ok: number;
  /** Functions that gave C from the simplified tier, by why (the first clause of the note). */
  degraded: Map<string, number>;
  /** Functions that gave C from the last-resort tier, by why. */
  lastResort: Map<string, number>;
  instructions: number;
  unlifted: number;
  gotos: number;
  /** Milliseconds per function that gave C. */
  ms: number[];
  /** Decompiling time over decoding the same functions with text. */
  decodeRatio: number;
  /** Unlifted mnemonic → functions that have it. */
  mnemonics: Map<string, number>;
  errors: Map<string, number>;
}

/** Decompiles (a sample of at most `max`) functions of the binary at `path`. */
export async function liftedShare(
  path: string,
  max = Infinity,
  limits: DecompileLimits = DEFAULT_LIMITS,
): Promise<ShareResult> {
  const bytes = await Deno.readFile(path);
  const image = openImage(bytes);
  const names = new NameIndex(image);
  const code = new CodeView(image);
  // The store and its lock, journal and WAL files live in a folder of their own, removed however
  // the run ends (a bare temporary .sqlite left its .lock, and everything on an error, in /tmp).
  const storeDir = await Deno.makeTempDir({ prefix: "remcp-bench-lifted-share-" });
  const store = AnnotationStore.open(`${storeDir}/db.sqlite`);
  try {
    return await measure(path, image, names, code, store, max, limits);
  } finally {
    store.close();
    await Deno.remove(storeDir, { recursive: true }).catch(() => {});
  }
}

async function measure(
  path: string,
  image: BinaryImage,
  names: NameIndex,
  code: CodeView,
  store: AnnotationStore,
  max: number,
  limits: DecompileLimits,
): Promise<ShareResult> {
  const decoder = await code.decoder(image.entry ?? image.imageBase);
  const analysis = await analyze(image, decoder);
  names.attachAnalysis(analysis);
  const d: EmbeddedDb = {
    path,
    name: path,
    sha256: "",
    options: {},
    image,
    names,
    store,
    code,
    analysis,
  };
  const cache = new DecompilerCache(1 << 20);
  const all = [...analysis.functions()].filter((fn) => !fn.flags.includes("import"));
  const fns = evenSample(all, max);
  const r: ShareResult = {
    path,
    functions: all.length,
    sampled: fns.length,
    ok: 0,
    degraded: new Map(),
    lastResort: new Map(),
    instructions: 0,
    unlifted: 0,
    gotos: 0,
    ms: [],
    decodeRatio: NaN,
    mnemonics: new Map(),
    errors: new Map(),
  };
  let decodeMs = 0;
  for (const fn of fns) {
    const r0 = performance.now();
    analysis.instructionsOf(fn, decoder, { detail: true, text: true });
    decodeMs += performance.now() - r0;
    const t0 = performance.now();
    try {
      const dec = await decompiled(d, fn, cache, limits);
      renderFor(d, fn, dec, new Map(), { maxBytes: MAX_CODE_BYTES });
      r.ms.push(performance.now() - t0);
      r.ok++;
      if (dec.degraded !== undefined) {
        const why = dec.degraded.split(";")[0]!.replace(/\d+(\.\d+)? s/g, "N s")
          .replace(/^\d+ instructions/, "N instructions");
        const tier = dec.lastResort ? r.lastResort : r.degraded;
        tier.set(why, (tier.get(why) ?? 0) + 1);
      }
      r.instructions += dec.instructions;
      r.unlifted += dec.unlifted;
      r.gotos += dec.gotos;
      for (const w of dec.warnings) {
        const m = /not lifted \(shown as __asm_ calls\): (.*)$/.exec(w);
        if (m) {
          for (const x of m[1]!.split(", ")) r.mnemonics.set(x, (r.mnemonics.get(x) ?? 0) + 1);
        }
      }
    } catch (err) {
      const why = err instanceof Error
        ? err.message.replace(/ at 0x[0-9a-f]+/g, "").slice(0, 80)
        : String(err);
      r.errors.set(why, (r.errors.get(why) ?? 0) + 1);
    }
  }
  r.decodeRatio = r.ms.reduce((a, b) => a + b, 0) / Math.max(1, decodeMs);
  return r;
}

function pct(x: number): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(2)}%` : "-";
}

/** The table columns of {@link row}. */
export const SHARE_HEADER = [
  "binary",
  "functions",
  "give C",
  "simplified",
  "last resort",
  "insns lifted",
  "gotos/fn",
  "median ms",
  "p99 ms",
  "× decode",
];

/** One table row of a result. */
export function row(r: ShareResult, name = r.path): string[] {
  return [
    name,
    r.sampled === r.functions ? String(r.functions) : `${r.sampled}/${r.functions}`,
    pct(r.ok / r.sampled),
    pct(degradedCount(r) / r.sampled),
    pct(count(r.lastResort) / r.sampled),
    pct(1 - r.unlifted / r.instructions),
    (r.gotos / Math.max(1, r.ok)).toFixed(2),
    quantile(r.ms, 0.5).toFixed(1),
    quantile(r.ms, 0.99).toFixed(1),
    `${r.decodeRatio.toFixed(1)}×`,
  ];
}

/** Functions that gave C from the simplified tier. */
export function degradedCount(r: ShareResult): number {
  return count(r.degraded);
}

function count(m: Map<string, number>): number {
  return [...m.values()].reduce((a, b) => a + b, 0);
}

function details(r: ShareResult): void {
  console.log(
    `${r.path}: ${r.ok} of ${r.sampled} functions give C (${pct(r.ok / r.sampled)}); ` +
      `${r.instructions} instructions, ${r.unlifted} not lifted ` +
      `(${pct(1 - r.unlifted / r.instructions)} lifted without intrinsics)`,
  );
  const top = [...r.mnemonics].sort((a, b) => b[1] - a[1]).slice(0, 12);
  if (top.length > 0) {
    console.log(
      `  functions with unlifted mnemonics: ${top.map(([m, n]) => `${m} ${n}`).join(", ")}`,
    );
  }
  for (const [why, n] of r.degraded) console.log(`  simplified x${n}: ${why}`);
  for (const [why, n] of r.lastResort) console.log(`  last resort x${n}: ${why}`);
  for (const [why, n] of r.errors) console.log(`  error x${n}: ${why}`);
}

async function corpusFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/bin`)) if (e.isFile) out.push(`${dir}/bin/${e.name}`);
  return out.sort();
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { max: { type: "string" }, corpus: { type: "string" }, budget: { type: "string" } },
  });
  // `--budget MS`: each tier's budget (as on a machine that many times slower than the default's).
  const limits = values.budget
    ? {
      ...DEFAULT_LIMITS,
      budgetMs: Number(values.budget),
      simplifiedBudgetMs: Number(values.budget),
    }
    : DEFAULT_LIMITS;
  const max = values.max ? Number(values.max) : Infinity;
  const files = [...positionals];
  if (values.corpus) files.push(...await corpusFiles(values.corpus));
  if (files.length === 0) files.push("/bin/ls");
  const rows: string[][] = [];
  const totals = {
    functions: 0,
    ok: 0,
    degraded: 0,
    lastResort: 0,
    instructions: 0,
    unlifted: 0,
    gotos: 0,
  };
  const ms: number[] = [];
  for (const f of files) {
    const r = await liftedShare(f, max, limits);
    details(r);
    rows.push(row(r, f.replace(/^.*\/bin\//, "")));
    totals.functions += r.sampled;
    totals.ok += r.ok;
    totals.degraded += degradedCount(r);
    totals.lastResort += count(r.lastResort);
    totals.instructions += r.instructions;
    totals.unlifted += r.unlifted;
    totals.gotos += r.gotos;
    ms.push(...r.ms);
  }
  if (files.length > 1) {
    rows.push([
      "all",
      String(totals.functions),
      pct(totals.ok / totals.functions),
      pct(totals.degraded / totals.functions),
      pct(totals.lastResort / totals.functions),
      pct(1 - totals.unlifted / totals.instructions),
      (totals.gotos / Math.max(1, totals.ok)).toFixed(2),
      quantile(ms, 0.5).toFixed(1),
      quantile(ms, 0.99).toFixed(1),
      "",
    ]);
  }
  console.log(
    "\nGoals: 100% of functions give C; >= 99.5% of instructions lifted without intrinsics",
  );
  console.log(table(SHARE_HEADER, rows));
}
