/** Test helpers: fixture and system files, and readelf, each optional with a printed skip reason. */

import assert from "node:assert/strict";

/** Folder of the committed fixture binaries. */
export const FIXTURES = new URL("../../../tests/fixtures/bin/", import.meta.url);

/** Reads `path`, or prints why the test is skipped and returns undefined. */
export function readOrSkip(path: string | URL, test: string): Uint8Array | undefined {
  try {
    return Deno.readFileSync(path);
  } catch {
    console.error(`skipped ${test}: ${path} is missing`);
    return undefined;
  }
}

/** Bytes and ground truth of fixture `name`, or undefined (skip printed) when absent. */
export function fixture(
  name: string,
  test: string,
): { bytes: Uint8Array; truth: Record<string, unknown> } | undefined {
  const bytes = readOrSkip(new URL(name, FIXTURES), test);
  const truthBytes = readOrSkip(new URL(`${name}.truth.json`, FIXTURES), test);
  if (!bytes || !truthBytes) return undefined;
  const truth: unknown = JSON.parse(new TextDecoder().decode(truthBytes));
  if (typeof truth !== "object" || truth === null) return undefined;
  return { bytes, truth: truth as Record<string, unknown> };
}

/** Parses a "0x…" string from a truth file. */
export function num(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    return Number.parseInt(v, v.startsWith("0x") || v.startsWith("0X") ? 16 : 10);
  }
  throw new TypeError(`not a number: ${String(v)}`);
}

/** A list of records from a truth file field. */
export function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v)
    ? v.filter((x): x is Record<string, unknown> => typeof x === "object" && x !== null)
    : [];
}

/** `readelf -W args…` output, or undefined (skip printed) when readelf is not installed. */
export function readelf(args: string[], test: string): string | undefined {
  try {
    const out = new Deno.Command("readelf", {
      args: ["-W", ...args],
      stdout: "piped",
      stderr: "null",
    })
      .outputSync();
    return new TextDecoder().decode(out.stdout);
  } catch {
    console.error(`skipped ${test}: readelf is not installed`);
    return undefined;
  }
}

/** Whether `path` is an ELF file (used to pick system binaries). */
export function isElfFile(path: string): boolean {
  try {
    const f = Deno.openSync(path);
    const b = new Uint8Array(4);
    const n = f.readSync(b);
    f.close();
    return n === 4 && b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46;
  } catch {
    return false;
  }
}

/**
 * `fixture` (a 64-bit little-endian ELF whose section headers come last) with `mib` MiB of
 * zeros as the contents of its last non-loaded section, moved past them: the shape of a binary
 * with large debug information. The zeros are a hole in a sparse file, cheap on disk.
 */
export function withBigSection(fixture: Uint8Array, path: string, mib: number): number {
  const dv = new DataView(fixture.buffer, fixture.byteOffset, fixture.byteLength);
  const shoff = Number(dv.getBigUint64(0x28, true));
  const shnum = dv.getUint16(0x3c, true);
  assert.equal(shoff + shnum * 64, fixture.length, "section headers must end the file");
  const table = fixture.slice(shoff);
  const tv = new DataView(table.buffer);
  let last = -1;
  for (let i = 1; i < shnum; i++) {
    const flags = Number(tv.getBigUint64(i * 64 + 8, true));
    if ((flags & 2) === 0 && tv.getUint32(i * 64 + 4, true) === 1) last = i; // PROGBITS, not alloc
  }
  assert.ok(last > 0, "no non-loaded section to grow");
  const big = mib * 1024 * 1024;
  tv.setBigUint64(last * 64 + 24, BigInt(shoff), true); // sh_offset
  tv.setBigUint64(last * 64 + 32, BigInt(big), true); // sh_size
  const head = fixture.slice(0, shoff);
  new DataView(head.buffer).setBigUint64(0x28, BigInt(shoff + big), true); // e_shoff
  using f = Deno.openSync(path, { write: true, create: true, truncate: true });
  f.writeSync(head);
  f.seekSync(shoff + big, Deno.SeekMode.Start);
  f.writeSync(table);
  return shoff + big + table.length;
}

/**
 * `pe` (a PE whose last section by file offset is a discardable one, as mingw's `.debug_*` are,
 * followed only by the COFF symbol and string tables) with that section grown by `mib` MiB of
 * zeros, in memory too (its virtual size and SizeOfImage grow with it): the shape of a mingw
 * build with large debug information. The zeros are a hole in a sparse file.
 */
export function withBigPeSection(pe: Uint8Array, path: string, mib: number): number {
  const head = pe.slice();
  const dv = new DataView(head.buffer);
  const at = dv.getUint32(0x3c, true);
  const count = dv.getUint16(at + 6, true);
  const table = at + 24 + dv.getUint16(at + 20, true);
  let last = -1;
  for (let i = 0; i < count; i++) {
    const raw = dv.getUint32(table + i * 40 + 20, true);
    if (last < 0 || raw > dv.getUint32(table + last * 40 + 20, true)) last = i;
  }
  const h = table + last * 40;
  assert.ok(dv.getUint32(h + 36, true) & 0x02000000, "the last section must be discardable");
  const end = dv.getUint32(h + 20, true) + dv.getUint32(h + 16, true);
  const symbols = dv.getUint32(at + 12, true);
  assert.ok(symbols === 0 || symbols >= end, "only the COFF tables may follow the last section");
  const big = mib * 1024 * 1024;
  dv.setUint32(h + 8, dv.getUint32(h + 8, true) + big, true); // VirtualSize
  dv.setUint32(h + 16, dv.getUint32(h + 16, true) + big, true); // SizeOfRawData
  if (symbols !== 0) dv.setUint32(at + 12, symbols + big, true); // PointerToSymbolTable
  dv.setUint32(at + 24 + 56, dv.getUint32(at + 24 + 56, true) + big, true); // SizeOfImage
  using f = Deno.openSync(path, { write: true, create: true, truncate: true });
  f.writeSync(head.subarray(0, end));
  f.seekSync(end + big, Deno.SeekMode.Start);
  f.writeSync(head.subarray(end));
  return pe.length + big;
}

/**
 * `elf` (64-bit, little-endian) with its last PT_LOAD grown by `mib` MiB of zeros to the end of
 * the file: a loaded segment, which the embedded backend holds. The zeros are a sparse hole.
 */
export function withBigLoadSegment(elf: Uint8Array, path: string, mib: number): void {
  const head = elf.slice();
  const dv = new DataView(head.buffer);
  const phoff = Number(dv.getBigUint64(0x20, true));
  let last = -1;
  for (let i = 0; i < dv.getUint16(0x38, true); i++) {
    if (dv.getUint32(phoff + i * dv.getUint16(0x36, true), true) === 1) last = i;
  }
  const ph = phoff + last * dv.getUint16(0x36, true);
  const size = elf.length + mib * 1024 * 1024;
  const filesz = size - Number(dv.getBigUint64(ph + 8, true));
  dv.setBigUint64(ph + 0x20, BigInt(filesz), true);
  dv.setBigUint64(
    ph + 0x28,
    BigInt(Math.max(filesz, Number(dv.getBigUint64(ph + 0x28, true)))),
    true,
  );
  Deno.writeFileSync(path, head);
  Deno.truncateSync(path, size);
}
