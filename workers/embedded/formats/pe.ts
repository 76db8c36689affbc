/**
 * PE32 / PE32+ → {@link BinaryImage}: headers, sections, imports (incl. delay-load), exports
 * (incl. forwarders and ordinal-only), base relocations, `.pdata`, TLS callbacks, resources,
 * debug directory, Rich header and the COFF symbol table mingw leaves in.
 */

import { makeImage } from "./_mapped_image.ts";
import { codeExtent, cutWarning } from "./_extent.ts";
import { optionalPart } from "./_optional_part.ts";
import { readPeExports } from "./_pe_exports.ts";
import { readPeDelayImports, readPeImports } from "./_pe_imports.ts";
import { coffStringTable, readCoffSymbols, readPeDebug, readRichHeader } from "./_pe_meta.ts";
import { readPeResources } from "./_pe_resources.ts";
import { readPeFunctionTable, readPeRelocations, readPeTlsCallbacks } from "./_pe_tables.ts";
import {
  DIR_CLR,
  IMAGE_FILE_MACHINE_ARMNT,
  IMAGE_FILE_MACHINE_THUMB,
  type PeContext,
  type PeDirectory,
  type PeSection,
} from "./_pe_types.ts";
import { ByteReader, malformed } from "./_reader.ts";
import { asSource, type ByteSource } from "./_source.ts";
import type { Arch, BinaryImage, EntryPoint, Section, Segment, SymbolEntry } from "./image.ts";

const MACHINES: Record<number, { arch: Arch; name: string; endian?: "big" }> = {
  0x14c: { arch: "x86", name: "i386" },
  0x8664: { arch: "x86_64", name: "amd64" },
  0x1c0: { arch: "arm", name: "arm" },
  0x1c2: { arch: "arm", name: "thumb" },
  0x1c4: { arch: "arm", name: "armnt" },
  0xaa64: { arch: "aarch64", name: "arm64" },
  0x166: { arch: "mips", name: "r4000" },
  0x169: { arch: "mips", name: "wcemipsv2" },
  0x1f0: { arch: "ppc", name: "powerpc" },
  0x1f1: { arch: "ppc", name: "powerpcfp" },
  0x5032: { arch: "riscv32", name: "riscv32" },
  0x5064: { arch: "riscv64", name: "riscv64" },
};

const SUBSYSTEMS: Record<number, string> = {
  1: "native",
  2: "windows_gui",
  3: "windows_cui",
  7: "posix_cui",
  9: "windows_ce_gui",
  10: "efi_application",
  11: "efi_boot_service_driver",
  12: "efi_runtime_driver",
  13: "efi_rom",
  14: "xbox",
  16: "windows_boot_application",
};

const DLL_CHARACTERISTICS: [number, string][] = [
  [0x0020, "high_entropy_va"],
  [0x0040, "dynamic_base"],
  [0x0080, "force_integrity"],
  [0x0100, "nx_compat"],
  [0x0200, "no_isolation"],
  [0x0400, "no_seh"],
  [0x0800, "no_bind"],
  [0x1000, "appcontainer"],
  [0x2000, "wdm_driver"],
  [0x4000, "guard_cf"],
  [0x8000, "terminal_server_aware"],
];

const SCN_CNT_CODE = 0x20;
const SCN_CNT_UNINITIALIZED = 0x80;
const SCN_MEM_DISCARDABLE = 0x02000000;
const SCN_MEM_EXECUTE = 0x20000000;
const SCN_MEM_READ = 0x40000000;
const SCN_MEM_WRITE = 0x80000000;

function perms(c: number): string {
  return `${c & SCN_MEM_READ ? "r" : "-"}${c & SCN_MEM_WRITE ? "w" : "-"}${
    c & SCN_MEM_EXECUTE ? "x" : "-"
  }`;
}

/**
 * Discardable sections that hold no code (mingw's `.debug_*`, `.reloc`): mapped, so `read_bytes`
 * reaches them, but the analysis never needs their bytes (relocations are parsed from the file),
 * so the image reads them only when asked.
 */
function onDemand(s: PeSection): boolean {
  const c = s.characteristics;
  return (c & SCN_MEM_DISCARDABLE) !== 0 && (c & (SCN_CNT_CODE | SCN_MEM_EXECUTE)) === 0;
}

function kindOf(s: PeSection): Section["kind"] {
  const c = s.characteristics;
  if (c & (SCN_CNT_CODE | SCN_MEM_EXECUTE)) return "code";
  if ((c & SCN_CNT_UNINITIALIZED) && s.rawSize === 0) return "bss";
  if (c & SCN_MEM_DISCARDABLE) return "other";
  return c & SCN_MEM_WRITE ? "data" : "rodata";
}

/** Parses a PE image. Throws `OpenFailed` when the headers are unusable. */
export function parsePe(input: Uint8Array | ByteSource): BinaryImage {
  const source = asSource(input);
  const warnings: string[] = [];
  const r = new ByteReader(source, true);
  if (r.u16(0) !== 0x5a4d) throw malformed("Missing MZ signature", 0);
  const pe = r.u32(0x3c);
  if (!r.has(pe, 24) || r.u32(pe) !== 0x00004550) throw malformed("Missing PE signature", pe);
  const machine = r.u16(pe + 4);
  const m = MACHINES[machine];
  if (!m) {
    throw malformed(
      `PE machine 0x${
        machine.toString(16)
      } is not supported by the embedded engine; pass options: {raw: true, arch, base} to read it as a raw blob`,
      pe + 4,
    );
  }
  const nSections = r.u16(pe + 6);
  const timestamp = r.u32(pe + 8);
  const symPtr = r.u32(pe + 12);
  const symCount = r.u32(pe + 16);
  const optSize = r.u16(pe + 20);
  const characteristics = r.u16(pe + 22);
  const opt = pe + 24;
  const magic = r.u16(opt);
  if (magic !== 0x10b && magic !== 0x20b) {
    throw malformed(`Unknown optional header magic 0x${magic.toString(16)}`, opt);
  }
  const is64 = magic === 0x20b;
  r.check(opt, is64 ? 112 : 96, "Optional header is truncated");
  const entryRva = r.u32(opt + 16);
  const imageBase = is64 ? r.addr64(opt + 24, "Image base") : r.u32(opt + 28);
  const sectionAlign = r.u32(opt + 32);
  const fileAlign = r.u32(opt + 36);
  const sizeOfImage = r.u32(opt + 56);
  const sizeOfHeaders = r.u32(opt + 60);
  const subsystem = r.u16(opt + 68);
  const dllChars = r.u16(opt + 70);
  if (!Number.isSafeInteger(imageBase + sizeOfImage + 0x1_0000_0000)) {
    throw malformed(
      "Image reaches at or above 2^53 (known limitation of the embedded engine)",
      opt,
    );
  }
  const nDirsAt = opt + (is64 ? 108 : 92);
  const nDirs = Math.min(
    r.u32(nDirsAt),
    16,
    Math.max(0, Math.floor((optSize - (is64 ? 112 : 96)) / 8)),
  );
  const dirs: PeDirectory[] = [];
  for (let i = 0; i < nDirs; i++) {
    const o = nDirsAt + 4 + i * 8;
    dirs.push(r.has(o, 8) ? { rva: r.u32(o), size: r.u32(o + 4) } : { rva: 0, size: 0 });
  }

  const secTable = opt + optSize;
  if (!r.has(secTable, nSections * 40)) {
    throw malformed(`Section table (${nSections} entries) runs past the end of the file`, secTable);
  }
  const strTable = symPtr ? coffStringTable({ offset: symPtr, count: symCount }) : 0;
  const peSections: PeSection[] = [];
  for (let i = 0; i < nSections; i++) {
    const o = secTable + i * 40;
    let name = r.fixedString(o, 8);
    // mingw keeps long section names ("/4" → ".debug_info") in the COFF string table.
    if (/^\/\d+$/.test(name) && strTable) {
      name = r.cstring(strTable + Number(name.slice(1)), r.length, 256) || name;
    }
    let rawOffset = r.u32(o + 20);
    if (fileAlign >= 0x200) rawOffset -= rawOffset % 0x200; // the loader rounds this down
    peSections.push({
      name,
      virtualSize: r.u32(o + 8),
      rva: r.u32(o + 12),
      rawSize: r.u32(o + 16),
      rawOffset,
      characteristics: r.u32(o + 36),
    });
  }

  const rvaToOff = (rva: number): number | undefined => {
    if (rva < 0 || !Number.isSafeInteger(rva)) return undefined;
    if (rva < sizeOfHeaders && rva < source.length) return rva;
    for (const s of peSections) {
      const size = Math.max(s.virtualSize, s.rawSize);
      if (rva >= s.rva && rva < s.rva + size) {
        const rel = rva - s.rva;
        return rel < s.rawSize && s.rawOffset + rel < source.length ? s.rawOffset + rel : undefined;
      }
    }
    return undefined;
  };
  // The headers, the sections and the COFF symbol table are what the image and the tables come
  // from; an overlay (installer payload, signature) is never read whole.
  const coffStrings = symPtr + symCount * 18;
  r.keep([
    { offset: 0, size: sizeOfHeaders || 0x400 },
    ...peSections.filter((s) => !onDemand(s)).map((s) => ({
      offset: s.rawOffset,
      size: s.rawSize,
    })),
    {
      offset: symPtr,
      size: symCount * 18 + (symPtr > 0 && r.has(coffStrings, 4) ? r.u32(coffStrings) : 0),
    },
  ]);
  const ctx: PeContext = {
    r,
    is64,
    ptrSize: is64 ? 8 : 4,
    machine,
    imageBase,
    sections: peSections,
    dirs,
    rvaToOff,
    warnings,
  };

  const headerSize = Math.min(sizeOfHeaders || 0x400, source.length);
  const segments: Segment[] = [{
    name: "HEADER",
    start: imageBase,
    end: imageBase + headerSize,
    fileOffset: 0,
    fileSize: headerSize,
    perms: "r--",
  }];
  const sections: Section[] = [];
  const lazyStarts = new Set<number>();
  for (const s of peSections) {
    const declared = s.virtualSize || s.rawSize;
    if (declared === 0) continue;
    // The loader refuses a section that ends past SizeOfImage.
    let size = s.rva < sizeOfImage ? Math.min(declared, sizeOfImage - s.rva) : declared;
    if (s.characteristics & (SCN_CNT_CODE | SCN_MEM_EXECUTE)) {
      size = codeExtent(size, {
        fileOffset: s.rawOffset,
        fileSize: s.rawSize,
        fileLength: source.length,
      });
    }
    if (size < declared) warnings.push(cutWarning(`Section ${s.name}`, declared, size));
    const start = imageBase + s.rva;
    const seg: Segment = {
      name: s.name,
      start,
      end: start + size,
      fileOffset: s.rawOffset,
      fileSize: Math.min(s.rawSize, size),
      perms: perms(s.characteristics),
    };
    segments.push(seg);
    sections.push({ ...seg, kind: kindOf(s), segment: s.name });
    if (onDemand(s)) lazyStarts.add(start);
  }

  const imports = [
    ...optionalPart(warnings, "imports", [], () => readPeImports(ctx)),
    ...optionalPart(warnings, "delay-load imports", [], () => readPeDelayImports(ctx)),
  ];
  const exp = optionalPart(warnings, "exports", { exports: [] }, () => readPeExports(ctx));
  const relocations = optionalPart(warnings, "base relocations", [], () => readPeRelocations(ctx));
  const functionHints = optionalPart(
    warnings,
    "exception directory",
    [],
    () => readPeFunctionTable(ctx),
  );
  const thumb = machine === IMAGE_FILE_MACHINE_ARMNT || machine === IMAGE_FILE_MACHINE_THUMB;
  const entryPoints: EntryPoint[] = [];
  let entry: number | undefined;
  if (entryRva !== 0) {
    entry = imageBase + entryRva - (thumb ? entryRva % 2 : 0);
    entryPoints.push({ name: "entry", address: entry, kind: "entry" });
  }
  const tls = optionalPart(warnings, "TLS directory", [], () => readPeTlsCallbacks(ctx));
  entryPoints.push(...tls);

  const symbols: SymbolEntry[] = [];
  const seen = new Set<string>();
  const addSym = (s: SymbolEntry) => {
    const key = `${s.name}\u0000${s.address}`;
    if (!seen.has(key)) {
      seen.add(key);
      symbols.push(s);
    }
  };
  if (symPtr !== 0 && symCount !== 0) {
    for (
      const s of optionalPart(
        warnings,
        "COFF symbols",
        [],
        () => readCoffSymbols(ctx, { offset: symPtr, count: symCount }),
      )
    ) {
      addSym(s);
    }
  }
  for (const e of exp.exports) {
    if (e.forwarder !== undefined) continue;
    const sec = sections.find((s) => e.address >= s.start && e.address < s.end);
    addSym({
      name: e.name,
      address: e.address,
      size: 0,
      kind: sec?.kind === "code" ? "function" : "object",
      source: "export",
      global: true,
    });
  }
  symbols.sort((a, b) => a.address - b.address);

  const debug = optionalPart(warnings, "debug directory", { types: [] }, () => readPeDebug(ctx));
  const rich = optionalPart(warnings, "Rich header", undefined, () => readRichHeader(r, pe));
  const resources = optionalPart(warnings, "resources", [], () => readPeResources(ctx));
  const info: Record<string, unknown> = {
    machine: m.name,
    machine_number: machine,
    pe32plus: is64,
    dll: (characteristics & 0x2000) !== 0,
    subsystem: SUBSYSTEMS[subsystem] ?? String(subsystem),
    timestamp,
    timestamp_iso: new Date(timestamp * 1000).toISOString(),
    dll_characteristics: DLL_CHARACTERISTICS.filter(([bit]) => dllChars & bit).map(([, n]) => n),
    section_alignment: sectionAlign,
    file_alignment: fileAlign,
    size_of_image: sizeOfImage,
    os_version: `${r.u16(opt + 40)}.${r.u16(opt + 42)}`,
    subsystem_version: `${r.u16(opt + 48)}.${r.u16(opt + 50)}`,
    checksum: r.u32(opt + 64),
    debug_types: debug.types,
    rich_header: rich ? { present: true, entries: rich } : { present: false },
    resources,
    tls_callbacks: tls.map((t) => t.address),
    warnings,
  };
  if (exp.dllName !== undefined) info.dll_name = exp.dllName;
  if (debug.pdbPath !== undefined) info.pdb_path = debug.pdbPath;
  if (debug.pdbGuid !== undefined) info.pdb_guid = debug.pdbGuid;
  if (debug.pdbAge !== undefined) info.pdb_age = debug.pdbAge;
  const clr = dirs[DIR_CLR];
  if (clr && clr.rva !== 0) {
    info.clr = true;
    warnings.push(
      ".NET assembly: its code is CIL bytecode, which native disassembly does not decode",
    );
  }

  return makeImage(source, {
    format: "pe",
    arch: m.arch,
    bits: is64 ? 64 : 32,
    endian: "little",
    ...(entry !== undefined ? { entry } : {}),
    ...(thumb ? { thumb, isThumb: () => true, armModesKnown: true } : {}),
    imageBase,
    fileSize: source.length,
    segments,
    onDemand: (s) => lazyStarts.has(s.start),
    sections,
    symbols,
    imports,
    exports: exp.exports,
    entryPoints,
    functionHints,
    relocations,
    info,
  });
}
