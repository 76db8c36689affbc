/**
 * The ELF header, section headers and program headers: everything needed to map the file into
 * memory. The tables (symbols, relocations, …) are read afterwards by `elf.ts`.
 */

import { codeExtent, cutWarning } from "./_extent.ts";
import {
  type ElfSection,
  EM_386,
  EM_AARCH64,
  EM_ARM,
  EM_MIPS,
  EM_PPC,
  EM_PPC64,
  EM_RISCV,
  EM_X86_64,
  MAX_TABLE_ENTRIES,
  PT_DYNAMIC,
  PT_INTERP,
  PT_LOAD,
  PT_NOTE,
  SHF_ALLOC,
  SHT_DYNAMIC,
  SHT_DYNSYM,
  SHT_NOBITS,
  SHT_NOTE,
  SHT_REL,
  SHT_RELA,
  SHT_RELR,
  SHT_STRTAB,
  SHT_SYMTAB,
} from "./_elf_types.ts";
import { optionalPart } from "./_optional_part.ts";
import { ByteReader, hex, malformed } from "./_reader.ts";
import type { ByteSource } from "./_source.ts";
import type { Arch, Segment } from "./image.ts";

/** A program header as stored. */
export interface ElfProgramHeader {
  type: number;
  flags: number;
  offset: number;
  vaddr: number;
  filesz: number;
  memsz: number;
  align: number;
}

/** The parsed ELF header and header tables. */
export interface ElfLayout {
  r: ByteReader;
  is64: boolean;
  elfType: number;
  machine: number;
  arch: Arch;
  osAbi: number;
  flags: number;
  entry: number;
  phdrs: ElfProgramHeader[];
  sections: ElfSection[];
  /** PT_LOAD segments, or alloc sections standing in for them when there are none. */
  segments: Segment[];
}

const ET_REL = 1;
/** Where sections of a relocatable object are laid out (same base Rizin uses). */
const REL_BASE = 0x08000000;
const MAX_SECTIONS = 1_000_000;

function archOf(machine: number, is64: boolean): Arch | undefined {
  switch (machine) {
    case EM_386:
    case 6:
      return "x86";
    case EM_X86_64:
      return "x86_64";
    case EM_ARM:
      return "arm";
    case EM_AARCH64:
      return "aarch64";
    case EM_MIPS:
    case 10:
      return is64 ? "mips64" : "mips";
    case EM_PPC:
      return "ppc";
    case EM_PPC64:
      return "ppc64";
    case EM_RISCV:
      return is64 ? "riscv64" : "riscv32";
    default:
      return undefined;
  }
}

/** "r-x" from read/write/execute flags. */
export function permString(r: boolean, w: boolean, x: boolean): string {
  return `${r ? "r" : "-"}${w ? "w" : "-"}${x ? "x" : "-"}`;
}

function readSections(
  r: ByteReader,
  is64: boolean,
  shoff: number,
  shentsize: number,
  shnum: number,
  shstrndx: number,
  warnings: string[],
): ElfSection[] {
  if (shoff === 0) return [];
  const minEnt = is64 ? 64 : 40;
  if (shentsize < minEnt) throw malformed(`Section header size ${shentsize} is too small`, shoff);
  r.check(shoff, minEnt, "Section header table starts outside the file");
  const word = (o: number) => is64 ? r.u64(o) : r.u32(o);
  let count = shnum === 0 ? word(shoff + (is64 ? 32 : 20)) : shnum;
  if (shstrndx === 0xffff) shstrndx = r.u32(shoff + (is64 ? 40 : 24));
  const fits = Math.floor((r.length - shoff) / shentsize);
  if (count > fits) {
    warnings.push(`sections: ${count} section headers claimed, ${fits} present in the file`);
    count = fits;
  }
  count = Math.min(count, MAX_SECTIONS);
  const out: ElfSection[] = [];
  const nameOffs: number[] = [];
  for (let i = 0; i < count; i++) {
    const o = shoff + i * shentsize;
    out.push({
      index: i,
      name: "",
      type: r.u32(o + 4),
      flags: word(o + 8),
      addr: word(o + (is64 ? 16 : 12)),
      offset: word(o + (is64 ? 24 : 16)),
      size: word(o + (is64 ? 32 : 20)),
      link: r.u32(o + (is64 ? 40 : 24)),
      info: r.u32(o + (is64 ? 44 : 28)),
      addralign: word(o + (is64 ? 48 : 32)),
      entsize: word(o + (is64 ? 56 : 36)),
    });
    nameOffs.push(r.u32(o));
  }
  const strSec = out[shstrndx];
  if (strSec && strSec.type !== SHT_NOBITS) {
    const end = strSec.offset + strSec.size;
    out.forEach((s, i) => s.name = r.cstring(strSec.offset + nameOffs[i]!, end, 1024));
  }
  return out;
}

function readProgramHeaders(
  r: ByteReader,
  is64: boolean,
  phoff: number,
  phentsize: number,
  phnum: number,
): ElfProgramHeader[] {
  if (phoff === 0 || phnum === 0) return [];
  const minEnt = is64 ? 56 : 32;
  if (phentsize < minEnt) throw malformed(`Program header size ${phentsize} is too small`, 0);
  if (!r.has(phoff, phnum * phentsize)) {
    throw malformed(`Program header table (${phnum} entries) runs past the end of the file`, phoff);
  }
  const out: ElfProgramHeader[] = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    out.push(
      is64
        ? {
          type: r.u32(o),
          flags: r.u32(o + 4),
          offset: r.u64(o + 8),
          vaddr: r.u64(o + 16),
          filesz: r.u64(o + 32),
          memsz: r.u64(o + 40),
          align: r.u64(o + 48),
        }
        : {
          type: r.u32(o),
          offset: r.u32(o + 4),
          vaddr: r.u32(o + 8),
          filesz: r.u32(o + 16),
          memsz: r.u32(o + 20),
          flags: r.u32(o + 24),
          align: r.u32(o + 28),
        },
    );
  }
  return out;
}

/** Parses the ELF header and header tables; throws `OpenFailed` when they are unusable. */
export function parseElfLayout(source: ByteSource, warnings: string[]): ElfLayout {
  if (source.length < 52) throw malformed("ELF header is truncated", 0);
  const ident = new ByteReader(source, true);
  const cls = ident.u8(4);
  const data = ident.u8(5);
  if (cls !== 1 && cls !== 2) throw malformed(`Unknown ELF class ${cls}`, 4);
  if (data !== 1 && data !== 2) throw malformed(`Unknown ELF data encoding ${data}`, 5);
  const is64 = cls === 2;
  const r = new ByteReader(source, data === 1);
  r.check(0, is64 ? 64 : 52, "ELF header is truncated");
  const word = (o: number) => is64 ? r.u64(o) : r.u32(o);
  const elfType = r.u16(16);
  const machine = r.u16(18);
  const arch = archOf(machine, is64);
  if (!arch) {
    throw malformed(
      `ELF machine ${machine} is not supported by the embedded engine; pass options: {raw: true, arch, base} to read it as a raw blob, or use another backend`,
      18,
    );
  }
  const entry = word(24);
  const phoff = word(is64 ? 32 : 28);
  const shoff = word(is64 ? 40 : 32);
  const flags = r.u32(is64 ? 48 : 36);
  const phentsize = r.u16(is64 ? 54 : 42);
  let phnum = r.u16(is64 ? 56 : 44);
  const shentsize = r.u16(is64 ? 58 : 46);
  const shnum = r.u16(is64 ? 60 : 48);
  const shstrndx = r.u16(is64 ? 62 : 50);

  const sections = optionalPart(
    warnings,
    "section headers",
    [],
    () => readSections(r, is64, shoff, shentsize, shnum, shstrndx, warnings),
  );
  if (phnum === 0xffff && sections[0]) phnum = sections[0].info;
  const phdrs = readProgramHeaders(r, is64, phoff, phentsize, Math.min(phnum, 65536));

  const segments: Segment[] = [];
  let loadIndex = 0;
  for (const p of phdrs) {
    if (p.type !== PT_LOAD) continue;
    const name = `LOAD${loadIndex++}`;
    if (p.memsz === 0) continue;
    if (!Number.isSafeInteger(p.vaddr + p.memsz)) {
      throw malformed(
        `Segment ${name} at ${
          p.vaddr.toString(16)
        } reaches at or above 2^53, which the embedded engine cannot represent (known limitation)`,
        phoff,
      );
    }
    if (p.offset + p.filesz > r.length) {
      warnings.push(`segments: ${name} runs past the end of the file; the missing bytes read as 0`);
    }
    let size = p.memsz;
    if (p.flags & 1) {
      size = codeExtent(p.memsz, {
        fileOffset: p.offset,
        fileSize: p.filesz,
        fileLength: r.length,
      });
      if (size < p.memsz) warnings.push(cutWarning(`segments: ${name}`, p.memsz, size));
    }
    segments.push({
      name,
      start: p.vaddr,
      end: p.vaddr + size,
      fileOffset: p.offset,
      fileSize: Math.min(p.filesz, size),
      perms: permString((p.flags & 4) !== 0, (p.flags & 2) !== 0, (p.flags & 1) !== 0),
    });
  }

  if (segments.length === 0) {
    // Objects and stripped-of-phdrs files: the alloc sections are the memory map.
    let next = REL_BASE;
    for (const s of sections) {
      if (!(s.flags & SHF_ALLOC) || s.size === 0) continue;
      if (elfType === ET_REL) {
        const align = Math.min(Math.max(s.addralign, 16), 4096);
        next = Math.ceil(next / align) * align;
        s.addr = next;
        next += s.size;
      }
      if (!Number.isSafeInteger(s.addr + s.size) || s.size > MAX_TABLE_ENTRIES * 1024) continue;
      segments.push({
        name: s.name || `section${s.index}`,
        start: s.addr,
        end: s.addr + s.size,
        fileOffset: s.offset,
        fileSize: s.type === SHT_NOBITS ? 0 : s.size,
        perms: permString(true, (s.flags & 1) !== 0, (s.flags & 4) !== 0),
      });
    }
    if (segments.length === 0 && elfType !== 4) {
      warnings.push(`layout: no loadable segments or sections (e_phoff ${hex(phoff)})`);
    }
  }
  return {
    r,
    is64,
    elfType,
    machine,
    arch,
    osAbi: r.u8(7),
    flags,
    entry,
    phdrs,
    sections,
    segments,
  };
}

/** Section types whose bytes the parser reads (symbols, their names, relocations, notes). */
const READ_TYPES = new Set([
  SHT_SYMTAB,
  SHT_STRTAB,
  SHT_RELA,
  SHT_DYNAMIC,
  SHT_NOTE,
  SHT_REL,
  SHT_DYNSYM,
  SHT_RELR,
]);

/**
 * The file ranges an ELF's image and tables come from: loaded segments, the program headers'
 * dynamic, note and interpreter parts, allocated sections, and the tables the parser reads.
 * Debug sections, comments and anything past them are left out: they are never read whole.
 */
export function elfReadRanges(layout: ElfLayout): { offset: number; size: number }[] {
  const out: { offset: number; size: number }[] = [];
  for (const s of layout.segments) out.push({ offset: s.fileOffset, size: s.fileSize });
  for (const p of layout.phdrs) {
    if (p.type === PT_LOAD || p.type === PT_DYNAMIC || p.type === PT_NOTE || p.type === PT_INTERP) {
      out.push({ offset: p.offset, size: p.filesz });
    }
  }
  for (const s of layout.sections) {
    if (s.type === SHT_NOBITS) continue;
    if ((s.flags & SHF_ALLOC) || READ_TYPES.has(s.type)) {
      out.push({ offset: s.offset, size: s.size });
    }
  }
  return out;
}
