/** Function addresses that position-independent Thumb code builds from a literal and PC. */
import assert from "node:assert/strict";
import { createDecoder } from "../arch/decoder.ts";
import { analyze } from "./analyze.ts";
import { openFixture, truthOf } from "./_test_fixtures.ts";

Deno.test("elf_arm_handlers_gcc_O2: signal handlers whose address main takes are code pointers", async () => {
  // main: ldr r1, [pc, #n]; …; add r1, pc; bl signal — the handlers are referenced nowhere else.
  const name = "elf_arm_handlers_gcc_O2";
  const image = openFixture(name);
  image.symbols = [];
  image.functionHints = [];
  const a = await analyze(image, await createDecoder("arm", {}), {
    thumbDecoder: await createDecoder("arm", { thumb: true }),
  });
  for (const fn of ["remcp_on_int", "remcp_on_segv"]) {
    const at = Number(truthOf(name).functions.find((f) => f.name === fn)!.address) & ~1;
    assert.equal(a.functionStartingAt(at)?.source, "code_pointer", fn);
  }
});
