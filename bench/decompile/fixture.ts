/**
 * The committed differential-test fixture (tests/fixtures/decompile/, built by its build.ts) as a
 * {@link CorpusBuild}: the stripped binary and function starts from the fixture, the original
 * objects compiled here (the driver links and runs them), so the tests need only gcc.
 */
import { fileURLToPath } from "node:url";
import { compileCorpus, type CorpusBuild } from "./build.ts";
import { loadCorpus } from "./signatures.ts";

/** Path of the stripped fixture binary. */
export const FIXTURE_BINARY = fileURLToPath(
  new URL("../../tests/fixtures/decompile/diff_gcc_O0", import.meta.url),
);

/** The fixture as a build whose objects and outputs go to `dir`. */
export async function fixtureBuild(dir: string): Promise<CorpusBuild> {
  const info = JSON.parse(await Deno.readTextFile(`${FIXTURE_BINARY}.json`)) as {
    functions: Record<string, string>;
  };
  const sigs = await loadCorpus();
  const objects = await compileCorpus("gcc", "-O0", dir, sigs);
  const addresses = new Map(Object.entries(info.functions).map(([n, a]) => [n, Number(a)]));
  return {
    cc: "gcc",
    opt: "-O0",
    dir,
    objects,
    binary: FIXTURE_BINARY,
    stripped: FIXTURE_BINARY,
    sigs,
    addresses,
  };
}
