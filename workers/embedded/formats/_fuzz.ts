/**
 * The mutation fuzzer of the format parsers, shared by the CI sample (fuzz_test.ts) and the full
 * run (bench/fuzz.ts): a corpus of fixtures, deterministic mutations (truncations, bit flips,
 * huge count/offset/size fields), and the check every mutated file must pass.
 */

import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { executableRanges } from "../analysis/_code_cache.ts";
import { INTERNAL_WARNING } from "./_optional_part.ts";
import { CODE_ZERO_FILL } from "./_extent.ts";
import type { OpenOptions } from "./image.ts";
import { openImage } from "./open_image.ts";

/** Longest one case may take. */
export const MAX_MS_PER_CASE = 1000;

const HUGE = [0xffffffff, 0x7fffffff, 0x80000000, 0x10000000, 0xfffffff0, 0x0000ffff];

/** One mutation of `src`: a truncation, bit flips, or a huge value in a hot field or near the start. */
export function mutate(src: Uint8Array, rnd: () => number, hotFields: number[]): Uint8Array {
  const int = (n: number) => Math.floor(rnd() * n);
  const kind = int(4);
  if (kind === 0) return src.slice(0, int(src.length)); // truncation
  const b = src.slice();
  const dv = new DataView(b.buffer);
  if (kind === 1) {
    const flips = 1 + int(8);
    for (let i = 0; i < flips; i++) {
      // Headers and tables sit near the start: favour them.
      const at = rnd() < 0.7 ? int(Math.min(b.length, 4096)) : int(b.length);
      b[at]! ^= 1 << int(8);
    }
  } else {
    const pool = kind === 2 && hotFields.length > 0 ? hotFields : [];
    const at = pool.length > 0 ? pool[int(pool.length)]! : int(Math.min(b.length, 8192)) & ~3;
    const v = HUGE[int(HUGE.length)]!;
    if (at + 4 <= b.length) dv.setUint32(at, v, rnd() < 0.5);
    if (rnd() < 0.3 && at + 8 <= b.length) dv.setUint32(at + 4, v, true);
  }
  return b;
}

/**
 * Opens `bytes` and exercises the image: it must end in an image or in `OpenFailed` /
 * `AmbiguousFatBinary`, within {@link MAX_MS_PER_CASE}, and no executable range may claim more
 * than the file holds plus a page (analysis works per byte of them; ranges may map the same
 * file bytes at several addresses, so the bound is per range).
 */
export function check(bytes: Uint8Array, options: OpenOptions, label: string): void {
  const t0 = performance.now();
  try {
    const img = openImage(bytes, options);
    const warnings = img.info.warnings;
    assert.ok(Array.isArray(warnings), label);
    for (const w of warnings) assert.ok(!String(w).includes(INTERNAL_WARNING), `${label}: ${w}`);
    JSON.stringify(img.info);
    if (img.entry !== undefined) img.readUpTo(img.entry, 64);
    const ranges = executableRanges(img);
    const code = unionLength(ranges);
    assert.ok(
      code <= ranges.length * (bytes.length + CODE_ZERO_FILL),
      `${label}: executable ranges claim ${code} bytes of a ${bytes.length}-byte file`,
    );
    for (const s of img.sections.slice(0, 50)) {
      img.sectionAt(s.start);
      img.read(s.start, 16);
    }
  } catch (err) {
    if (!(err instanceof RemcpError)) throw new Error(`${label}: ${String(err)}`, { cause: err });
    assert.ok(
      err.code === "OpenFailed" || err.code === "AmbiguousFatBinary",
      `${label}: ${err.code}`,
    );
    assert.notEqual(err.detail.internal, true, `${label}: ${err.message}`);
  }
  const ms = performance.now() - t0;
  assert.ok(ms < MAX_MS_PER_CASE, `${label} took ${ms.toFixed(0)} ms`);
}

function u32(b: Uint8Array, at: number, little: boolean): number {
  return new DataView(b.buffer, b.byteOffset).getUint32(at, little);
}

/** Bytes covered by `ranges` (sorted by start), overlaps counted once. */
function unionLength(ranges: readonly { start: number; end: number }[]): number {
  let total = 0;
  let reach = -Infinity;
  for (const r of ranges) {
    const from = Math.max(r.start, reach);
    if (r.end > from) total += r.end - from;
    reach = Math.max(reach, r.end);
  }
  return total;
}

/** Offsets of count/offset/size fields worth overwriting, per format. */
export function hotFields(b: Uint8Array, format: string): number[] {
  if (format === "elf") return [0x20, 0x28, 0x30, 0x36, 0x38, 0x3a, 0x3c, 0x3e, 0x1c, 0x2c, 0x2e];
  if (format === "pe") {
    const pe = u32(b, 0x3c, true);
    const out = [0x3c, pe + 6, pe + 12, pe + 16, pe + 20];
    for (let i = 0; i < 16; i++) out.push(pe + 24 + 112 + i * 8, pe + 24 + 96 + i * 8);
    // Section headers: VirtualSize, VirtualAddress, SizeOfRawData, PointerToRawData.
    const table = pe + 24 +
      (b.length > pe + 22 ? new DataView(b.buffer, b.byteOffset).getUint16(pe + 20, true) : 0);
    for (let i = 0; i < 8; i++) {
      out.push(table + i * 40 + 8, table + i * 40 + 12, table + i * 40 + 16, table + i * 40 + 20);
    }
    out.push(pe + 24 + 56); // SizeOfImage
    return out;
  }
  if (format === "fat") return [4, 16, 20, 36, 40];
  const out = [16, 20];
  // Every load command's size and first fields.
  let p = 32;
  for (let i = 0; i < 64 && p + 8 < b.length; i++) {
    for (let k = 4; k < 64; k += 4) out.push(p + k);
    const size = u32(b, p + 4, true);
    if (size < 8) break;
    p += size;
  }
  return out;
}

/** The fixtures each format's mutations start from. */
export const CORPUS: { format: string; files: string[]; options?: OpenOptions }[] = [
  {
    format: "elf",
    files: [
      "elf_x86_64_gcc_O2",
      "elf_arm_gcc_O2",
      "elf_mips_gcc_O2",
      "elf_ppc64le_gcc_O2",
      "elf_i386_gcc_O2",
    ],
  },
  { format: "pe", files: ["pe_x86_64_O2.exe", "pe_i386_O2.exe", "remcp_dll.dll"] },
  { format: "macho", files: ["macho_x86_64", "macho_arm64"] },
  { format: "fat", files: ["macho_fat"], options: { arch: "arm64" } },
];
