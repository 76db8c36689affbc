import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { parseRaw } from "./raw.ts";
import { fixture, num } from "./_testing.ts";

Deno.test("parseRaw() maps a blob as one rwx segment at its base", () => {
  for (const name of ["raw_x86_64.bin", "raw_aarch64.bin"]) {
    const f = fixture(name, "raw");
    if (!f) continue;
    const base = num(f.truth.load_base);
    const img = parseRaw(f.bytes, String(f.truth.arch), base);
    assert.equal(img.arch, f.truth.arch);
    assert.deepEqual(img.segments.map((s) => [s.start, s.end, s.perms]), [[
      base,
      base + f.bytes.length,
      "rwx",
    ]]);
    assert.deepEqual(img.read(base, 8), f.bytes.subarray(0, 8));
    assert.equal(img.read(base + f.bytes.length - 1, 2), undefined);
    assert.equal(img.readUpTo(base + f.bytes.length - 3, 100).length, 3);
  }
});

Deno.test("parseRaw() understands arch aliases and rejects unknown ones", () => {
  const b = new Uint8Array(16);
  assert.equal(parseRaw(b, "arm64", 0x1000).arch, "aarch64");
  assert.equal(parseRaw(b, "mipsel", 0).endian, "little");
  assert.equal(parseRaw(b, "thumb", 0).isThumb?.(4), true);
  assert.throws(
    () => parseRaw(b, "z80", 0),
    (e: unknown) => e instanceof RemcpError && e.code === "InvalidArgument",
  );
});
