/** The PE export directory: named, ordinal-only and forwarded exports. */

import { ordinalName } from "./_pe_imports.ts";
import { DIR_EXPORT, MAX_PE_ENTRIES, offOrThrow, type PeContext } from "./_pe_types.ts";
import type { ExportEntry } from "./image.ts";

/** The exports and the module's own name from the export directory. */
export function readPeExports(ctx: PeContext): { dllName?: string; exports: ExportEntry[] } {
  const exports: ExportEntry[] = [];
  const dir = ctx.dirs[DIR_EXPORT];
  if (!dir || dir.rva === 0) return { exports };
  const { r, imageBase } = ctx;
  const o = offOrThrow(ctx, dir.rva, "Export directory");
  r.check(o, 40, "Export directory runs past the end of the file");
  const nameOff = ctx.rvaToOff(r.u32(o + 12));
  const ordBase = r.u32(o + 16);
  const nFuncs = Math.min(r.u32(o + 20), MAX_PE_ENTRIES);
  const nNames = Math.min(r.u32(o + 24), MAX_PE_ENTRIES);
  const funcs = offOrThrow(ctx, r.u32(o + 28), "Export address table");
  const names = nNames ? offOrThrow(ctx, r.u32(o + 32), "Export name table") : 0;
  const ords = nNames ? offOrThrow(ctx, r.u32(o + 36), "Export ordinal table") : 0;
  // Bound the counts by what the file can hold, so a hostile count allocates nothing large.
  const funcCount = Math.min(nFuncs, Math.floor((r.length - funcs) / 4));
  const nameCount = Math.min(
    nNames,
    Math.floor((r.length - names) / 4),
    Math.floor((r.length - ords) / 2),
  );
  const nameOf = new Map<number, string>();
  for (let i = 0; i < nameCount; i++) {
    const idx = r.u16(ords + i * 2);
    const off = ctx.rvaToOff(r.u32(names + i * 4));
    if (off !== undefined && !nameOf.has(idx)) nameOf.set(idx, r.cstring(off, r.length, 1024));
  }
  for (let i = 0; i < funcCount; i++) {
    const rva = r.u32(funcs + i * 4);
    if (rva === 0) continue;
    const ordinal = ordBase + i;
    const e: ExportEntry = {
      name: nameOf.get(i) ?? ordinalName(ordinal),
      address: imageBase + rva,
      ordinal,
    };
    // An RVA inside the export directory is a forwarder string ("DLL.Name" or "DLL.#12").
    if (rva >= dir.rva && rva < dir.rva + dir.size) {
      const fo = ctx.rvaToOff(rva);
      if (fo !== undefined) e.forwarder = r.cstring(fo, r.length, 1024);
    }
    exports.push(e);
  }
  const result: { dllName?: string; exports: ExportEntry[] } = { exports };
  if (nameOff !== undefined) result.dllName = r.cstring(nameOff, r.length, 512);
  return result;
}
