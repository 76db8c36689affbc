import assert from "node:assert/strict";
import { deserializeAnalysis, serializeAnalysis } from "./serialize.ts";
import { analyzeFixture, openFixture } from "./_test_fixtures.ts";

Deno.test("deserializeAnalysis() restores what serializeAnalysis() wrote", async () => {
  const a = await analyzeFixture("elf_x86_64_gcc_O2");
  const b = deserializeAnalysis(serializeAnalysis(a), openFixture("elf_x86_64_gcc_O2"));
  assert.deepEqual(b.data, a.data);
  const main = b.functionByName("main")!;
  assert.deepEqual(
    b.callees(main).map((f) => f.name),
    a.callees(a.functionByName("main")!).map((f) => f.name),
  );
});

Deno.test("deserializeAnalysis() rejects another version", () => {
  const bytes = new TextEncoder().encode(JSON.stringify({ v: -1, f: [] }));
  assert.throws(() => deserializeAnalysis(bytes, openFixture("elf_x86_64_gcc_O2")), TypeError);
});
