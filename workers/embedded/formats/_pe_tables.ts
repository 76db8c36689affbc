/** PE tables that feed analysis: base relocations, `.pdata` function ranges, TLS callbacks. */

import {
  DIR_BASERELOC,
  DIR_EXCEPTION,
  DIR_TLS,
  IMAGE_FILE_MACHINE_AMD64,
  IMAGE_FILE_MACHINE_ARM64,
  IMAGE_FILE_MACHINE_ARMNT,
  MAX_PE_ENTRIES,
  offOrThrow,
  type PeContext,
} from "./_pe_types.ts";
import type { EntryPoint, FunctionHint, Relocation } from "./image.ts";

const IMAGE_REL_BASED_HIGHLOW = 3;
const IMAGE_REL_BASED_HIGHADJ = 4;
const IMAGE_REL_BASED_DIR64 = 10;

/** Base relocations; HIGHLOW/DIR64 entries carry the pointer they fix up as `target`. */
export function readPeRelocations(ctx: PeContext): Relocation[] {
  const out: Relocation[] = [];
  const dir = ctx.dirs[DIR_BASERELOC];
  if (!dir || dir.rva === 0 || dir.size === 0) return out;
  const { r, imageBase } = ctx;
  const start = offOrThrow(ctx, dir.rva, "Base relocation directory");
  const end = Math.min(start + dir.size, r.length);
  let p = start;
  while (p + 8 <= end && out.length < MAX_PE_ENTRIES) {
    const page = r.u32(p);
    const blockSize = r.u32(p + 4);
    if (blockSize < 8) break;
    const n = Math.floor((Math.min(p + blockSize, end) - p - 8) / 2);
    for (let i = 0; i < n; i++) {
      const e = r.u16(p + 8 + i * 2);
      const type = e >>> 12;
      if (type === 0) continue;
      if (type === IMAGE_REL_BASED_HIGHADJ) {
        i++; // the next entry is this one's parameter
        continue;
      }
      const address = imageBase + page + (e & 0xfff);
      const rel: Relocation = { address, type };
      const size = type === IMAGE_REL_BASED_DIR64 ? 8 : type === IMAGE_REL_BASED_HIGHLOW ? 4 : 0;
      if (size) {
        const off = ctx.rvaToOff(page + (e & 0xfff));
        if (off !== undefined && r.has(off, size)) {
          const v = size === 8 ? r.u64(off) : r.u32(off);
          if (Number.isSafeInteger(v)) rel.target = v;
        }
      }
      out.push(rel);
    }
    p += blockSize;
  }
  return out;
}

/** Function ranges from the exception directory (x64, ARM64 and ARMv7 `.pdata`). */
export function readPeFunctionTable(ctx: PeContext): FunctionHint[] {
  const out: FunctionHint[] = [];
  const dir = ctx.dirs[DIR_EXCEPTION];
  if (!dir || dir.rva === 0 || dir.size === 0) return out;
  const { r, imageBase, machine } = ctx;
  const start = offOrThrow(ctx, dir.rva, "Exception directory");
  const avail = Math.min(dir.size, r.length - start);
  if (machine === IMAGE_FILE_MACHINE_AMD64) {
    const n = Math.min(Math.floor(avail / 12), MAX_PE_ENTRIES);
    for (let i = 0; i < n; i++) {
      const b = r.u32(start + i * 12);
      const e = r.u32(start + i * 12 + 4);
      if (b !== 0 && e > b) out.push({ start: imageBase + b, end: imageBase + e, source: "pdata" });
    }
  } else if (machine === IMAGE_FILE_MACHINE_ARM64 || machine === IMAGE_FILE_MACHINE_ARMNT) {
    // Lengths count 4-byte (ARM64) or 2-byte (Thumb-2) units, either packed in the entry or in
    // the first word of the .xdata record.
    const unit = machine === IMAGE_FILE_MACHINE_ARM64 ? 4 : 2;
    const n = Math.min(Math.floor(avail / 8), MAX_PE_ENTRIES);
    for (let i = 0; i < n; i++) {
      let b = r.u32(start + i * 8);
      const u = r.u32(start + i * 8 + 4);
      if (b === 0) continue;
      if (unit === 2) b -= b % 2;
      let len: number | undefined;
      if ((u & 3) !== 0) len = ((u >>> 2) & 0x7ff) * unit;
      else {
        const xo = ctx.rvaToOff(u);
        if (xo !== undefined && r.has(xo, 4)) len = (r.u32(xo) & 0x3ffff) * unit;
      }
      const hint: FunctionHint = { start: imageBase + b, source: "pdata" };
      if (len) hint.end = hint.start + len;
      out.push(hint);
    }
  }
  return out;
}

/** TLS callbacks as entry points (they run before the entry point). */
export function readPeTlsCallbacks(ctx: PeContext): EntryPoint[] {
  const out: EntryPoint[] = [];
  const dir = ctx.dirs[DIR_TLS];
  if (!dir || dir.rva === 0) return out;
  const { r, ptrSize, imageBase } = ctx;
  const o = offOrThrow(ctx, dir.rva, "TLS directory");
  const cbVa = r.word(o + 3 * ptrSize, ptrSize);
  if (cbVa === 0) return out;
  const cbOff = offOrThrow(ctx, cbVa - imageBase, "TLS callback array");
  for (let i = 0; i < 256 && r.has(cbOff + i * ptrSize, ptrSize); i++) {
    const va = r.word(cbOff + i * ptrSize, ptrSize);
    if (va === 0) break;
    if (Number.isSafeInteger(va)) out.push({ name: `tls_callback_${i}`, address: va, kind: "tls" });
  }
  return out;
}
