import assert from "node:assert/strict";
import { RemcpError } from "../../src/errors.ts";
import { prng } from "./_prng.ts";
import { FileSource } from "./file_source.ts";
import { CORPUS, hotFields, mutate } from "./formats/_fuzz.ts";
import { FIXTURES, readOrSkip, withBigSection } from "./formats/_testing.ts";
import type { BinaryImage, OpenOptions } from "./formats/image.ts";
import { openImage } from "./formats/open_image.ts";

/** Everything an image says, its mapped bytes included, as one comparable value. */
function describe(img: BinaryImage): unknown {
  const { read: _r, readUpTo: _u, isMapped: _m, addrToOffset: _a, offsetToAddr: _o, ...data } = img;
  const { sectionAt: _s, segmentAt: _g, isThumb: _t, ...rest } = data;
  const mapped = img.segments.map((s) =>
    Array.from(img.readUpTo(s.start, Math.min(s.end - s.start, 1 << 20)))
  );
  return JSON.parse(JSON.stringify({ ...rest, mapped }));
}

/** The image `open` gives, or the error it throws, as a comparable value. */
function outcome(open: () => BinaryImage): unknown {
  try {
    return describe(open());
  } catch (err) {
    if (!(err instanceof RemcpError)) throw err;
    return { code: err.code, message: err.message };
  }
}

/** Writes `bytes` to a temporary file and opens it on demand. */
function fileOutcome(dir: string, bytes: Uint8Array, options: OpenOptions): unknown {
  const path = `${dir}/case`;
  Deno.writeFileSync(path, bytes);
  using source = FileSource.open(path);
  return outcome(() => openImage(source, options));
}

Deno.test("openImage() on a FileSource matches the bytes in memory for every fixture", () => {
  const dir = Deno.makeTempDirSync({ prefix: "remcp-file-source-" });
  try {
    let n = 0;
    for (const entry of Deno.readDirSync(FIXTURES)) {
      if (!entry.isFile || entry.name.includes(".")) continue;
      const bytes = Deno.readFileSync(new URL(entry.name, FIXTURES));
      const options: OpenOptions = entry.name.startsWith("raw_")
        ? { raw: true, arch: "x86_64", base: 0x1000 }
        : entry.name === "macho_fat"
        ? { arch: "x86_64" }
        : {};
      assert.deepEqual(
        fileOutcome(dir, bytes, options),
        outcome(() => openImage(bytes, options)),
        entry.name,
      );
      n++;
    }
    assert.ok(n >= 20, `only ${n} fixtures`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("openImage() on a FileSource matches memory on mutated files of every format", () => {
  const dir = Deno.makeTempDirSync({ prefix: "remcp-file-source-" });
  try {
    for (const { format, files, options } of CORPUS) {
      const sources = files.map((f) => readOrSkip(new URL(f, FIXTURES), `file source ${format}`))
        .filter((b): b is Uint8Array => b !== undefined);
      const rnd = prng(0xf11e + format.length);
      for (let i = 0; i < 40 && sources.length > 0; i++) {
        const src = sources[i % sources.length]!;
        const bytes = mutate(src, rnd, hotFields(src, format));
        assert.deepEqual(
          fileOutcome(dir, bytes, options ?? {}),
          outcome(() => openImage(bytes, options ?? {})),
          `${format} case ${i}`,
        );
      }
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("openImage() on a FileSource reads neither a 64 MiB section nor an overlay", () => {
  const elf = readOrSkip(new URL("elf_x86_64_gcc_O2", FIXTURES), "big section");
  const pe = readOrSkip(new URL("pe_x86_64_O2.exe", FIXTURES), "overlay");
  if (!elf || !pe) return;
  const dir = Deno.makeTempDirSync({ prefix: "remcp-file-source-" });
  try {
    const debug = `${dir}/debug.elf`;
    const size = withBigSection(elf, debug, 64);
    const overlay = `${dir}/overlay.exe`;
    Deno.writeFileSync(overlay, pe);
    Deno.truncateSync(overlay, pe.length + 64 * 1024 * 1024);
    for (const [path, fixture] of [[debug, elf], [overlay, pe]] as const) {
      using source = FileSource.open(path);
      const img = openImage(source);
      assert.equal(img.fileSize, path === debug ? size : pe.length + 64 * 1024 * 1024);
      // The fixture's own bytes, a few cache pages and nothing of the 64 MiB.
      assert.ok(
        source.bytesRead < fixture.length + 2 * 1024 * 1024,
        `${path}: read ${source.bytesRead} bytes`,
      );
      assert.deepEqual(describe(img), describe(openImage(Deno.readFileSync(path))), path);
    }
    using source = FileSource.open(debug);
    const img = openImage(source);
    const grown = img.sections.find((s) => s.fileSize === 64 * 1024 * 1024);
    assert.ok(grown, "the grown section is listed with its size");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("FileSource says the file changed when it shrank while being read", () => {
  const dir = Deno.makeTempDirSync({ prefix: "remcp-file-source-" });
  try {
    const path = `${dir}/shrinks`;
    Deno.writeFileSync(path, new Uint8Array(200_000).fill(7));
    using source = FileSource.open(path);
    assert.equal(source.read(10, 4)[0], 7);
    Deno.truncateSync(path, 100);
    assert.throws(
      () => source.read(150_000, 8),
      (e: unknown) =>
        e instanceof RemcpError && e.code === "OpenFailed" && /changed/.test(e.message),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
