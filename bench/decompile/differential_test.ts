import assert from "node:assert/strict";
import { haveCompiler } from "./build.ts";
import { type Decompiler, runDifferential, summarize } from "./differential.ts";
import { fixtureBuild } from "./fixture.ts";
import { identityDecompiler } from "./identity.ts";

const SUBSET = ["add3", "popcount32", "bubble_sort", "my_strchr", "sw_fallthrough", "sum_squares"];

Deno.test("runDifferential() finds the corpus source equivalent and a changed operator different", async () => {
  if (!(await haveCompiler("gcc"))) {
    console.log("skipped: gcc is missing (the harness recompiles with it)");
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "remcp_differential_test_" });
  try {
    const build = await fixtureBuild(dir);
    const sigs = build.sigs.filter((s) => SUBSET.includes(s.name));
    const same = await runDifferential(build, sigs, identityDecompiler, { trials: 30 });
    assert.deepEqual(
      same.filter((o) => o.stage !== "equivalent").map((o) => `${o.name}: ${o.detail}`),
      [],
    );
    assert.equal(summarize(same).equivalent, SUBSET.length);

    // One wrong operator per function (an endless loop or a crash for some): the driver must
    // see every one of them and survive.
    const mutated: Decompiler = async (b, targets) =>
      (await identityDecompiler(b, targets)).map((d) => {
        const code = String(d.result?.code);
        const edits: [string, string][] = [[" + ", " - "], ["++", "--"], [" += ", " -= "]];
        const [from, to] = edits.find(([f]) => code.includes(f))!;
        return { ...d, result: { ...d.result, code: code.replace(from, to) } };
      });
    const wrong = await runDifferential(build, sigs, mutated, { trials: 30 });
    for (const o of wrong) assert.notEqual(o.stage, "equivalent", `${o.name} was changed`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
