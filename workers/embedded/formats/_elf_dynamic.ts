/**
 * The ELF dynamic section: needed libraries, soname, search paths, the dynamic tables' addresses,
 * and symbol versioning (which tells which library each imported symbol comes from).
 */

import type { ElfContext } from "./_elf_types.ts";
import { malformed } from "./_reader.ts";

export const DT_NEEDED = 1;
export const DT_PLTRELSZ = 2;
export const DT_PLTGOT = 3;
export const DT_HASH = 4;
export const DT_STRTAB = 5;
export const DT_SYMTAB = 6;
export const DT_RELA = 7;
export const DT_RELASZ = 8;
export const DT_STRSZ = 10;
export const DT_SYMENT = 11;
export const DT_INIT = 12;
export const DT_FINI = 13;
export const DT_SONAME = 14;
export const DT_RPATH = 15;
export const DT_REL = 17;
export const DT_RELSZ = 18;
export const DT_PLTREL = 20;
export const DT_JMPREL = 23;
export const DT_BIND_NOW = 24;
export const DT_INIT_ARRAY = 25;
export const DT_FINI_ARRAY = 26;
export const DT_INIT_ARRAYSZ = 27;
export const DT_FINI_ARRAYSZ = 28;
export const DT_RUNPATH = 29;
export const DT_FLAGS = 30;
export const DT_PREINIT_ARRAY = 32;
export const DT_PREINIT_ARRAYSZ = 33;
export const DT_RELRSZ = 35;
export const DT_RELR = 36;
export const DT_GNU_HASH = 0x6ffffef5;
export const DT_VERSYM = 0x6ffffff0;
export const DT_FLAGS_1 = 0x6ffffffb;
export const DT_VERNEED = 0x6ffffffe;
export const DT_VERNEEDNUM = 0x6fffffff;
export const DT_MIPS_LOCAL_GOTNO = 0x7000000a;
export const DT_MIPS_SYMTABNO = 0x70000011;
export const DT_MIPS_GOTSYM = 0x70000013;
export const DT_PPC64_GLINK = 0x70000000;

const MAX_DYNAMIC = 100_000;
const MAX_VERNEED = 10_000;

/** Decoded dynamic section. */
export interface ElfDynamic {
  /** Tag → values in file order (DT_NEEDED repeats). */
  tags: Map<number, number[]>;
  needed: string[];
  soname?: string;
  rpath?: string;
  runpath?: string;
  /** File offset and size of the dynamic string table, when it is file-backed. */
  strOffset?: number;
  strSize: number;
}

/** First value of `tag`, if present. */
export function dynValue(dyn: ElfDynamic, tag: number): number | undefined {
  return dyn.tags.get(tag)?.[0];
}

/** Parses the dynamic entries at [offset, offset+size). */
export function readElfDynamic(ctx: ElfContext, offset: number, size: number): ElfDynamic {
  const { r, ptrSize } = ctx;
  const entSize = ptrSize * 2;
  r.check(offset, 0, "Dynamic section starts outside the file");
  const n = Math.min(Math.floor(Math.min(size, r.length - offset) / entSize), MAX_DYNAMIC);
  const tags = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const o = offset + i * entSize;
    const tag = r.word(o, ptrSize);
    if (tag === 0) break;
    const val = r.word(o + ptrSize, ptrSize);
    const list = tags.get(tag);
    if (list) list.push(val);
    else tags.set(tag, [val]);
  }
  const dyn: ElfDynamic = { tags, needed: [], strSize: 0 };
  const strAddr = dynValue(dyn, DT_STRTAB);
  const strOff = strAddr === undefined ? undefined : ctx.vaToOff(strAddr);
  if (strOff !== undefined) {
    dyn.strOffset = strOff;
    dyn.strSize = Math.min(dynValue(dyn, DT_STRSZ) ?? r.length - strOff, r.length - strOff);
    const str = (v: number) => r.cstring(strOff + v, strOff + dyn.strSize);
    dyn.needed = (tags.get(DT_NEEDED) ?? []).map(str);
    const so = dynValue(dyn, DT_SONAME);
    if (so !== undefined) dyn.soname = str(so);
    const rp = dynValue(dyn, DT_RPATH);
    if (rp !== undefined) dyn.rpath = str(rp);
    const rn = dynValue(dyn, DT_RUNPATH);
    if (rn !== undefined) dyn.runpath = str(rn);
  } else if (tags.has(DT_NEEDED)) {
    ctx.warnings.push("dynamic: DT_STRTAB is not file-backed, library names unknown");
  }
  return dyn;
}

/**
 * For each dynamic symbol index, the library its version requirement names (from DT_VERSYM and
 * DT_VERNEED), or undefined for unversioned symbols.
 */
export function readVersionLibraries(
  ctx: ElfContext,
  dyn: ElfDynamic,
  symCount: number,
): (index: number) => string | undefined {
  const { r } = ctx;
  const versymAddr = dynValue(dyn, DT_VERSYM);
  const verneedAddr = dynValue(dyn, DT_VERNEED);
  const strOff = dyn.strOffset;
  if (versymAddr === undefined || verneedAddr === undefined || strOff === undefined) {
    return () => undefined;
  }
  const versymOff = ctx.vaToOff(versymAddr);
  let vnOff = ctx.vaToOff(verneedAddr);
  if (versymOff === undefined || vnOff === undefined) return () => undefined;
  const byVersion = new Map<number, string>();
  const strEnd = strOff + dyn.strSize;
  const num = Math.min(dynValue(dyn, DT_VERNEEDNUM) ?? MAX_VERNEED, MAX_VERNEED);
  let auxBudget = MAX_VERNEED;
  for (let i = 0; i < num; i++) {
    const cnt = r.u16(vnOff + 2);
    const file = r.cstring(strOff + r.u32(vnOff + 4), strEnd);
    let aux = vnOff + r.u32(vnOff + 8);
    for (let j = 0; j < cnt && auxBudget-- > 0; j++) {
      byVersion.set(r.u16(aux + 6) & 0x7fff, file);
      const next = r.u32(aux + 12);
      if (next === 0) break;
      aux += next;
    }
    const next = r.u32(vnOff + 12);
    if (next === 0) break;
    vnOff += next;
  }
  if (!r.has(versymOff, symCount * 2)) {
    throw malformed("Symbol version table runs past the end of the file", versymOff);
  }
  return (index: number) => {
    if (index < 0 || index >= symCount) return undefined;
    return byVersion.get(r.u16(versymOff + index * 2) & 0x7fff);
  };
}
