import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { chooseFatSlice, listFatSlices } from "./fat.ts";
import { openImage } from "./open_image.ts";
import { fixture, records } from "./_testing.ts";

Deno.test("listFatSlices() lists the slices of a universal file", () => {
  const f = fixture("macho_fat", "fat");
  if (!f) return;
  const slices = listFatSlices(f.bytes);
  const truth = records(f.truth.arches);
  assert.deepEqual(
    slices.map((s) => [s.offset, s.size, s.cputype]),
    truth.map((t) => [t.offset, t.size, t.cputype]),
  );
  assert.deepEqual(slices.map((s) => s.arch), ["x86_64", "arm64"]);
});

Deno.test("openImage() on a fat file without arch throws AmbiguousFatBinary naming the slices", () => {
  const f = fixture("macho_fat", "fat");
  if (!f) return;
  assert.throws(() => openImage(f.bytes), (e: unknown) => {
    assert.ok(e instanceof RemcpError);
    assert.equal(e.code, "AmbiguousFatBinary");
    assert.match(e.message, /options: \{arch: "…"\}/);
    assert.equal((e.detail.slices as unknown[]).length, 2);
    return true;
  });
  assert.throws(
    () => chooseFatSlice(f.bytes, "ppc"),
    (e: unknown) => e instanceof RemcpError && e.code === "AmbiguousFatBinary",
  );
});

Deno.test("openImage() opens the chosen fat slice with whole-file offsets", () => {
  const f = fixture("macho_fat", "fat");
  const thin = fixture("macho_arm64", "fat");
  if (!f || !thin) return;
  for (const arch of ["arm64", "aarch64"]) {
    const img = openImage(f.bytes, { arch });
    const ref = openImage(thin.bytes);
    assert.equal(img.arch, "aarch64");
    assert.equal(img.entry, ref.entry);
    assert.equal(img.fileSize, f.bytes.length);
    const text = img.sections.find((s) => s.name === "__TEXT,__text")!;
    assert.equal(
      text.fileOffset,
      32768 + ref.sections.find((s) => s.name === "__TEXT,__text")!.fileOffset,
    );
    assert.deepEqual(img.read(text.start, 16), ref.read(text.start, 16));
    assert.equal(img.addrToOffset(text.start), text.fileOffset);
  }
});
