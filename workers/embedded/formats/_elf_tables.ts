/** ELF symbol tables and relocation tables, located by section headers or the dynamic section. */

import {
  DT_GNU_HASH,
  DT_HASH,
  DT_JMPREL,
  DT_PLTREL,
  DT_PLTRELSZ,
  DT_REL,
  DT_RELA,
  DT_RELASZ,
  DT_RELR,
  DT_RELRSZ,
  DT_RELSZ,
  DT_STRTAB,
  DT_SYMENT,
  DT_SYMTAB,
  dynValue,
  type ElfDynamic,
} from "./_elf_dynamic.ts";
import { readElfRelocs, readElfRelr } from "./_elf_relocs.ts";
import { readElfSymbols } from "./_elf_symbols.ts";
import {
  type ElfContext,
  type ElfSymbol,
  MAX_TABLE_ENTRIES,
  SHF_ALLOC,
  SHT_DYNSYM,
  SHT_REL,
  SHT_RELA,
  SHT_RELR,
  SHT_SYMTAB,
} from "./_elf_types.ts";
import { optionalPart } from "./_optional_part.ts";

/** Dynamic symbol count from DT_HASH or DT_GNU_HASH, for files without section headers. */
function dynsymCount(ctx: ElfContext, dyn: ElfDynamic): number {
  const { r } = ctx;
  const hash = dynValue(dyn, DT_HASH);
  const hashOff = hash === undefined ? undefined : ctx.vaToOff(hash);
  if (hashOff !== undefined) return r.u32(hashOff + 4);
  const gnu = dynValue(dyn, DT_GNU_HASH);
  const g = gnu === undefined ? undefined : ctx.vaToOff(gnu);
  if (g === undefined) return 0;
  const nbuckets = Math.min(r.u32(g), MAX_TABLE_ENTRIES);
  const symoffset = r.u32(g + 4);
  const bloomSize = r.u32(g + 8);
  const buckets = g + 16 + bloomSize * ctx.ptrSize;
  let max = 0;
  for (let i = 0; i < nbuckets; i++) max = Math.max(max, r.u32(buckets + i * 4));
  if (max < symoffset) return symoffset;
  const chains = buckets + nbuckets * 4;
  let i = max;
  for (let n = 0; n < MAX_TABLE_ENTRIES; n++, i++) {
    if (r.u32(chains + (i - symoffset) * 4) & 1) break;
  }
  return i + 1;
}

/** A symbol table and whether it is the dynamic one. */
export interface SymTable {
  syms: ElfSymbol[];
  dynamic: boolean;
}

export function loadSymbolTables(
  ctx: ElfContext,
  dyn: ElfDynamic | undefined,
): Map<number, SymTable> {
  const tables = new Map<number, SymTable>();
  for (const s of ctx.sections) {
    if (s.type !== SHT_SYMTAB && s.type !== SHT_DYNSYM) continue;
    const str = ctx.sections[s.link];
    if (!str) continue;
    const what = s.type === SHT_DYNSYM ? ".dynsym" : ".symtab";
    const syms = optionalPart(ctx.warnings, what, [], () =>
      readElfSymbols(ctx, {
        offset: s.offset,
        count: s.entsize ? Math.floor(s.size / s.entsize) : 0,
        entsize: s.entsize,
        strOffset: str.offset,
        strSize: str.size,
      }, what));
    tables.set(s.index, { syms, dynamic: s.type === SHT_DYNSYM });
  }
  const hasDynsym = [...tables.values()].some((t) => t.dynamic);
  if (!hasDynsym && dyn && dyn.strOffset !== undefined) {
    const symAddr = dynValue(dyn, DT_SYMTAB);
    const symOff = symAddr === undefined ? undefined : ctx.vaToOff(symAddr);
    if (symOff !== undefined && dynValue(dyn, DT_STRTAB) !== undefined) {
      const strOffset = dyn.strOffset;
      const syms = optionalPart(ctx.warnings, "DT_SYMTAB", [], () =>
        readElfSymbols(ctx, {
          offset: symOff,
          count: dynsymCount(ctx, dyn),
          entsize: dynValue(dyn, DT_SYMENT) ?? 0,
          strOffset,
          strSize: dyn.strSize,
        }, "DT_SYMTAB"));
      tables.set(-1, { syms, dynamic: true });
    }
  }
  return tables;
}

/** Receives a relocation together with the symbol table its index refers to. */
export type TableRelocSink = (
  table: SymTable | undefined,
  address: number,
  type: number,
  sym: number,
  addend?: number,
) => void;

export function loadRelocations(
  ctx: ElfContext,
  dyn: ElfDynamic | undefined,
  tables: Map<number, SymTable>,
  relativeType: number,
  sink: TableRelocSink,
): void {
  let budget = MAX_TABLE_ENTRIES;
  const dynTable = [...tables.values()].find((t) => t.dynamic);
  const relocSecs = ctx.sections.filter((s) =>
    s.type === SHT_REL || s.type === SHT_RELA || s.type === SHT_RELR
  );
  for (const s of relocSecs) {
    const target = ctx.sections[s.info];
    // In objects, relocations of debug sections are many and say nothing about code.
    if (ctx.elfType === 1 && (!target || !(target.flags & SHF_ALLOC))) continue;
    const table = tables.get(s.link) ?? dynTable;
    const one = (a: number, t: number, y: number, add?: number) => sink(table, a, t, y, add);
    budget -= optionalPart(
      ctx.warnings,
      s.name || "relocations",
      0,
      () =>
        s.type === SHT_RELR
          ? readElfRelr(ctx, s.offset, s.size, relativeType, one, budget)
          : readElfRelocs(
            ctx,
            {
              offset: s.offset,
              size: s.size,
              rela: s.type === SHT_RELA,
              entsize: s.entsize,
              base: ctx.elfType === 1 && target ? target.addr : 0,
            },
            one,
            budget,
          ),
    );
    if (budget <= 0) break;
  }
  if (relocSecs.length > 0 || !dyn) return;
  // No section headers: the dynamic section says where the tables are.
  const one = (a: number, t: number, y: number, add?: number) => sink(dynTable, a, t, y, add);
  const add = (addrTag: number, sizeTag: number, rela: boolean) => {
    const addr = dynValue(dyn, addrTag);
    const size = dynValue(dyn, sizeTag);
    const off = addr === undefined ? undefined : ctx.vaToOff(addr);
    if (off === undefined || size === undefined) return;
    budget -= optionalPart(
      ctx.warnings,
      "dynamic relocations",
      0,
      () =>
        addrTag === DT_RELR
          ? readElfRelr(ctx, off, size, relativeType, one, budget)
          : readElfRelocs(ctx, { offset: off, size, rela, entsize: 0, base: 0 }, one, budget),
    );
  };
  add(DT_RELA, DT_RELASZ, true);
  add(DT_REL, DT_RELSZ, false);
  const jmprel = dynValue(dyn, DT_JMPREL);
  const rela = dynValue(dyn, DT_RELA);
  const relasz = dynValue(dyn, DT_RELASZ) ?? 0;
  const inRela = jmprel !== undefined && rela !== undefined && jmprel >= rela &&
    jmprel < rela + relasz;
  if (!inRela) add(DT_JMPREL, DT_PLTRELSZ, dynValue(dyn, DT_PLTREL) === DT_RELA);
  add(DT_RELR, DT_RELRSZ, false);
}
