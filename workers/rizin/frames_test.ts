import assert from "node:assert/strict";
import { NulFramer } from "./frames.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("NulFramer splits frames at NULs, across and within chunks", () => {
  const f = new NulFramer();
  assert.deepEqual(f.push(enc("\0")), [""]);
  assert.deepEqual(f.push(enc("hel")), []);
  assert.equal(f.pendingBytes, 3);
  assert.deepEqual(f.push(enc("lo\0wor")), ["hello"]);
  assert.deepEqual(f.push(enc("ld\0\0x\0")), ["world", "", "x"]);
  assert.equal(f.pendingBytes, 0);
});

Deno.test("NulFramer keeps a multi-byte character split between chunks intact", () => {
  const f = new NulFramer();
  const bytes = enc("é\0");
  assert.deepEqual(f.push(bytes.subarray(0, 1)), []);
  assert.deepEqual(f.push(bytes.subarray(1)), ["é"]);
});

Deno.test("NulFramer copies pending bytes so a reused chunk buffer cannot corrupt them", () => {
  const f = new NulFramer();
  const buf = enc("abc");
  f.push(buf);
  buf.set(enc("xyz"));
  assert.deepEqual(f.push(enc("\0")), ["abc"]);
});

Deno.test("NulFramer.reset drops a partial frame", () => {
  const f = new NulFramer();
  f.push(enc("partial"));
  f.reset();
  assert.deepEqual(f.push(enc("next\0")), ["next"]);
});
