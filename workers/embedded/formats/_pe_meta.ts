/** PE facts for `info`: the debug directory (PDB path), the Rich header and COFF symbols. */

import { DIR_DEBUG, MAX_PE_ENTRIES, offOrThrow, type PeContext } from "./_pe_types.ts";
import type { ByteReader } from "./_reader.ts";
import type { SymbolEntry } from "./image.ts";

/** What the debug directory says. */
export interface PeDebugInfo {
  types: number[];
  pdbPath?: string;
  pdbGuid?: string;
  pdbAge?: number;
}

function guidString(r: ByteReader, o: number): string {
  const h = (v: number, n: number) => v.toString(16).padStart(n, "0");
  let tail = "";
  for (let i = 8; i < 16; i++) tail += h(r.u8(o + i), 2);
  return `${h(r.u32(o), 8)}-${h(r.u16(o + 4), 4)}-${h(r.u16(o + 6), 4)}-${tail.slice(0, 4)}-${
    tail.slice(4)
  }`;
}

/** Reads the debug directory, decoding the CodeView (RSDS / NB10) record. */
export function readPeDebug(ctx: PeContext): PeDebugInfo {
  const info: PeDebugInfo = { types: [] };
  const dir = ctx.dirs[DIR_DEBUG];
  if (!dir || dir.rva === 0 || dir.size === 0) return info;
  const { r } = ctx;
  const o = offOrThrow(ctx, dir.rva, "Debug directory");
  const n = Math.min(Math.floor(dir.size / 28), 64);
  for (let i = 0; i < n; i++) {
    const e = o + i * 28;
    const type = r.u32(e + 12);
    info.types.push(type);
    if (type !== 2) continue;
    const size = r.u32(e + 16);
    const ptr = r.u32(e + 24);
    if (!r.has(ptr, Math.min(size, 24)) || size < 24) continue;
    const sig = r.u32(ptr);
    if (sig === 0x53445352) { // "RSDS"
      info.pdbGuid = guidString(r, ptr + 4);
      info.pdbAge = r.u32(ptr + 20);
      info.pdbPath = r.cstring(ptr + 24, ptr + size);
    } else if (sig === 0x3031424e) { // "NB10"
      info.pdbAge = r.u32(ptr + 12);
      info.pdbPath = r.cstring(ptr + 16, ptr + size);
    }
  }
  return info;
}

/** A Rich header entry: tool product id, build number and use count. */
export interface RichEntry {
  product: number;
  build: number;
  count: number;
}

/** Decodes the Rich header between the DOS stub and `peOffset`, if there is one. */
export function readRichHeader(r: ByteReader, peOffset: number): RichEntry[] | undefined {
  const end = Math.min(peOffset, r.length) - 8;
  for (let p = 0x80; p <= end; p += 4) {
    if (r.u32(p) !== 0x68636952) continue; // "Rich"
    const key = r.u32(p + 4);
    let q = p - 4;
    while (q >= 0x80 && (r.u32(q) ^ key) >>> 0 !== 0x536e6144) q -= 4; // "DanS"
    if (q < 0x80) return undefined;
    const entries: RichEntry[] = [];
    for (let e = q + 16; e + 8 <= p && entries.length < 256; e += 8) {
      const id = (r.u32(e) ^ key) >>> 0;
      entries.push({ product: id >>> 16, build: id & 0xffff, count: (r.u32(e + 4) ^ key) >>> 0 });
    }
    return entries;
  }
  return undefined;
}

/** Where the COFF symbol table is (from the file header). */
export interface CoffSymbolTable {
  offset: number;
  count: number;
}

/** The COFF string table's base offset, for section names like "/4" (mingw long names). */
export function coffStringTable(t: CoffSymbolTable): number {
  return t.offset + t.count * 18;
}

/** Function and object symbols from a COFF symbol table (mingw images keep one). */
export function readCoffSymbols(ctx: PeContext, t: CoffSymbolTable): SymbolEntry[] {
  const { r, imageBase, sections } = ctx;
  const out: SymbolEntry[] = [];
  r.check(t.offset, 0, "COFF symbol table starts outside the file");
  const count = Math.min(t.count, Math.floor((r.length - t.offset) / 18), MAX_PE_ENTRIES);
  const strBase = coffStringTable(t);
  for (let i = 0; i < count; i++) {
    const o = t.offset + i * 18;
    const secNum = r.i16(o + 12);
    const type = r.u16(o + 14);
    const cls = r.u8(o + 16);
    const aux = r.u8(o + 17);
    const skipAux = () => (i += aux);
    // Keep external (2), static (3) and label (6) symbols in real sections; static symbols with
    // aux records are section definitions, not code or data.
    if (secNum <= 0 || (cls !== 2 && cls !== 3 && cls !== 6) || (cls === 3 && aux > 0)) {
      skipAux();
      continue;
    }
    const sec = sections[secNum - 1];
    const name = r.u32(o) === 0
      ? r.cstring(strBase + r.u32(o + 4), r.length, 1024)
      : r.fixedString(o, 8);
    skipAux();
    if (!sec || !name) continue;
    const isCode = (sec.characteristics & 0x20000020) !== 0;
    out.push({
      name,
      address: imageBase + sec.rva + r.u32(o + 8),
      size: 0,
      kind: (type >> 4) === 2 || (isCode && cls === 2) ? "function" : isCode ? "other" : "object",
      source: "coff",
      global: cls === 2,
    });
  }
  return out;
}
