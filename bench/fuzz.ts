/**
 * The parsers' mutation fuzz at full size: 10,000 mutated files per format (ELF, PE, Mach-O, fat
 * Mach-O) from the fixtures, each opened and exercised by the same check as the CI sample
 * (workers/embedded/formats/fuzz_test.ts): an image or OpenFailed/AmbiguousFatBinary, never
 * another error (Internal included), within 1 s, with executable ranges the file can back. Memory
 * is watched: the peak resident size is printed beside the resident size before the run.
 * Time per mutated file is printed as a ratio against parsing the unmutated fixtures in the same
 * run. Exits 1 on any failure.
 *
 * Run: `deno run -A bench/fuzz.ts [cases per format, default 10000]`
 */
import { check, CORPUS, hotFields, mutate } from "../workers/embedded/formats/_fuzz.ts";
import { prng } from "../workers/embedded/_prng.ts";
import { openImage } from "../workers/embedded/formats/open_image.ts";

const cases = Number(Deno.args[0] ?? 10_000);
const fixtures = new URL("../tests/fixtures/bin/", import.meta.url);
const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
const rssBefore = Deno.memoryUsage().rss;
let peakRss = rssBefore;
let failures = 0;

console.log("format  cases   opened  refused  failed  ms/case  vs clean parse");
for (const { format, files, options } of CORPUS) {
  const sources = files.map((f) => Deno.readFileSync(new URL(f, fixtures)));
  const hot = sources.map((s) => hotFields(s, format));
  // Reference: the unmutated fixtures, parsed as often as there are sources × 20.
  let t0 = performance.now();
  for (let i = 0; i < 20; i++) for (const s of sources) openImage(s, options ?? {});
  const cleanMs = (performance.now() - t0) / (20 * sources.length);

  const rnd = prng(0xf022 + format.length);
  let opened = 0;
  let refused = 0;
  let failed = 0;
  t0 = performance.now();
  for (let i = 0; i < cases; i++) {
    const k = i % sources.length;
    const bytes = mutate(sources[k]!, rnd, hot[k]!);
    try {
      check(bytes, options ?? {}, `${format} case ${i}`);
      try {
        openImage(bytes, options ?? {});
        opened++;
      } catch {
        refused++;
      }
    } catch (err) {
      failed++;
      if (failed <= 5) console.error(String(err).slice(0, 300));
    }
    if (i % 500 === 0) peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  }
  const perCase = (performance.now() - t0) / cases;
  failures += failed;
  console.log(
    `${format.padEnd(7)} ${String(cases).padStart(5)}  ${String(opened).padStart(7)}  ` +
      `${String(refused).padStart(7)}  ${String(failed).padStart(6)}  ${
        perCase.toFixed(2).padStart(7)
      }` +
      `  ${(perCase / cleanMs).toFixed(2)}×`,
  );
}
peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
console.log(`resident memory: ${mib(rssBefore)} MiB before, peak ${mib(peakRss)} MiB`);
console.log(failures === 0 ? "no failures" : `${failures} failures`);
Deno.exit(failures === 0 ? 0 : 1);
