/** ELF relocation tables: REL, RELA and the compact RELR form. */

import { type ElfContext, EM_MIPS, MAX_TABLE_ENTRIES } from "./_elf_types.ts";
import { malformed } from "./_reader.ts";

/**
 * Receives one relocation as stored: `sym` is the symbol-table index (0 for none), `addend` is
 * undefined for REL entries. A callback rather than records, because large libraries have
 * hundreds of thousands of relocations and the intermediate objects dominated the parse time.
 */
export type RelocSink = (address: number, type: number, sym: number, addend?: number) => void;

/** Where a relocation table is and how to read it. */
export interface RelocTable {
  offset: number;
  size: number;
  rela: boolean;
  entsize: number;
  /** Added to r_offset: the target section's address for ET_REL, else 0. */
  base: number;
}

/** Feeds the entries of a REL/RELA table to `sink`; returns how many (at most `limit`). */
export function readElfRelocs(
  ctx: ElfContext,
  t: RelocTable,
  sink: RelocSink,
  limit = MAX_TABLE_ENTRIES,
): number {
  const { r, is64 } = ctx;
  const minSize = (is64 ? 16 : 8) + (t.rela ? (is64 ? 8 : 4) : 0);
  const entsize = t.entsize || minSize;
  if (entsize < minSize) throw malformed(`Relocation entry size ${entsize} is too small`, t.offset);
  r.check(t.offset, 0, "Relocation table starts outside the file");
  const avail = Math.min(t.size, r.length - t.offset);
  if (avail < t.size) ctx.warnings.push("relocations: table runs past the end of the file");
  const n = Math.max(0, Math.min(Math.floor(avail / entsize), limit));
  const mips64le = is64 && ctx.machine === EM_MIPS && r.little;
  for (let i = 0; i < n; i++) {
    const o = t.offset + i * entsize;
    let address: number, type: number, sym: number;
    if (is64) {
      address = r.u64(o) + t.base;
      if (mips64le) {
        // MIPS64 little-endian keeps r_info as {u32 sym, u8 ssym, u8 type3, u8 type2, u8 type}.
        sym = r.u32(o + 8);
        type = r.u8(o + 15);
      } else {
        const info = r.u64(o + 8);
        sym = Math.floor(info / 0x1_0000_0000);
        type = info % 0x1_0000_0000;
      }
    } else {
      address = r.u32(o) + t.base;
      const info = r.u32(o + 4);
      sym = info >>> 8;
      type = info & 0xff;
    }
    if (t.rela) sink(address, type, sym, is64 ? r.i64(o + 16) : r.i32(o + 8));
    else sink(address, type, sym);
  }
  return n;
}

/** Feeds the relative relocations of a RELR table to `sink`; returns how many (at most `limit`). */
export function readElfRelr(
  ctx: ElfContext,
  offset: number,
  size: number,
  relativeType: number,
  sink: RelocSink,
  limit = MAX_TABLE_ENTRIES,
): number {
  const { r, ptrSize } = ctx;
  r.check(offset, 0, "RELR table starts outside the file");
  const n = Math.floor(Math.min(size, r.length - offset) / ptrSize);
  const bitsPerWord = ptrSize * 8 - 1;
  let where = 0;
  let count = 0;
  for (let i = 0; i < n && count < limit; i++) {
    const entry = r.word(offset + i * ptrSize, ptrSize);
    if (entry % 2 === 0) {
      sink(entry, relativeType, 0);
      count++;
      where = entry + ptrSize;
    } else {
      // Bitmap: bit k (k ≥ 1) relocates the word k-1 after `where`. Read the high word separately
      // because JS bit operators are 32-bit.
      const lo = ptrSize === 8 ? r.u32(offset + i * ptrSize + (r.little ? 0 : 4)) : entry;
      const hi = ptrSize === 8 ? r.u32(offset + i * ptrSize + (r.little ? 4 : 0)) : 0;
      for (let k = 1; k <= bitsPerWord; k++) {
        const bit = k < 32 ? (lo >>> k) & 1 : (hi >>> (k - 32)) & 1;
        if (bit) {
          sink(where + (k - 1) * ptrSize, relativeType, 0);
          count++;
        }
      }
      where += bitsPerWord * ptrSize;
    }
  }
  return count;
}
