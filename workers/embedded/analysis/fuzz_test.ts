/**
 * Mutation fuzzing of the analysis: images that parse but whose code and data are mangled (bit
 * flips, random runs, huge pointers) must analyse to completion within a time bound, never hang
 * or throw.
 */
import assert from "node:assert/strict";
import { prng } from "../_prng.ts";
import { openImage } from "../formats/open_image.ts";
import { createDecoder } from "../arch/decoder.ts";
import { analyze } from "./analyze.ts";

const FIXTURES = ["elf_x86_64_gcc_O2", "elf_aarch64_gcc_O2", "pe_x86_64_O2.exe", "elf_arm_gcc_O2"];
const CASES_PER_FILE = 12;
const MAX_MS_PER_CASE = 10_000;

for (const name of FIXTURES) {
  Deno.test(`analyze() survives mangled code and data in ${name}`, async () => {
    const path = new URL(`../../../tests/fixtures/bin/${name}`, import.meta.url);
    const src = await Deno.readFile(path);
    const rnd = prng(name.length * 7919);
    const base = openImage(src);
    // Mangle only section contents (after the headers) so the image still parses.
    const bodies = base.sections.filter((s) => s.fileSize > 0 && s.fileOffset >= 0x200);
    for (let i = 0; i < CASES_PER_FILE; i++) {
      const b = src.slice();
      for (let k = 0; k < 64; k++) {
        const sec = bodies[Math.floor(rnd() * bodies.length)]!;
        const at = sec.fileOffset + Math.floor(rnd() * sec.fileSize);
        if (rnd() < 0.5) b[at]! ^= 1 << Math.floor(rnd() * 8);
        else for (let j = 0; j < 16 && at + j < b.length; j++) b[at + j] = Math.floor(rnd() * 256);
      }
      let image;
      try {
        image = openImage(b);
      } catch {
        continue; // A mangled table may make the file unopenable: that is the parsers' fuzz.
      }
      const decoder = await createDecoder(image.arch, { endian: image.endian, bits: image.bits });
      const thumb = image.arch === "arm" ? await createDecoder("arm", { thumb: true }) : undefined;
      const t0 = performance.now();
      const a = await analyze(image, decoder, thumb ? { thumbDecoder: thumb } : {});
      const ms = performance.now() - t0;
      assert.ok(ms < MAX_MS_PER_CASE, `${name} case ${i} took ${ms} ms`);
      assert.ok(a.functions().length > 0, `${name} case ${i} found functions`);
      decoder.dispose();
      thumb?.dispose();
    }
  });
}
