/**
 * Fat (universal) Mach-O files: listing their slices and choosing one by architecture name.
 */

import { RemcpError } from "../../../src/errors.ts";
import { machoArch } from "./_macho_commands.ts";
import { ByteReader, malformed } from "./_reader.ts";
import type { ByteSource } from "./_source.ts";
import { parseArchName } from "./arch_names.ts";

/** One architecture slice of a fat file. */
export interface FatSlice {
  /** Conventional name: "x86_64", "x86_64h", "arm64", "arm64e", "i386", "armv7", … */
  arch: string;
  offset: number;
  size: number;
  cputype: number;
  cpusubtype: number;
}

export const FAT_MAGIC = 0xcafebabe;
export const FAT_MAGIC_64 = 0xcafebabf;
/** Java class files share FAT_MAGIC; real fat files have few slices. */
const MAX_SLICES = 32;

const ARM_SUBTYPES: Record<number, string> = { 6: "armv6", 9: "armv7", 11: "armv7s", 12: "armv7k" };

function sliceName(cputype: number, sub: number): string {
  const s = sub & 0x00ffffff;
  switch (cputype) {
    case 0x01000007:
      return s === 8 ? "x86_64h" : "x86_64";
    case 7:
      return "i386";
    case 0x0100000c:
      return s === 2 ? "arm64e" : "arm64";
    case 0x0200000c:
      return "arm64_32";
    case 12:
      return ARM_SUBTYPES[s] ?? "arm";
    case 18:
      return "ppc";
    case 0x01000012:
      return "ppc64";
    default:
      return `cputype_${cputype}`;
  }
}

/** Whether `bytes` starts like a fat Mach-O (and not like a Java class file). */
export function isFat(bytes: Uint8Array | ByteSource): boolean {
  if (bytes.length < 8) return false;
  const r = new ByteReader(bytes, false);
  const magic = r.u32(0);
  return (magic === FAT_MAGIC || magic === FAT_MAGIC_64) && r.u32(4) > 0 && r.u32(4) <= MAX_SLICES;
}

/** The slices of a fat file, in header order. Throws `OpenFailed` when the header is unusable. */
export function listFatSlices(bytes: Uint8Array | ByteSource): FatSlice[] {
  if (!isFat(bytes)) throw malformed("Not a fat Mach-O file", 0);
  const r = new ByteReader(bytes, false);
  const is64 = r.u32(0) === FAT_MAGIC_64;
  const n = r.u32(4);
  const entSize = is64 ? 32 : 20;
  r.check(8, n * entSize, "Fat header runs past the end of the file");
  const out: FatSlice[] = [];
  for (let i = 0; i < n; i++) {
    const o = 8 + i * entSize;
    const cputype = r.u32(o);
    const cpusubtype = r.u32(o + 4);
    out.push({
      arch: sliceName(cputype, cpusubtype),
      offset: is64 ? r.u64(o + 8) : r.u32(o + 8),
      size: is64 ? r.u64(o + 16) : r.u32(o + 12),
      cputype,
      cpusubtype: cpusubtype & 0x00ffffff,
    });
  }
  return out;
}

/**
 * The slice `arch` names: an exact slice name ("arm64e") first, then any slice of the same
 * architecture ("aarch64" → "arm64"). Without `arch`, the only slice of a one-slice file.
 * Throws `AmbiguousFatBinary` (detail: the slices) when no single slice is chosen.
 */
export function chooseFatSlice(bytes: Uint8Array | ByteSource, arch: string | undefined): FatSlice {
  const slices = listFatSlices(bytes);
  const names = slices.map((s) => s.arch).join(", ");
  if (arch === undefined) {
    if (slices.length === 1) return slices[0]!;
    throw new RemcpError(
      "AmbiguousFatBinary",
      `Fat Mach-O file has ${slices.length} architectures (${names}): pass options: {arch: "…"} with one of them`,
      { slices },
    );
  }
  const want = arch.trim().toLowerCase();
  const exact = slices.find((s) => s.arch === want);
  const spec = parseArchName(want);
  const chosen = exact ??
    slices.find((s) => spec !== undefined && machoArch(s.cputype)?.arch === spec.arch);
  if (!chosen) {
    throw new RemcpError(
      "AmbiguousFatBinary",
      `Fat Mach-O file has no "${arch}" slice; its architectures are ${names}: pass options: {arch: "…"} with one of them`,
      { slices },
    );
  }
  if (chosen.offset + chosen.size > bytes.length) {
    throw malformed(`Slice ${chosen.arch} runs past the end of the file`, chosen.offset);
  }
  return chosen;
}
