/**
 * The committed differential-test fixtures (tests/fixtures/decompile/, built by its build.ts) as
 * {@link CorpusBuild}s: the stripped binary and function starts from the fixture, the original
 * objects compiled here (the driver links and runs them), so the tests need only the compiler
 * of the fixture's ISA (and qemu-user for AArch64).
 */
import { fileURLToPath } from "node:url";
import { compileCorpus, type CorpusBuild } from "./build.ts";
import { loadCorpus } from "./signatures.ts";

/** Fixture file names by compiler label. */
export const FIXTURES: Record<string, string> = {
  gcc: "diff_gcc_O0",
  "i386-gcc": "diff_i386_gcc_O0",
  "aarch64-gcc": "diff_aarch64_gcc_O0",
};

/** Path of the stripped fixture binary built by compiler `label`. */
export function fixtureBinary(label = "gcc"): string {
  return fileURLToPath(
    new URL(`../../tests/fixtures/decompile/${FIXTURES[label]}`, import.meta.url),
  );
}

/** Path of the x86-64 (gcc) fixture. */
export const FIXTURE_BINARY = fixtureBinary("gcc");

/** The fixture of compiler `label` as a build whose objects and outputs go to `dir`. */
export async function fixtureBuild(dir: string, label = "gcc"): Promise<CorpusBuild> {
  const binary = fixtureBinary(label);
  const info = JSON.parse(await Deno.readTextFile(`${binary}.json`)) as {
    functions: Record<string, string>;
  };
  const sigs = await loadCorpus();
  const objects = await compileCorpus(label, "-O0", dir, sigs);
  const addresses = new Map(Object.entries(info.functions).map(([n, a]) => [n, Number(a)]));
  return { cc: label, opt: "-O0", dir, objects, binary, stripped: binary, sigs, addresses };
}
