/** What counts as data inside code: ARM literal pools do, address halves of other ISAs do not. */
import assert from "node:assert/strict";
import { createDecoder } from "../arch/decoder.ts";
import { analyze } from "./analyze.ts";
import { openFixture, truthOf } from "./_test_fixtures.ts";

Deno.test("elf_riscv64_auipc_page: an auipc upper half landing on a function hides none of it", async () => {
  // `auipc a5, 1` in remcp_page computes the start of remcp_dead, which nothing calls: only the
  // gap scan finds it, and it did not while the upper half counted as 8 bytes of data there.
  const name = "elf_riscv64_auipc_page";
  const image = openFixture(name);
  image.symbols = [];
  image.functionHints = [];
  const a = await analyze(image, await createDecoder(image.arch, { endian: image.endian }));
  const dead = Number(truthOf(name).functions.find((f) => f.name === "remcp_dead")!.address);
  assert.ok(a.functionStartingAt(dead) !== undefined, "remcp_dead is found");
  const f = a.functionAt(dead + 8);
  assert.equal(f?.start, dead, "no function starts inside remcp_dead");
});
