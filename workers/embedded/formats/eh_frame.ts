/**
 * `.eh_frame` / `__eh_frame` and `.eh_frame_hdr` readers: every FDE names one function's code
 * range, which is the cheapest reliable source of function starts in stripped binaries.
 */

import { Cursor } from "./_cursor.ts";
import { type ByteReader, hex, malformed } from "./_reader.ts";
import type { FunctionHint } from "./image.ts";

/** Where an unwind table lies, in the file and in memory. */
export interface FrameTableLocation {
  fileOffset: number;
  /** Virtual address of `fileOffset`. */
  addr: number;
  size: number;
  ptrSize: 4 | 8;
}

const DW_EH_PE_omit = 0xff;

interface Cie {
  fdeEnc: number;
  hasAugData: boolean;
}

/** Upper bound on entries read from one table, whatever its size claims. */
const MAX_ENTRIES = 2_000_000;

/**
 * Reads a pointer in DWARF EH encoding `enc` at the cursor. `fieldAddr` is the field's virtual
 * address (for pc-relative values); `dataBase` is the base for data-relative values.
 */
function readEncoded(
  c: Cursor,
  enc: number,
  fieldAddr: number,
  ptrSize: 4 | 8,
  dataBase: number,
): number | undefined {
  if (enc === DW_EH_PE_omit) return undefined;
  let v: number;
  switch (enc & 0x0f) {
    case 0x00:
      v = ptrSize === 8 ? c.u64() : c.u32();
      break;
    case 0x01:
      v = c.uleb();
      break;
    case 0x02:
      v = c.u16();
      break;
    case 0x03:
      v = c.u32();
      break;
    case 0x04:
      v = c.u64();
      break;
    case 0x09:
      v = c.sleb();
      break;
    case 0x0a: {
      const u = c.u16();
      v = u >= 0x8000 ? u - 0x10000 : u;
      break;
    }
    case 0x0b:
      v = c.i32();
      break;
    case 0x0c:
      v = c.i64();
      break;
    default:
      throw malformed(`Unknown pointer encoding ${hex(enc)}`, c.pos);
  }
  switch (enc & 0x70) {
    case 0x10:
      v += fieldAddr;
      break;
    case 0x30:
      v += dataBase;
      break;
  }
  // Wrap into the pointer width: pc-relative sums may overflow 32-bit address spaces.
  if (ptrSize === 4) v = v >>> 0;
  return v;
}

function parseCie(c: Cursor, end: number, loc: FrameTableLocation, base: number): Cie {
  const version = c.u8();
  const aug = c.cstring();
  if (aug.includes("eh")) c.skip(loc.ptrSize);
  c.uleb(); // code alignment
  c.sleb(); // data alignment
  if (version === 1) c.u8();
  else c.uleb(); // return address register
  let fdeEnc = 0;
  const hasAugData = aug.startsWith("z");
  if (hasAugData) {
    const len = c.uleb();
    const dataEnd = c.pos + len;
    for (let i = 1; i < aug.length && c.pos < dataEnd; i++) {
      const ch = aug[i];
      if (ch === "R") fdeEnc = c.u8();
      else if (ch === "L") c.u8();
      else if (ch === "P") {
        const penc = c.u8();
        const fieldAddr = loc.addr + (c.pos - loc.fileOffset);
        readEncoded(c, penc & 0x7f, fieldAddr, loc.ptrSize, base);
      } else if (ch === "S" || ch === "B" || ch === "G") continue;
      else break;
    }
    if (dataEnd > end) throw malformed("CIE augmentation data runs past the entry", c.pos);
  }
  return { fdeEnc, hasAugData };
}

/**
 * Function ranges from the FDEs of an `.eh_frame` table. A malformed entry ends the walk: what was
 * read before it is kept and a warning is appended.
 */
export function parseEhFrame(
  r: ByteReader,
  loc: FrameTableLocation,
  warnings: string[],
  dataBase = 0,
): FunctionHint[] {
  const hints: FunctionHint[] = [];
  const cies = new Map<number, Cie | null>();
  const tableEnd = Math.min(loc.fileOffset + loc.size, r.length);
  let pos = loc.fileOffset;
  let count = 0;
  try {
    while (pos + 4 <= tableEnd && count++ < MAX_ENTRIES) {
      const c = new Cursor(r, pos, tableEnd);
      let len = c.u32();
      if (len === 0) break; // terminator
      if (len === 0xffffffff) len = c.u64();
      const entryStart = c.pos;
      const entryEnd = entryStart + len;
      if (entryEnd > tableEnd) throw malformed("Entry length runs past the table", pos);
      const ec = new Cursor(r, entryStart, entryEnd);
      const id = ec.u32();
      if (id !== 0) {
        const ciePos = entryStart - id;
        let cie = cies.get(ciePos);
        if (cie === undefined) {
          cie = null;
          if (ciePos >= loc.fileOffset && ciePos + 8 <= tableEnd) {
            const cc = new Cursor(r, ciePos, tableEnd);
            let clen = cc.u32();
            if (clen === 0xffffffff) clen = cc.u64();
            const cend = Math.min(cc.pos + clen, tableEnd);
            const inner = new Cursor(r, cc.pos, cend);
            if (inner.u32() === 0) cie = parseCie(inner, cend, loc, dataBase);
          }
          cies.set(ciePos, cie);
        }
        if (cie) {
          const fieldAddr = loc.addr + (ec.pos - loc.fileOffset);
          const start = readEncoded(ec, cie.fdeEnc & 0x7f, fieldAddr, loc.ptrSize, dataBase);
          const range = readEncoded(ec, cie.fdeEnc & 0x0f, 0, loc.ptrSize, 0);
          if (start !== undefined && range !== undefined && start > 0 && range > 0) {
            hints.push({ start, end: start + range, source: "eh_frame" });
          }
        }
      }
      pos = entryEnd;
    }
  } catch (err) {
    warnings.push(
      `eh_frame: stopped at entry offset ${hex(pos)}: ${
        err instanceof Error ? err.message : String(err)
      }`,
    );
  }
  return hints;
}

/** What `.eh_frame_hdr` says: where `.eh_frame` is and the function starts of its search table. */
export interface EhFrameHdr {
  ehFrameAddr?: number;
  starts: number[];
}

/** Parses `.eh_frame_hdr` at `loc` (version 1). */
export function parseEhFrameHdr(r: ByteReader, loc: FrameTableLocation): EhFrameHdr {
  const end = Math.min(loc.fileOffset + loc.size, r.length);
  const c = new Cursor(r, loc.fileOffset, end);
  const version = c.u8();
  if (version !== 1) throw malformed(`Unknown .eh_frame_hdr version ${version}`, loc.fileOffset);
  const ptrEnc = c.u8();
  const countEnc = c.u8();
  const tableEnc = c.u8();
  const at = () => loc.addr + (c.pos - loc.fileOffset);
  const ehFrameAddr = readEncoded(c, ptrEnc, at(), loc.ptrSize, loc.addr);
  const starts: number[] = [];
  if (countEnc !== DW_EH_PE_omit && tableEnc !== DW_EH_PE_omit) {
    const count = readEncoded(c, countEnc, at(), loc.ptrSize, loc.addr) ?? 0;
    const n = Math.min(count, MAX_ENTRIES, Math.floor((end - c.pos) / 8));
    for (let i = 0; i < n; i++) {
      const s = readEncoded(c, tableEnc, at(), loc.ptrSize, loc.addr);
      readEncoded(c, tableEnc, at(), loc.ptrSize, loc.addr);
      if (s !== undefined && s > 0) starts.push(s);
    }
  }
  return ehFrameAddr === undefined ? { starts } : { ehFrameAddr, starts };
}
