import assert from "node:assert/strict";
import { embedSandbox, moveBlobsIntoComments } from "./bundle_main.ts";

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

Deno.test("embedSandbox() puts the sandbox bundle over its one placeholder, as base64", () => {
  const code = `const a=1,E="@@remcp-sandbox-bundle@@";export{E};`;
  const sandbox = "console.log('sandbox */ ✓')";
  const out = embedSandbox(code, sandbox);
  const literal = /E="([A-Za-z0-9+/]+=*)"/.exec(out)![1]!;
  const bytes = (Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(
    literal,
  );
  assert.equal(new TextDecoder().decode(bytes), sandbox);
  assert.throws(() => embedSandbox("const E=1;", sandbox), /0 times, not once/);
  assert.throws(() => embedSandbox(code + code, sandbox), /2 times, not once/);
});
