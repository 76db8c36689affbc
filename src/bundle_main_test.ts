import assert from "node:assert/strict";
import { moveBlobsIntoComments } from "./bundle_main.ts";

Deno.test("moveBlobsIntoComments() keeps every long literal's value", async () => {
  const a = "QUJD".repeat(40) + "RA==";
  const b = "x/Y+".repeat(50);
  const code = `export const a = "${a}"; export const both = ["${b}", "short"];`;
  const moved = moveBlobsIntoComments(code, 100);
  assert.ok(!moved.includes(`"${a}"`) && !moved.includes(`"${b}"`));
  const mod = await import(`data:text/javascript,${encodeURIComponent(moved)}`);
  assert.equal(mod.a, a);
  assert.deepEqual(mod.both, [b, "short"]);
});

Deno.test("moveBlobsIntoComments() leaves code without long literals unchanged", () => {
  const code = `const s = "QUJD"; const t = "not base64 ${"!".repeat(200)}";`;
  assert.equal(moveBlobsIntoComments(code, 100), code);
});
