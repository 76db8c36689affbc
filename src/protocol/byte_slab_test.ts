import assert from "node:assert/strict";
import { encodeLine, takeBytes } from "./byte_slab.ts";

const decoder = new TextDecoder();

Deno.test("takeBytes() never hands out the same bytes twice", () => {
  const taken = Array.from({ length: 3000 }, (_, i) => {
    const b = takeBytes(1 + (i * 37) % 900);
    b.fill(i % 251);
    return b;
  });
  taken.forEach((b, i) => assert.ok(b.every((x) => x === i % 251), `view ${i} was overwritten`));
  // A large request gets a buffer of its own.
  assert.equal(takeBytes(512 * 1024).byteOffset, 0);
});

Deno.test("encodeLine() is the text's UTF-8 and a newline, and leaves later lines alone", () => {
  const texts = ["", "ascii", "ünïcödé ✓ 𝄞", "x".repeat(70_000), '{"a":"\\u0000"}'];
  const lines = texts.map((t) => encodeLine(t));
  texts.forEach((t, i) => assert.equal(decoder.decode(lines[i]), t + "\n"));
  // Lone surrogates become U+FFFD, as TextEncoder.encode makes them.
  assert.deepEqual(encodeLine("a\ud800b"), new TextEncoder().encode("a\ud800b\n"));
});
