/**
 * The embedded decompiler over every function of a real binary: the share of functions that
 * give C, the share of instructions lifted without `__asm_` intrinsics (and which mnemonics are
 * not), and milliseconds per function (median, p99) against decoding the same functions with
 * text in the same run.
 *
 * Run: `deno run -A bench/lifted_share.ts [file ...]` (default /bin/ls)
 */

import { openImage } from "../workers/embedded/formats/open_image.ts";
import { NameIndex } from "../workers/embedded/names.ts";
import { CodeView } from "../workers/embedded/code.ts";
import { analyze } from "../workers/embedded/analysis/analyze.ts";
import { AnnotationStore } from "../workers/shared/store/store.ts";
import type { EmbeddedDb } from "../workers/embedded/db.ts";
import { decompiled, DecompilerCache, renderFor } from "../workers/embedded/decompiler/service.ts";

async function bench(path: string): Promise<void> {
  const bytes = await Deno.readFile(path);
  const image = openImage(bytes);
  const names = new NameIndex(image);
  const code = new CodeView(image);
  const storePath = await Deno.makeTempFile({ suffix: ".sqlite" });
  const store = AnnotationStore.open(storePath);
  const decoder = await code.decoder(image.entry ?? image.imageBase);
  const analysis = await analyze(image, decoder);
  names.attachAnalysis(analysis);
  const d: EmbeddedDb = {
    path,
    name: path,
    bytes,
    sha256: "",
    options: {},
    image,
    names,
    store,
    code,
    analysis,
  };
  const cache = new DecompilerCache(1 << 20);
  let ok = 0;
  let failed = 0;
  let instructions = 0;
  let unlifted = 0;
  let gotos = 0;
  const times: number[] = [];
  let decodeMs = 0;
  const mnemonics = new Map<string, number>();
  const errors = new Map<string, number>();
  for (const fn of analysis.functions()) {
    if (fn.flags.includes("import")) continue;
    const r0 = performance.now();
    analysis.instructionsOf(fn, decoder, { detail: true, text: true });
    decodeMs += performance.now() - r0;
    const t0 = performance.now();
    try {
      const dec = await decompiled(d, fn, cache);
      renderFor(d, fn, dec, new Map());
      times.push(performance.now() - t0);
      ok++;
      instructions += dec.instructions;
      unlifted += dec.unlifted;
      gotos += dec.gotos;
      for (const w of dec.warnings) {
        const m = /not lifted \(shown as __asm_ calls\): (.*)$/.exec(w);
        if (m) { for (const x of m[1]!.split(", ")) mnemonics.set(x, (mnemonics.get(x) ?? 0) + 1); }
      }
    } catch (err) {
      failed++;
      const why = err instanceof Error
        ? err.message.replace(/ at 0x[0-9a-f]+/g, "").slice(0, 80)
        : String(err);
      errors.set(why, (errors.get(why) ?? 0) + 1);
    }
  }
  store.close();
  await Deno.remove(storePath).catch(() => {});
  await Deno.remove(storePath + "-wal").catch(() => {});
  await Deno.remove(storePath + "-shm").catch(() => {});
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
  const total = times.reduce((a, b) => a + b, 0);
  console.log(`${path}: ${ok + failed} functions, ${ok} give C (${pct(ok / (ok + failed))})`);
  console.log(
    `  instructions: ${instructions}, lifted without intrinsics: ${
      pct(1 - unlifted / instructions)
    }`,
  );
  console.log(`  gotos: ${gotos} (${(gotos / Math.max(1, ok)).toFixed(2)} per function)`);
  console.log(
    `  ms per function: median ${q(0.5).toFixed(1)}, p99 ${q(0.99).toFixed(1)}; ` +
      `decompiling takes ${(total / Math.max(1, decodeMs)).toFixed(1)}x the time of decoding ` +
      `the same functions with text`,
  );
  const top = [...mnemonics].sort((a, b) => b[1] - a[1]).slice(0, 12);
  if (top.length > 0) {
    console.log(
      `  functions with unlifted mnemonics: ${top.map(([m, n]) => `${m} ${n}`).join(", ")}`,
    );
  }
  for (const [why, n] of errors) console.log(`  error x${n}: ${why}`);
}

function pct(x: number): string {
  return `${(x * 100).toFixed(2)}%`;
}

if (import.meta.main) {
  const files = Deno.args.length > 0 ? Deno.args : ["/bin/ls"];
  for (const f of files) await bench(f);
}
