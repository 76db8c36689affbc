/**
 * Function-discovery accuracy: for binaries whose symbol table is the truth, strip a copy,
 * analyse it, and score the function starts found in `.text` against the symbols (precision,
 * recall, F1) — once as stripped, once with `.eh_frame` removed too (heuristics alone).
 *
 * Inputs: the unstripped fixtures, and a generated C program of a few hundred functions built
 * with gcc and clang at -O0/-O2 when those compilers exist (skipped otherwise).
 *
 *   deno run -A bench/accuracy.ts
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

/** Function starts in `.text` from the symbol table, without `.cold` parts. */
function symbolStarts(image: BinaryImage): Set<number> {
  const text = image.sections.find((s) => s.name === ".text");
  const out = new Set<number>();
  for (const s of image.symbols) {
    if (s.kind !== "function" || /\.cold/.test(s.name)) continue;
    const a = image.arch === "arm" ? s.address & ~1 : s.address;
    if (text !== undefined && a >= text.start && a < text.end) out.add(a);
  }
  return out;
}

async function score(name: string, variant: string, path: string, truth: Set<number>) {
  const image = parseElf(Deno.readFileSync(path));
  const decoder = await createDecoder(image.arch, { endian: image.endian });
  const thumb = image.arch === "arm"
    ? await createDecoder("arm", { thumb: true, endian: image.endian })
    : undefined;
  const t0 = performance.now();
  const a = await analyze(image, decoder, thumb === undefined ? {} : { thumbDecoder: thumb });
  const seconds = (performance.now() - t0) / 1000;
  const text = image.sections.find((s) => s.name === ".text")!;
  const found = a.functions().filter((f) => f.start >= text.start && f.start < text.end);
  const tp = found.filter((f) => truth.has(f.start)).length;
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
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    pad("binary", 26) + pad("variant", 13) +
      "truth  found     tp  precision  recall      F1   seconds",
  );
  for (const r of rows) {
    const p = r.found === 0 ? 0 : r.tp / r.found;
    const rc = r.truth === 0 ? 0 : r.tp / r.truth;
    const f1 = p + rc === 0 ? 0 : (2 * p * rc) / (p + rc);
    console.log(
      pad(r.name, 26) + pad(r.variant, 13) +
        [r.truth, r.found, r.tp].map((v) => String(v).padStart(5)).join("  ") +
        p.toFixed(3).padStart(11) + rc.toFixed(3).padStart(8) + f1.toFixed(3).padStart(8) +
        r.seconds.toFixed(3).padStart(10),
    );
  }
}

if (import.meta.main) await main();
