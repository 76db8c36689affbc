/**
 * Shapes shared by the ELF parser's parts: the raw section and symbol records and the context
 * handed from the header parser to the table parsers.
 */

import type { ByteReader } from "./_reader.ts";
import type { Arch } from "./image.ts";

/** An ELF section header, with its name resolved and its load address fixed up for ET_REL. */
export interface ElfSection {
  index: number;
  name: string;
  type: number;
  flags: number;
  addr: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  addralign: number;
  entsize: number;
}

/** An ELF symbol as stored, plus its decoded name. */
export interface ElfSymbol {
  name: string;
  value: number;
  size: number;
  type: number;
  bind: number;
  shndx: number;
}

/** What the table parsers need from the header parser. */
export interface ElfContext {
  r: ByteReader;
  is64: boolean;
  ptrSize: 4 | 8;
  machine: number;
  arch: Arch;
  elfType: number;
  sections: ElfSection[];
  /** File offset of a virtual address inside a PT_LOAD (or alloc section), if file-backed. */
  vaToOff(addr: number): number | undefined;
  warnings: string[];
}

export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_RELA = 4;
export const SHT_DYNAMIC = 6;
export const SHT_NOTE = 7;
export const SHT_NOBITS = 8;
export const SHT_REL = 9;
export const SHT_DYNSYM = 11;
export const SHT_RELR = 19;

export const SHF_WRITE = 0x1;
export const SHF_ALLOC = 0x2;
export const SHF_EXECINSTR = 0x4;
export const SHF_TLS = 0x400;

export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PT_INTERP = 3;
export const PT_NOTE = 4;
export const PT_TLS = 7;
export const PT_GNU_EH_FRAME = 0x6474e550;

export const EM_386 = 3;
export const EM_MIPS = 8;
export const EM_PPC = 20;
export const EM_PPC64 = 21;
export const EM_ARM = 40;
export const EM_X86_64 = 62;
export const EM_AARCH64 = 183;
export const EM_RISCV = 243;

/** Upper bound on entries read from any one ELF table. */
export const MAX_TABLE_ENTRIES = 5_000_000;
