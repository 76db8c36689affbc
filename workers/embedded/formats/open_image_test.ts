import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { detectFormat, openImage } from "./open_image.ts";
import { fixture } from "./_testing.ts";

Deno.test("openImage() detects each format by magic", () => {
  for (
    const [name, format] of [
      ["elf_x86_64_gcc_O2", "elf"],
      ["pe_x86_64_O2.exe", "pe"],
      ["macho_arm64", "macho"],
    ] as const
  ) {
    const f = fixture(name, "detect");
    if (!f) continue;
    assert.equal(openImage(f.bytes).format, format);
  }
});

Deno.test("openImage() on an unknown format says how to open it as a raw blob", () => {
  const blob = new Uint8Array([0x90, 0x90, 0xc3, 0, 1, 2, 3, 4]);
  assert.equal(detectFormat(blob), undefined);
  assert.throws(() => openImage(blob), (e: unknown) => {
    assert.ok(e instanceof RemcpError);
    assert.equal(e.code, "OpenFailed");
    assert.match(e.message, /options: \{arch, base\}/);
    return true;
  });
  const img = openImage(blob, { arch: "x86_64", base: 0x400000 });
  assert.equal(img.format, "raw");
  assert.equal(img.entry, 0x400000);
});

Deno.test("openImage() with raw: true maps even a recognised file as a blob", () => {
  const f = fixture("elf_x86_64_gcc_O2", "raw option");
  if (!f) return;
  const img = openImage(f.bytes, { raw: true, arch: "x86_64", base: 0 });
  assert.equal(img.format, "raw");
  assert.equal(img.read(0, 4)?.[1], 0x45);
});

Deno.test("openImage() on truncated headers throws OpenFailed naming an offset", () => {
  const f = fixture("pe_x86_64_O2.exe", "truncated");
  if (!f) return;
  assert.throws(() => openImage(f.bytes.subarray(0, 0x90)), (e: unknown) => {
    assert.ok(e instanceof RemcpError);
    assert.equal(e.code, "OpenFailed");
    assert.match(e.message, /at offset 0x[0-9a-f]+/);
    return true;
  });
});
