/**
 * ELF (32/64-bit, either byte order) → {@link BinaryImage}: segments, sections, symbols,
 * dynamic linking facts, relocations, PLT-named imports, unwind-table function hints and notes.
 */

import {
  DT_FINI,
  DT_FINI_ARRAY,
  DT_FINI_ARRAYSZ,
  DT_FLAGS,
  DT_FLAGS_1,
  DT_INIT,
  DT_INIT_ARRAY,
  DT_INIT_ARRAYSZ,
  DT_MIPS_GOTSYM,
  DT_MIPS_LOCAL_GOTNO,
  DT_MIPS_SYMTABNO,
  DT_PLTGOT,
  DT_PPC64_GLINK,
  DT_PREINIT_ARRAY,
  DT_PREINIT_ARRAYSZ,
  dynValue,
  type ElfDynamic,
  readElfDynamic,
  readVersionLibraries,
} from "./_elf_dynamic.ts";
import { type ElfLayout, elfReadRanges, parseElfLayout } from "./_elf_layout.ts";
import { type ElfNotes, readElfNotes } from "./_elf_notes.ts";
import { findPltStubs } from "./_elf_plt.ts";
import { loadRelocations, loadSymbolTables } from "./_elf_tables.ts";
import { readUnwindHints } from "./_elf_unwind.ts";
import { relocKinds } from "./_elf_reloc_types.ts";
import {
  type ElfContext,
  type ElfSection,
  EM_ARM,
  EM_MIPS,
  EM_PPC64,
  PT_DYNAMIC,
  PT_INTERP,
  PT_NOTE,
  PT_TLS,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHF_TLS,
  SHF_WRITE,
  SHT_DYNAMIC,
  SHT_NOBITS,
  SHT_NOTE,
  SHT_SYMTAB,
} from "./_elf_types.ts";
import { thumbOracle } from "./_thumb.ts";
import { makeImage } from "./_mapped_image.ts";
import { codeExtent, cutWarning } from "./_extent.ts";
import { optionalPart } from "./_optional_part.ts";
import { asSource, type ByteSource } from "./_source.ts";
import type {
  BinaryImage,
  EntryPoint,
  ExportEntry,
  FunctionHint,
  ImportEntry,
  Relocation,
  Section,
  SymbolEntry,
} from "./image.ts";

const ELF_TYPES = ["NONE", "REL", "EXEC", "DYN", "CORE"];
const SHN_UNDEF = 0;
const SHN_LORESERVE = 0xff00;
const SHN_ABS = 0xfff1;
const STT_FUNC = 2;
const STT_SECTION = 3;
const STT_FILE = 4;
const STT_TLS = 6;
const STT_GNU_IFUNC = 10;

function vaToOffFor(layout: ElfLayout): (addr: number) => number | undefined {
  return (addr: number) => {
    for (const s of layout.segments) {
      if (addr >= s.start && addr < s.start + s.fileSize) return s.fileOffset + (addr - s.start);
    }
    return undefined;
  };
}

function sectionKind(s: ElfSection): Section["kind"] {
  if (!(s.flags & SHF_ALLOC)) return "other";
  if (s.flags & SHF_EXECINSTR) return "code";
  if (s.type === SHT_NOBITS) return "bss";
  return s.flags & SHF_WRITE ? "data" : "rodata";
}

function toSections(layout: ElfLayout, fileLength: number, warnings: string[]): Section[] {
  const out: Section[] = [];
  for (const s of layout.sections) {
    if (s.index === 0 && s.type === 0) continue;
    const alloc = (s.flags & SHF_ALLOC) !== 0;
    const start = alloc ? s.addr : 0;
    const fileSize = s.type === SHT_NOBITS ? 0 : s.size;
    let size = s.size;
    if (alloc && s.flags & SHF_EXECINSTR) {
      size = codeExtent(s.size, { fileOffset: s.offset, fileSize, fileLength });
      if (size < s.size) warnings.push(cutWarning(`sections: ${s.name}`, s.size, size));
    }
    const end = alloc ? s.addr + size : 0;
    if (!Number.isSafeInteger(end)) {
      warnings.push(`sections: ${s.name} lies at or above 2^53 and was left out`);
      continue;
    }
    const sec: Section = {
      name: s.name,
      start,
      end,
      fileOffset: s.offset,
      fileSize: Math.min(fileSize, size),
      perms: alloc
        ? `r${s.flags & SHF_WRITE ? "w" : "-"}${s.flags & SHF_EXECINSTR ? "x" : "-"}`
        : "---",
      kind: sectionKind(s),
    };
    if (alloc) {
      const seg = layout.segments.find((g) => start >= g.start && start < g.end);
      if (seg) sec.segment = seg.name;
    }
    out.push(sec);
  }
  return out;
}

/** Parses an ELF file. Throws `OpenFailed` when the headers are unusable. */
export function parseElf(input: Uint8Array | ByteSource): BinaryImage {
  const source = asSource(input);
  const warnings: string[] = [];
  const layout = parseElfLayout(source, warnings);
  layout.r.keep(elfReadRanges(layout));
  const { r, is64, machine, arch } = layout;
  const ptrSize = is64 ? 8 : 4;
  const ctx: ElfContext = {
    r,
    is64,
    ptrSize,
    machine,
    arch,
    elfType: layout.elfType,
    sections: layout.sections,
    vaToOff: vaToOffFor(layout),
    warnings,
  };
  const isRel = layout.elfType === 1;
  const kinds = relocKinds(machine);
  const sections = toSections(layout, source.length, warnings);
  const info: Record<string, unknown> = {
    elf_type: ELF_TYPES[layout.elfType] ?? `0x${layout.elfType.toString(16)}`,
    machine: arch,
    machine_number: machine,
    os_abi: layout.osAbi,
    flags: `0x${layout.flags.toString(16)}`,
    warnings,
  };

  // Dynamic section.
  const dynPh = layout.phdrs.find((p) => p.type === PT_DYNAMIC);
  const dynSec = layout.sections.find((s) => s.type === SHT_DYNAMIC);
  const dynLoc = dynPh
    ? { offset: dynPh.offset, size: dynPh.filesz }
    : dynSec
    ? { offset: dynSec.offset, size: dynSec.size }
    : undefined;
  const dyn = dynLoc
    ? optionalPart(
      warnings,
      "dynamic section",
      undefined,
      () => readElfDynamic(ctx, dynLoc.offset, dynLoc.size),
    )
    : undefined;
  if (dyn) {
    info.needed = dyn.needed;
    if (dyn.soname !== undefined) info.soname = dyn.soname;
    if (dyn.rpath !== undefined) info.rpath = dyn.rpath;
    if (dyn.runpath !== undefined) info.runpath = dyn.runpath;
    const flags1 = dynValue(dyn, DT_FLAGS_1) ?? 0;
    info.bind_now = ((dynValue(dyn, DT_FLAGS) ?? 0) & 8) !== 0 || (flags1 & 1) !== 0;
    info.pie = (flags1 & 0x08000000) !== 0;
  }

  // Interpreter and notes.
  const interp = layout.phdrs.find((p) => p.type === PT_INTERP);
  if (interp) info.interpreter = r.cstring(interp.offset, interp.offset + interp.filesz);
  const notes: ElfNotes = {};
  optionalPart(warnings, "notes", undefined, () => {
    const notePhs = layout.phdrs.filter((p) => p.type === PT_NOTE);
    for (const p of notePhs) readElfNotes(r, p.offset, p.filesz, p.align, notes);
    if (notePhs.length === 0) {
      for (const s of layout.sections) {
        if (s.type === SHT_NOTE) readElfNotes(r, s.offset, s.size, s.addralign, notes);
      }
    }
  });
  if (notes.buildId) info.build_id = notes.buildId;
  if (notes.goBuildId) info.go_build_id = notes.goBuildId;
  if (notes.abiTag) info.abi_tag = notes.abiTag;

  // Symbols.
  const tables = loadSymbolTables(ctx, dyn);
  const tls = layout.phdrs.find((p) => p.type === PT_TLS);
  const symbols: SymbolEntry[] = [];
  const exports: ExportEntry[] = [];
  const seen = new Set<string>();
  const exported = new Set<string>();
  const thumbFuncs: number[] = [];
  const mappingSyms: { addr: number; thumb: boolean }[] = [];
  // .symtab first so its (usually richer) entries win the dedupe.
  const ordered = [...tables.values()].sort((a, b) => Number(a.dynamic) - Number(b.dynamic));
  for (const t of ordered) {
    for (const s of t.syms) {
      if (s.shndx === SHN_UNDEF || !s.name || s.type === STT_SECTION || s.type === STT_FILE) {
        continue;
      }
      let addr = s.value;
      if (isRel && s.shndx < SHN_LORESERVE) addr += ctx.sections[s.shndx]?.addr ?? 0;
      else if (s.shndx >= SHN_LORESERVE && s.shndx !== SHN_ABS) continue;
      if (s.type === STT_TLS) addr += tls?.vaddr ?? 0;
      if (machine === EM_ARM && s.name[0] === "$") {
        const m = s.name[1];
        if ((m === "a" || m === "t" || m === "d") && (s.name.length === 2 || s.name[2] === ".")) {
          mappingSyms.push({ addr, thumb: m === "t" });
          continue;
        }
      }
      if (s.name[0] === "$" && /^\$[adtx](\.|$)/.test(s.name)) continue;
      const isFunc = s.type === STT_FUNC || s.type === STT_GNU_IFUNC;
      if (machine === EM_ARM && isFunc && addr % 2 === 1) {
        addr -= 1;
        thumbFuncs.push(addr);
      }
      if (!Number.isSafeInteger(addr)) continue;
      const global = s.bind === 1 || s.bind === 2 || s.bind === 10;
      // Before the dedupe: a library's `.symtab` repeats every `.dynsym` entry, and what makes
      // a symbol an export is its presence in `.dynsym`.
      const key = `${s.name}\u0000${addr}`;
      if (t.dynamic && global && s.type !== STT_TLS && !exported.has(key)) {
        exported.add(key);
        exports.push({ name: s.name, address: addr });
      }
      if (seen.has(key)) continue;
      seen.add(key);
      symbols.push({
        name: s.name,
        address: addr,
        size: Number.isSafeInteger(s.size) ? s.size : 0,
        kind: isFunc ? "function" : s.type === 1 || s.type === 5 ? "object" : "other",
        source: t.dynamic ? "dynsym" : "symtab",
        global,
      });
    }
  }
  symbols.sort((a, b) => a.address - b.address);
  info.stripped = !layout.sections.some((s) => s.type === SHT_SYMTAB);
  info.has_debug_info = layout.sections.some((s) => s.name === ".debug_info");

  // Relocations and imports.
  const relocations: Relocation[] = [];
  // Pointer targets are kept only for init/fini array slots: a map of every RELATIVE reloc
  // would cost more than the whole parse on large libraries.
  const arrayRanges = initArrayRanges(layout, dyn, ptrSize);
  const inArray = (a: number) => arrayRanges.some(([s, e]) => a >= s && a < e);
  const slotTargets = new Map<number, number>();
  const importSlots = new Map<number, { name: string; index: number; dynamic: boolean }>();
  loadRelocations(ctx, dyn, tables, kinds.relative, (table, address, type, symIndex, addend) => {
    const rel: Relocation = { address, type };
    const sym = symIndex !== 0 ? table?.syms[symIndex] : undefined;
    if (sym?.name) rel.symbol = sym.name;
    if (sym && sym.shndx !== SHN_UNDEF) {
      let v = sym.value + (addend ?? 0);
      if (isRel && sym.shndx < SHN_LORESERVE) v += ctx.sections[sym.shndx]?.addr ?? 0;
      if (Number.isSafeInteger(v)) rel.target = v;
      // Calls to an interposable local definition still go through the PLT: name that stub too.
      if (type === kinds.jumpSlot && sym.name && !importSlots.has(address)) {
        importSlots.set(address, { name: sym.name, index: symIndex, dynamic: !!table?.dynamic });
      }
    } else if (symIndex === 0 && (type === kinds.relative || type === kinds.irelative)) {
      let v = addend;
      if (v === undefined) {
        const off = ctx.vaToOff(address);
        v = off !== undefined && r.has(off, ptrSize) ? r.word(off, ptrSize) : undefined;
      }
      if (v !== undefined && Number.isSafeInteger(v)) {
        rel.target = v;
        if (inArray(address)) slotTargets.set(address, v);
      }
    } else if (sym?.name && sym.shndx === SHN_UNDEF && !importSlots.has(address)) {
      importSlots.set(address, { name: sym.name, index: symIndex, dynamic: !!table?.dynamic });
    }
    relocations.push(rel);
  });

  const dynTable = [...tables.values()].find((t) => t.dynamic);
  const libraryOf = dyn && dynTable
    ? optionalPart(
      warnings,
      "symbol versions",
      () => undefined,
      () => readVersionLibraries(ctx, dyn, dynTable.syms.length),
    )
    : () => undefined;
  const pltGot = dyn ? dynValue(dyn, DT_PLTGOT) ?? 0 : 0;
  // MIPS has no GOT relocations for imports: the GOT entries from DT_MIPS_GOTSYM on are them.
  if (machine === EM_MIPS && dyn && dynTable) {
    const gotsym = dynValue(dyn, DT_MIPS_GOTSYM);
    const localGotno = dynValue(dyn, DT_MIPS_LOCAL_GOTNO) ?? 0;
    const symtabno = Math.min(dynValue(dyn, DT_MIPS_SYMTABNO) ?? 0, dynTable.syms.length);
    for (let i = gotsym ?? symtabno; i < symtabno; i++) {
      const s = dynTable.syms[i]!;
      const slot = pltGot + (localGotno + i - (gotsym ?? 0)) * ptrSize;
      if (s.shndx === SHN_UNDEF && s.name && !importSlots.has(slot)) {
        importSlots.set(slot, { name: s.name, index: i, dynamic: true });
      }
    }
  }
  const stubs = isRel
    ? new Map<number, number>()
    : optionalPart(warnings, "PLT", new Map<number, number>(), () => findPltStubs(ctx, pltGot));
  const glink = dyn ? dynValue(dyn, DT_PPC64_GLINK) : undefined;
  // PPC64 ELFv2: lazy-binding entries (`b __glink_PLTresolve`, what objdump calls `name@plt`)
  // follow the glink resolver, one word per PLT slot after the two reserved ones.
  const ppcStub = (slot: number): number | undefined =>
    machine === EM_PPC64 && (layout.flags & 3) === 2 && glink !== undefined &&
      slot >= pltGot + 16 && (slot - pltGot) % 8 === 0
      ? glink + 32 + ((slot - pltGot - 16) / 8) * 4
      : undefined;
  const imports: ImportEntry[] = [];
  for (const [slot, imp] of importSlots) {
    const entry: ImportEntry = {
      name: imp.name,
      address: stubs.get(slot) ?? ppcStub(slot) ?? slot,
      slot,
    };
    const lib = imp.dynamic ? libraryOf(imp.index) : undefined;
    if (lib !== undefined) entry.library = lib;
    imports.push(entry);
  }
  imports.sort((a, b) => a.address - b.address);

  // Entry points.
  const entryPoints: EntryPoint[] = [];
  let thumb = false;
  let entry: number | undefined;
  if (layout.entry !== 0 && !isRel) {
    entry = layout.entry;
    if (machine === EM_ARM && entry % 2 === 1) {
      entry -= 1;
      thumb = true;
    }
    if (Number.isSafeInteger(entry)) {
      entryPoints.push({
        name: "entry",
        address: entry,
        kind: "entry",
        ...(machine === EM_ARM ? { thumb } : {}),
      });
    } else entry = undefined;
  }
  const pointerAt = (slot: number): number | undefined => {
    const t = slotTargets.get(slot);
    if (t !== undefined) return t;
    const off = ctx.vaToOff(slot);
    return off !== undefined && r.has(off, ptrSize) ? r.word(off, ptrSize) : undefined;
  };
  const addArray = (
    addr: number | undefined,
    size: number,
    prefix: string,
    kind: "init" | "fini",
  ) => {
    if (addr === undefined) return;
    const n = Math.min(Math.floor(size / ptrSize), 10_000);
    for (let i = 0; i < n; i++) {
      let v = pointerAt(addr + i * ptrSize);
      if (v === undefined || v === 0 || v === (ptrSize === 8 ? 2 ** 64 - 1 : 0xffffffff)) continue;
      const mode = machine === EM_ARM ? { thumb: v % 2 === 1 } : {};
      if (machine === EM_ARM) v -= v % 2;
      if (Number.isSafeInteger(v)) {
        entryPoints.push({ name: `${prefix}_${i}`, address: v, kind, ...mode });
      }
    }
  };
  if (dyn) {
    const init = dynValue(dyn, DT_INIT);
    if (init) {
      entryPoints.push({
        name: "_init",
        address: init - (machine === EM_ARM ? init % 2 : 0),
        kind: "init",
        ...(machine === EM_ARM ? { thumb: init % 2 === 1 } : {}),
      });
    }
    const fini = dynValue(dyn, DT_FINI);
    if (fini) {
      entryPoints.push({
        name: "_fini",
        address: fini - (machine === EM_ARM ? fini % 2 : 0),
        kind: "fini",
        ...(machine === EM_ARM ? { thumb: fini % 2 === 1 } : {}),
      });
    }
    addArray(
      dynValue(dyn, DT_PREINIT_ARRAY),
      dynValue(dyn, DT_PREINIT_ARRAYSZ) ?? 0,
      "preinit_array",
      "init",
    );
    addArray(
      dynValue(dyn, DT_INIT_ARRAY),
      dynValue(dyn, DT_INIT_ARRAYSZ) ?? 0,
      "init_array",
      "init",
    );
    addArray(
      dynValue(dyn, DT_FINI_ARRAY),
      dynValue(dyn, DT_FINI_ARRAYSZ) ?? 0,
      "fini_array",
      "fini",
    );
  } else if (!isRel) {
    for (const s of layout.sections) {
      if (s.type === 16) addArray(s.addr, s.size, "preinit_array", "init");
      if (s.type === 14) addArray(s.addr, s.size, "init_array", "init");
      if (s.type === 15) addArray(s.addr, s.size, "fini_array", "fini");
    }
  }

  // Function hints from unwind tables (objects carry unrelocated ones, so skip those).
  const functionHints: FunctionHint[] = isRel ? [] : readUnwindHints(ctx, layout);

  const program_headers = layout.phdrs.slice(0, 64).map((p) => ({
    type: PH_TYPES[p.type] ?? `0x${p.type.toString(16)}`,
    offset: p.offset,
    vaddr: p.vaddr,
    filesz: p.filesz,
    memsz: p.memsz,
    flags: `${p.flags & 4 ? "r" : "-"}${p.flags & 2 ? "w" : "-"}${p.flags & 1 ? "x" : "-"}`,
  }));
  info.program_headers = program_headers;
  if (layout.sections.some((s) => s.flags & SHF_TLS)) info.has_tls = true;

  const parts = {
    format: "elf" as const,
    arch,
    bits: is64 ? 64 as const : 32 as const,
    endian: r.little ? "little" as const : "big" as const,
    imageBase: layout.segments.reduce((m, s) => Math.min(m, s.start), Infinity),
    fileSize: source.length,
    segments: layout.segments,
    sections,
    symbols,
    imports,
    exports,
    entryPoints,
    functionHints,
    relocations,
    info,
  };
  if (!Number.isFinite(parts.imageBase)) parts.imageBase = 0;
  const image = makeImage(source, {
    ...parts,
    ...(entry !== undefined ? { entry } : {}),
    ...(machine === EM_ARM
      ? {
        thumb,
        isThumb: thumbOracle(mappingSyms, thumbFuncs, thumb),
        ...(mappingSyms.length > 0 ? { armModesKnown: true } : {}),
      }
      : {}),
  });
  return image;
}

/** [start, end) of the preinit/init/fini arrays, from the dynamic section or section types. */
function initArrayRanges(
  layout: ElfLayout,
  dyn: ElfDynamic | undefined,
  ptrSize: number,
): [number, number][] {
  const out: [number, number][] = [];
  if (dyn) {
    for (
      const [a, z] of [
        [DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ],
        [DT_INIT_ARRAY, DT_INIT_ARRAYSZ],
        [DT_FINI_ARRAY, DT_FINI_ARRAYSZ],
      ] as const
    ) {
      const addr = dynValue(dyn, a);
      if (addr !== undefined) out.push([addr, addr + (dynValue(dyn, z) ?? ptrSize)]);
    }
  }
  for (const s of layout.sections) {
    if (s.type >= 14 && s.type <= 16) out.push([s.addr, s.addr + s.size]);
  }
  return out;
}

const PH_TYPES: Record<number, string> = {
  0: "NULL",
  1: "LOAD",
  2: "DYNAMIC",
  3: "INTERP",
  4: "NOTE",
  6: "PHDR",
  7: "TLS",
  0x6474e550: "GNU_EH_FRAME",
  0x6474e551: "GNU_STACK",
  0x6474e552: "GNU_RELRO",
  0x6474e553: "GNU_PROPERTY",
  0x70000001: "ARM_EXIDX",
};
