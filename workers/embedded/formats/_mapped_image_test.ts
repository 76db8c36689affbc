import assert from "node:assert/strict";
import { makeImage } from "./_mapped_image.ts";
import type { Section, Segment } from "./image.ts";

function image() {
  const bytes = new Uint8Array(64).map((_, i) => i);
  const segments: Segment[] = [
    { name: "a", start: 0x1000, end: 0x1020, fileOffset: 0, fileSize: 0x10, perms: "r-x" },
    { name: "b", start: 0x1020, end: 0x1030, fileOffset: 0x20, fileSize: 0x10, perms: "rw-" },
    { name: "c", start: 0x2000, end: 0x2010, fileOffset: 0x30, fileSize: 0x100, perms: "r--" },
  ];
  const sections: Section[] = [
    {
      name: ".text",
      start: 0x1000,
      end: 0x1010,
      fileOffset: 0,
      fileSize: 0x10,
      perms: "r-x",
      kind: "code",
    },
    {
      name: ".bss",
      start: 0x1010,
      end: 0x1020,
      fileOffset: 0,
      fileSize: 0,
      perms: "rw-",
      kind: "bss",
    },
  ];
  return makeImage(bytes, {
    format: "raw",
    arch: "x86_64",
    bits: 64,
    endian: "little",
    imageBase: 0x1000,
    fileSize: 64,
    segments,
    sections,
    symbols: [],
    imports: [],
    exports: [],
    entryPoints: [],
    functionHints: [],
    relocations: [],
    info: {},
  });
}

Deno.test("makeImage() read() zero-fills bss and spans adjacent segments", () => {
  const img = image();
  assert.deepEqual([...img.read(0x100e, 4)!], [14, 15, 0, 0]);
  assert.deepEqual([...img.read(0x101f, 2)!], [0, 0x20]);
  assert.equal(img.read(0x102f, 2), undefined);
  assert.equal(img.read(0x3000, 1), undefined);
});

Deno.test("makeImage() readUpTo() stops at the first unmapped byte", () => {
  const img = image();
  assert.equal(img.readUpTo(0x1028, 100).length, 8);
  assert.equal(img.readUpTo(0x5000, 100).length, 0);
  // Segment c claims more file bytes than exist: only the 16 mapped bytes are readable.
  assert.deepEqual([...img.readUpTo(0x2000, 100)], [...Array(16).keys()].map((i) => 0x30 + i));
});

Deno.test("makeImage() translates addresses and offsets and finds sections", () => {
  const img = image();
  assert.equal(img.addrToOffset(0x1024), 0x24);
  assert.equal(img.addrToOffset(0x1018), undefined);
  assert.equal(img.offsetToAddr(0x24), 0x1024);
  assert.equal(img.offsetToAddr(0x18), undefined);
  assert.equal(img.sectionAt(0x1012)?.name, ".bss");
  assert.equal(img.segmentAt(0x2004)?.name, "c");
  assert.equal(img.isMapped(0x1fff), false);
});
