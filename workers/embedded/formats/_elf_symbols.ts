/** ELF symbol-table reading (`.symtab`, `.dynsym`, or DT_SYMTAB when sections are stripped). */

import { type ElfContext, type ElfSymbol, MAX_TABLE_ENTRIES } from "./_elf_types.ts";
import { malformed } from "./_reader.ts";

/** Where a symbol table and its string table are in the file. */
export interface SymtabLocation {
  offset: number;
  /** Entry count wanted; clamped to what the file holds. */
  count: number;
  entsize: number;
  strOffset: number;
  strSize: number;
}

/** Reads a symbol table; entries past the end of the file are dropped with a warning. */
export function readElfSymbols(ctx: ElfContext, loc: SymtabLocation, what: string): ElfSymbol[] {
  const { r, is64 } = ctx;
  const minSize = is64 ? 24 : 16;
  const entsize = loc.entsize || minSize;
  if (entsize < minSize) throw malformed(`${what} entry size ${entsize} is too small`, loc.offset);
  r.check(loc.offset, 0, `${what} starts outside the file`);
  const fits = Math.floor((r.length - loc.offset) / entsize);
  let count = Math.min(loc.count, MAX_TABLE_ENTRIES);
  if (count > fits) {
    ctx.warnings.push(`${what}: ${loc.count} entries claimed, ${fits} present in the file`);
    count = fits;
  }
  const strEnd = Math.min(loc.strOffset + loc.strSize, r.length);
  const out: ElfSymbol[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const o = loc.offset + i * entsize;
    const nameOff = r.u32(o);
    let info: number, shndx: number, value: number, size: number;
    if (is64) {
      info = r.u8(o + 4);
      shndx = r.u16(o + 6);
      value = r.u64(o + 8);
      size = r.u64(o + 16);
    } else {
      value = r.u32(o + 4);
      size = r.u32(o + 8);
      info = r.u8(o + 12);
      shndx = r.u16(o + 14);
    }
    const name = nameOff === 0 ? "" : r.cstring(loc.strOffset + nameOff, strEnd);
    out[i] = { name, value, size, type: info & 0xf, bind: info >> 4, shndx };
  }
  return out;
}
