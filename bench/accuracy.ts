/**
 * Function-discovery accuracy: for binaries whose symbol table is the truth, strip a copy,
 * analyse it, and score the function starts found in `.text` against the symbols (precision,
 * recall, F1) — once as stripped, once with `.eh_frame` removed too (heuristics alone).
 *
 * Inputs: the unstripped fixtures, and a generated C program of a few hundred functions built
 * with gcc and clang at -O0/-O2 when those compilers exist (skipped otherwise).
 *
 *   deno run -A bench/accuracy.ts
 *   deno run -A bench/accuracy.ts --corpus DIR [--only WORD] [--misses]
 *
 * `--corpus DIR` scores the real programs `bench/corpus.sh DIR` built (DIR/bin/ISA-CC-OPT-NAME)
 * instead, and prints precision/recall/F1 per ISA × compiler × level, with and without
 * `.eh_frame`, summed over the programs. `--only` keeps binaries whose name contains WORD;
 * `--misses` lists each false and missed start (for working on the analysis).
 */

import { createDecoder } from "../workers/embedded/arch/decoder.ts";
import type { BinaryImage } from "../workers/embedded/formats/image.ts";
import { parseElf } from "../workers/embedded/formats/elf.ts";
import { analyze } from "../workers/embedded/analysis/analyze.ts";

interface Row {
  name: string;
  variant: string;
  truth: number;
  found: number;
  tp: number;
  seconds: number;
}

const FIXTURES = new URL("../tests/fixtures/bin/", import.meta.url);

async function run(cmd: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Function starts in `.text` from the symbol table (address → name), without `.cold` parts. */
function symbolStarts(image: BinaryImage): Map<number, string> {
  const text = image.sections.find((s) => s.name === ".text");
  const out = new Map<number, string>();
  for (const s of image.symbols) {
    if (s.kind !== "function" || /\.cold/.test(s.name)) continue;
    const a = image.arch === "arm" ? s.address & ~1 : s.address;
    if (text !== undefined && a >= text.start && a < text.end && !out.has(a)) out.set(a, s.name);
  }
  return new Map([...out].sort((x, y) => x[0] - y[0]));
}

const MISSES = Deno.args.includes("--misses");

async function score(name: string, variant: string, path: string, truth: Map<number, string>) {
  const image = parseElf(Deno.readFileSync(path));
  const decoder = await createDecoder(image.arch, { endian: image.endian });
  const thumb = image.arch === "arm"
    ? await createDecoder("arm", { thumb: true, endian: image.endian })
    : undefined;
  const t0 = performance.now();
  const a = await analyze(image, decoder, thumb === undefined ? {} : { thumbDecoder: thumb });
  const seconds = (performance.now() - t0) / 1000;
  const text = image.sections.find((s) => s.name === ".text")!;
  // Import stubs are no symbol's function; PowerPC64 links them into `.text` (call stubs, glink).
  const found = a.functions().filter((f) =>
    f.start >= text.start && f.start < text.end && f.source !== "import"
  );
  const tp = found.filter((f) => truth.has(f.start)).length;
  if (MISSES) {
    const starts = new Set(found.map((f) => f.start));
    const h = (n: number) => `0x${n.toString(16)}`;
    for (const f of found) {
      if (truth.has(f.start)) continue;
      const inside = [...truth].filter(([t]) => t < f.start).pop();
      console.log(`${name} ${variant}: false ${h(f.start)} ${f.source} (after ${inside?.[1]})`);
    }
    for (const [t, n] of truth) {
      if (!starts.has(t)) console.log(`${name} ${variant}: missed ${h(t)} ${n}`);
    }
  }
  return { name, variant, truth: truth.size, found: found.length, tp, seconds };
}

const STRIP: Record<string, string> = {
  aarch64: "aarch64-linux-gnu-",
  arm: "arm-linux-gnueabihf-",
  mips: "mips-linux-gnu-",
  riscv64: "riscv64-linux-gnu-",
  ppc64: "powerpc64le-linux-gnu-",
};

async function benchBinary(name: string, path: string, rows: Row[], tmp: string): Promise<void> {
  const image = parseElf(Deno.readFileSync(path));
  const truth = symbolStarts(image);
  if (truth.size === 0) return;
  const prefixes = ["", STRIP[image.arch] ?? ""];
  const stripped = `${tmp}/${name}.stripped`;
  const noeh = `${tmp}/${name}.noeh`;
  let ok = false;
  let prefix = "";
  for (const p of prefixes) {
    if (await run(`${p}strip`, ["-o", stripped, path])) {
      ok = true;
      prefix = p;
      break;
    }
  }
  if (!ok) {
    console.error(`skip ${name}: no strip for ${image.arch}`);
    return;
  }
  rows.push(await score(name, "stripped", stripped, truth));
  const args = [
    "--remove-section",
    ".eh_frame",
    "--remove-section",
    ".eh_frame_hdr",
    stripped,
    noeh,
  ];
  if (await run(`${prefix}objcopy`, args)) rows.push(await score(name, "no eh_frame", noeh, truth));
}

/** A C program of `n` functions with loops, switches, calls, pointers and recursion. */
function generateProgram(n: number): string {
  const lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"];
  lines.push("typedef int (*fn_t)(int);");
  for (let i = 0; i < n; i++) lines.push(`${i % 3 === 0 ? "static " : ""}int f${i}(int x);`);
  for (let i = 0; i < n; i++) {
    const body: string[] = [];
    const k = i % 7;
    if (k === 0) {
      body.push("  switch (x & 15) {");
      for (let c = 0; c < 12; c++) {
        body.push(`  case ${c}: return f${(i + c + 1) % n}(x - ${c + 1}) + ${c};`);
      }
      body.push("  default: return x;", "  }");
    } else if (k === 1) {
      body.push(
        `  int s = 0; for (int j = 0; j < x; j++) s += j * ${i}; return s ^ f${
          (i + 1) % n
        }(x / 2);`,
      );
    } else if (k === 2) {
      body.push(`  if (x < 0) { fprintf(stderr, "bad %d in f${i}\\n", x); abort(); }`);
      body.push(`  return x > 1 ? f${i}(x - 1) + f${(i + 5) % n}(x - 2) : x;`);
    } else if (k === 3) {
      body.push(
        `  static const fn_t t[3] = { f${(i + 2) % n}, f${(i + 4) % n}, f${(i + 6) % n} };`,
      );
      body.push("  return x <= 0 ? 0 : t[x % 3](x - 1);");
    } else if (k === 4) {
      body.push(`  char b[32]; snprintf(b, sizeof b, "v%d_${i}", x); return (int)strlen(b) + x;`);
    } else if (k === 5) {
      body.push(`  if (x > 1000) exit(${i % 100}); return x * ${i + 3} + 1;`);
    } else {
      body.push(`  return x <= 0 ? ${i} : f${(i + 3) % n}(x - 1) * 3;`);
    }
    lines.push(`${i % 3 === 0 ? "static " : ""}int f${i}(int x) {`, ...body, "}");
  }
  lines.push("int main(int argc, char **argv) {", "  (void)argv; int s = 0;");
  for (let i = 0; i < n; i += 3) lines.push(`  s += f${i}(argc);`);
  lines.push('  printf("%d\\n", s);', "  return 0;", "}");
  return lines.join("\n");
}

async function main(): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "remcp_accuracy_" });
  const rows: Row[] = [];
  const corpusAt = Deno.args.indexOf("--corpus");
  const onlyAt = Deno.args.indexOf("--only");
  const only = onlyAt >= 0 ? Deno.args[onlyAt + 1] ?? "" : "";
  if (corpusAt >= 0) {
    try {
      await corpus(`${Deno.args[corpusAt + 1]}/bin`, only, rows, tmp);
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
    printRows(rows);
    printGroups(rows);
    return;
  }
  try {
    for (
      const f of [
        "elf_x86_64_gcc_O0",
        "elf_x86_64_gcc_O2",
        "elf_x86_64_clang_O2",
        "elf_i386_gcc_O2",
        "elf_aarch64_gcc_O2",
        "elf_arm_gcc_O2",
        "elf_mips_gcc_O2",
        "elf_riscv64_gcc_O2",
        "elf_ppc64le_gcc_O2",
      ]
    ) {
      await benchBinary(f, new URL(f, FIXTURES).pathname, rows, tmp);
    }
    const src = `${tmp}/gen.c`;
    await Deno.writeTextFile(src, generateProgram(400));
    for (const cc of ["gcc", "clang"]) {
      for (const opt of ["-O0", "-O2"]) {
        const out = `${tmp}/gen_${cc}${opt}`;
        if (!(await run(cc, [opt, "-w", "-o", out, src]))) {
          console.error(`skip generated program: ${cc} ${opt} failed or is missing`);
          continue;
        }
        await benchBinary(`gen400_${cc}${opt}`, out, rows, tmp);
      }
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  printRows(rows);
}

function f1Of(truth: number, found: number, tp: number): [number, number, number] {
  const p = found === 0 ? 0 : tp / found;
  const rc = truth === 0 ? 0 : tp / truth;
  return [p, rc, p + rc === 0 ? 0 : (2 * p * rc) / (p + rc)];
}

/** The corpus binaries (ISA-CC-OPT-NAME), scored in name order. */
async function corpus(dir: string, only: string, rows: Row[], tmp: string): Promise<void> {
  const names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.includes(only))
    .map((e) => e.name).sort();
  for (const n of names) await benchBinary(n, `${dir}/${n}`, rows, tmp);
}

/** Sums per ISA × compiler × level × variant over the programs, and mean F1 per ISA × variant. */
function printGroups(rows: Row[]): void {
  const groups = new Map<string, { truth: number; found: number; tp: number; f1s: number[] }>();
  const perIsa = new Map<string, number[]>();
  for (const r of rows) {
    const [isa, cc, opt] = r.name.split("-");
    const key = `${isa} ${cc} ${opt}|${r.variant}`;
    const g = groups.get(key) ?? { truth: 0, found: 0, tp: 0, f1s: [] };
    g.truth += r.truth;
    g.found += r.found;
    g.tp += r.tp;
    const f1 = f1Of(r.truth, r.found, r.tp)[2];
    g.f1s.push(f1);
    groups.set(key, g);
    const ik = `${isa}|${r.variant}`;
    perIsa.set(ik, [...(perIsa.get(ik) ?? []), f1]);
  }
  console.log("\nper ISA x compiler x level (summed over programs; mean F1 = mean of programs)");
  console.log(
    "group".padEnd(22) + "variant".padEnd(13) +
      " truth  found     tp  precision  recall      F1  mean F1",
  );
  for (const [key, g] of [...groups].sort()) {
    const [group, variant] = key.split("|");
    const [p, rc, f1] = f1Of(g.truth, g.found, g.tp);
    const mean = g.f1s.reduce((x, y) => x + y, 0) / g.f1s.length;
    console.log(
      group!.padEnd(22) + variant!.padEnd(13) +
        [g.truth, g.found, g.tp].map((v) => String(v).padStart(6)).join(" ") +
        p.toFixed(3).padStart(11) + rc.toFixed(3).padStart(8) + f1.toFixed(3).padStart(8) +
        mean.toFixed(4).padStart(9),
    );
  }
  console.log("\nmean F1 per ISA (all compilers, levels and programs)");
  for (const [key, f1s] of [...perIsa].sort()) {
    const [isa, variant] = key.split("|");
    const mean = f1s.reduce((x, y) => x + y, 0) / f1s.length;
    console.log(
      `${isa!.padEnd(10)}${variant!.padEnd(13)}${mean.toFixed(4)}  (${f1s.length} binaries)`,
    );
  }
}

function printRows(rows: Row[]): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    pad("binary", 30) + pad("variant", 13) +
      "truth  found     tp  precision  recall      F1   seconds",
  );
  for (const r of rows) {
    const [p, rc, f1] = f1Of(r.truth, r.found, r.tp);
    console.log(
      pad(r.name, 30) + pad(r.variant, 13) +
        [r.truth, r.found, r.tp].map((v) => String(v).padStart(5)).join("  ") +
        p.toFixed(3).padStart(11) + rc.toFixed(3).padStart(8) + f1.toFixed(3).padStart(8) +
        r.seconds.toFixed(3).padStart(10),
    );
  }
}

if (import.meta.main) await main();
