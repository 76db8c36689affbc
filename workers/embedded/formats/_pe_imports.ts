/** PE import tables: the normal import directory and the delay-load directory. */

import {
  DIR_DELAY_IMPORT,
  DIR_IMPORT,
  MAX_PE_ENTRIES,
  offOrThrow,
  type PeContext,
} from "./_pe_types.ts";
import type { ImportEntry } from "./image.ts";

const MAX_DLLS = 4096;
const MAX_THUNKS_PER_DLL = 65536;

/** Name used for an import or export known only by ordinal. */
export function ordinalName(ordinal: number): string {
  return `Ordinal_${ordinal}`;
}

/**
 * Walks one import name table (`ilt`) and its address table (`iat`), both RVAs, pushing one
 * entry per thunk.
 */
function walkThunks(
  ctx: PeContext,
  dll: string,
  ilt: number,
  iat: number,
  delayLoad: boolean,
  out: ImportEntry[],
): void {
  const { r, ptrSize, imageBase } = ctx;
  const iltOff = offOrThrow(ctx, ilt, `Import name table of ${dll}`);
  for (let i = 0; i < MAX_THUNKS_PER_DLL && out.length < MAX_PE_ENTRIES; i++) {
    const o = iltOff + i * ptrSize;
    if (!r.has(o, ptrSize)) break;
    const lo = r.u32(o);
    const hi = ptrSize === 8 ? r.u32(o + 4) : 0;
    if (lo === 0 && hi === 0) break;
    const byOrdinal = ptrSize === 8 ? (hi & 0x80000000) !== 0 : (lo & 0x80000000) !== 0;
    const slot = imageBase + iat + i * ptrSize;
    const entry: ImportEntry = { name: "", library: dll, address: slot, slot };
    if (byOrdinal) {
      entry.ordinal = lo & 0xffff;
      entry.name = ordinalName(entry.ordinal);
    } else {
      const hintOff = ctx.rvaToOff(lo & 0x7fffffff);
      entry.name = hintOff === undefined ? `${dll}_${i}` : r.cstring(hintOff + 2, r.length, 1024);
    }
    if (delayLoad) entry.delayLoad = true;
    out.push(entry);
  }
}

/** Imports from the import directory. */
export function readPeImports(ctx: PeContext): ImportEntry[] {
  const out: ImportEntry[] = [];
  const dir = ctx.dirs[DIR_IMPORT];
  if (!dir || dir.rva === 0) return out;
  const { r } = ctx;
  const base = offOrThrow(ctx, dir.rva, "Import directory");
  for (let d = 0; d < MAX_DLLS; d++) {
    const o = base + d * 20;
    r.check(o, 20, "Import descriptor runs past the end of the file");
    const oft = r.u32(o);
    const nameRva = r.u32(o + 12);
    const ft = r.u32(o + 16);
    if (oft === 0 && nameRva === 0 && ft === 0) break;
    const nameOff = ctx.rvaToOff(nameRva);
    const dll = nameOff === undefined ? `dll${d}` : r.cstring(nameOff, r.length, 512);
    walkThunks(ctx, dll, oft || ft, ft, false, out);
  }
  return out;
}

/** Imports from the delay-load directory. */
export function readPeDelayImports(ctx: PeContext): ImportEntry[] {
  const out: ImportEntry[] = [];
  const dir = ctx.dirs[DIR_DELAY_IMPORT];
  if (!dir || dir.rva === 0) return out;
  const { r, imageBase } = ctx;
  const base = offOrThrow(ctx, dir.rva, "Delay-load directory");
  for (let d = 0; d < MAX_DLLS; d++) {
    const o = base + d * 32;
    r.check(o, 32, "Delay-load descriptor runs past the end of the file");
    const attrs = r.u32(o);
    const nameRaw = r.u32(o + 4);
    const iatRaw = r.u32(o + 12);
    const intRaw = r.u32(o + 16);
    if (nameRaw === 0 && iatRaw === 0 && intRaw === 0) break;
    // Attribute bit 0 clear: old (VC6) descriptors hold VAs, not RVAs.
    const rva = (v: number) => (attrs & 1) ? v : v - imageBase;
    const nameOff = ctx.rvaToOff(rva(nameRaw));
    const dll = nameOff === undefined ? `dll${d}` : r.cstring(nameOff, r.length, 512);
    walkThunks(ctx, dll, rva(intRaw), rva(iatRaw), true, out);
  }
  return out;
}
