import assert from "node:assert/strict";
import { runtimeHelperAt } from "./runtime_helpers.ts";

// The x86-32 differential fixture (gcc -m32 -O0, stripped) links libgcc's 64-bit division
// helpers; the file offsets below are where its code holds them.
const FIXTURE = new URL("../../../../tests/fixtures/decompile/diff_i386_gcc_O0", import.meta.url);

Deno.test("runtimeHelperAt names libgcc's 64-bit division helpers in a stripped binary", async () => {
  const file = await Deno.readFile(FIXTURE);
  const bytesAt = (address: number, length: number) =>
    address + length <= file.length ? file.subarray(address, address + length) : undefined;
  const found = [0x7250, 0x7390, 0x7500, 0x7620].map((a) => runtimeHelperAt(bytesAt, a)?.name);
  assert.deepEqual(found, ["__divdi3", "__moddi3", "__udivdi3", "__umoddi3"]);
  assert.equal(runtimeHelperAt(bytesAt, 0x7500)?.op, "udiv");
  // Anything else (the middle of a helper, other code, past the end) is no helper.
  assert.equal(runtimeHelperAt(bytesAt, 0x7504), undefined);
  assert.equal(runtimeHelperAt(bytesAt, 0x1000), undefined);
  assert.equal(runtimeHelperAt(bytesAt, file.length - 8), undefined);
});
