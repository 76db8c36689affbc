/**
 * Mutation fuzzing of every parser, the CI sample: truncations, bit flips and huge
 * count/offset/size fields must end in an image or in `OpenFailed` / `AmbiguousFatBinary`,
 * quickly, and never in a parser fault. `deno run -A bench/fuzz.ts` runs 10,000 per format.
 */

import { check, CORPUS, hotFields, mutate } from "./_fuzz.ts";
import { prng } from "../_prng.ts";
import { FIXTURES, readOrSkip } from "./_testing.ts";

const CASES_PER_FORMAT = 300;

for (const { format, files, options } of CORPUS) {
  Deno.test(`openImage() survives ${CASES_PER_FORMAT} mutated ${format} files`, () => {
    const sources = files.map((f) => readOrSkip(new URL(f, FIXTURES), `fuzz ${format}`))
      .filter((b): b is Uint8Array => b !== undefined);
    if (format === "elf") {
      const ls = readOrSkip("/bin/ls", "fuzz elf");
      if (ls) sources.push(ls);
    }
    if (sources.length === 0) return;
    const rnd = prng(0x5eed + format.length);
    for (let i = 0; i < CASES_PER_FORMAT; i++) {
      const src = sources[i % sources.length]!;
      const bytes = mutate(src, rnd, hotFields(src, format));
      check(bytes, options ?? {}, `${format} case ${i} (source ${i % sources.length})`);
    }
  });
}

Deno.test("openImage() survives every truncation of a small ELF header region", () => {
  const src = readOrSkip(new URL("elf_arm_gcc_O2", FIXTURES), "fuzz truncation");
  if (!src) return;
  for (let n = 0; n < 600; n++) check(src.subarray(0, n), {}, `truncated to ${n}`);
});
