/**
 * What the image reads after parsing, on demand: a raw blob and PE debug sections are mapped but
 * not held, read back right, and scanned by the analysis a window at a time.
 */
import assert from "node:assert/strict";
import { RemcpError } from "../../src/errors.ts";
import { createDecoder } from "./arch/decoder.ts";
import { analyze } from "./analysis/analyze.ts";
import { FileSource } from "./file_source.ts";
import type { ByteSource } from "./formats/_source.ts";
import { FIXTURES, readOrSkip, withBigLoadSegment, withBigPeSection } from "./formats/_testing.ts";
import type { OpenOptions } from "./formats/image.ts";
import { openImage } from "./formats/open_image.ts";

const MIB = 1024 * 1024;

/** `source` with the largest single read through it recorded. */
function counting(source: ByteSource): ByteSource & { largest: number } {
  const out = {
    length: source.length,
    largest: 0,
    window: (off: number, len: number) => {
      out.largest = Math.max(out.largest, len);
      return source.window(off, len);
    },
    read: (off: number, len: number) => {
      out.largest = Math.max(out.largest, len);
      return source.read(off, len);
    },
    readInto: (off: number, into: Uint8Array) => {
      out.largest = Math.max(out.largest, into.length);
      source.readInto(off, into);
    },
    keep: (ranges: readonly { offset: number; size: number }[]) => source.keep(ranges),
  };
  return out;
}

Deno.test("a PE's mapped debug sections are read only when asked, and read right", () => {
  const pe = readOrSkip(new URL("pe_x86_64_debug.exe", FIXTURES), "PE debug sections");
  if (!pe) return;
  const dir = Deno.makeTempDirSync({ prefix: "remcp-on-demand-" });
  try {
    const path = `${dir}/debug.exe`;
    const size = withBigPeSection(pe, path, 64);
    const source = FileSource.open(path);
    const img = openImage(source);
    assert.equal(img.fileSize, size);
    assert.ok(
      source.bytesRead < pe.length + 2 * MIB,
      `opening read ${source.bytesRead} bytes of a ${size}-byte file`,
    );
    // As the backend does: the file is closed after parsing and opened again by later reads.
    source.close();
    const file = Deno.readFileSync(path);
    const info = img.sections.find((s) => s.name === ".debug_info");
    assert.ok(info, "mingw's .debug_info is a section with an address");
    assert.deepEqual(
      img.read(info.start, 256),
      file.subarray(info.fileOffset, info.fileOffset + 256),
    );
    const grown = img.sections.find((s) => s.fileSize > 64 * MIB);
    assert.ok(grown, "the grown section is mapped whole");
    assert.deepEqual(img.read(grown.end - 4, 4), new Uint8Array(4));
    assert.deepEqual(
      img.readUpTo(grown.start, 64),
      file.subarray(grown.fileOffset, grown.fileOffset + 64),
    );
    source.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

for (const [arch, base] of [["aarch64", 0xa40], ["x86_64", 0x10c0]] as const) {
  Deno.test(`a raw ${arch} blob is read on demand and analysed a window at a time, as in memory`, async () => {
    const code = readOrSkip(new URL(`raw_${arch}.bin`, FIXTURES), "raw blob on demand");
    if (!code) return;
    const dir = Deno.makeTempDirSync({ prefix: "remcp-on-demand-" });
    try {
      // The code, 20 MiB of zeros (`udf` on AArch64, padding to the gap scan on both), the code again:
      // only a scan across many windows finds the second copy.
      const path = `${dir}/blob.bin`;
      const gap = 20 * MIB;
      {
        using f = Deno.openSync(path, { write: true, create: true, truncate: true });
        f.writeSync(code);
        f.seekSync(code.length + gap, Deno.SeekMode.Start);
        f.writeSync(code);
      }
      const options: OpenOptions = { raw: true, arch, base };
      const file = FileSource.open(path);
      const source = counting(file);
      const img = openImage(source, options);
      assert.ok(file.bytesRead < 64 * 1024, `opening read ${file.bytesRead} bytes`);
      file.close();
      const second = base + code.length + gap;
      assert.deepEqual(img.read(second, code.length), code);

      const decoder = await createDecoder(arch);
      try {
        const analysed = await analyze(img, decoder);
        // Flowing into the zeros ends a trace (x86 decodes `00 00` as `add [rax], al`): no function
        // spreads into the gap.
        for (const f of analysed.functions()) {
          assert.ok(
            f.start >= base + code.length || f.end <= base + code.length + 64,
            `0x${f.start.toString(16)}-0x${f.end.toString(16)} ${f.source}`,
          );
        }
        const fromFile = analysed.functions().map((f) => f.start);
        const inMemory = openImage(Deno.readFileSync(path), options);
        const fromMemory = (await analyze(inMemory, decoder)).functions().map((f) => f.start);
        assert.deepEqual(fromFile, fromMemory);
        assert.ok(fromFile.some((a) => a >= second), "the copy after the gap is found");
        assert.ok(
          source.largest < gap,
          `the largest read was ${source.largest} bytes of a ${img.fileSize}-byte blob`,
        );
      } finally {
        decoder.dispose();
        file.close();
      }
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
}

Deno.test("FileSource opens its file again after close, and not a file that changed", () => {
  const dir = Deno.makeTempDirSync({ prefix: "remcp-on-demand-" });
  try {
    const path = `${dir}/file`;
    Deno.writeFileSync(path, new Uint8Array(200_000).fill(7));
    const source = FileSource.open(path);
    source.close();
    assert.equal(source.read(150_000, 4)[3], 7);
    source.close();
    Deno.utimeSync(path, new Date(), new Date(Date.now() + 5_000));
    assert.throws(
      () => source.read(100_000, 4),
      (e: unknown) =>
        e instanceof RemcpError && e.code === "OpenFailed" &&
        /changed since it was opened/.test(e.message),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a FileSource over its held limit refuses before reading, naming REMCP_MAX_HELD_MB", () => {
  const elf = readOrSkip(new URL("elf_x86_64_gcc_O2", FIXTURES), "held limit");
  const code = readOrSkip(new URL("raw_x86_64.bin", FIXTURES), "held limit");
  if (!elf || !code) return;
  const dir = Deno.makeTempDirSync({ prefix: "remcp-on-demand-" });
  try {
    // 2 MiB of loaded segment (held) against a 1 MiB limit: refused, nothing of it read.
    const path = `${dir}/big.elf`;
    withBigLoadSegment(elf, path, 2);
    {
      using source = FileSource.open(path, { maxHeldMb: 1 });
      assert.throws(
        () => openImage(source),
        (e: unknown) =>
          e instanceof RemcpError && e.code === "OpenFailed" &&
          /over the 1 MiB limit .*REMCP_MAX_HELD_MB/.test(e.message),
      );
      assert.ok(source.bytesRead < MIB, `read ${source.bytesRead} bytes before refusing`);
    }
    // A raw blob is not held: 2 MiB of it open under the same limit.
    const blob = `${dir}/blob.bin`;
    Deno.writeFileSync(blob, code);
    Deno.truncateSync(blob, 2 * MIB);
    using source = FileSource.open(blob, { maxHeldMb: 1 });
    const img = openImage(source, { raw: true, arch: "x86_64", base: 0 });
    assert.deepEqual(img.read(0, code.length), code);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
