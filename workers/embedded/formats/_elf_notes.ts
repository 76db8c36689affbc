/** ELF notes: the GNU build-id, ABI tag and Go build id. */

import type { ByteReader } from "./_reader.ts";

/** Facts found in notes. */
export interface ElfNotes {
  buildId?: string;
  goBuildId?: string;
  abiTag?: string;
}

const MAX_NOTES = 1000;
const ABI_OS = ["Linux", "GNU", "Solaris", "FreeBSD"];

function toHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** Reads the notes in [offset, offset+size) into `out`; `align` is 4 or 8 per the segment. */
export function readElfNotes(
  r: ByteReader,
  offset: number,
  size: number,
  align: number,
  out: ElfNotes,
): void {
  const end = Math.min(offset + size, r.length);
  const al = align === 8 ? 8 : 4;
  const up = (n: number) => Math.ceil(n / al) * al;
  let p = offset;
  for (let i = 0; i < MAX_NOTES && p + 12 <= end; i++) {
    const namesz = r.u32(p);
    const descsz = r.u32(p + 4);
    const type = r.u32(p + 8);
    const nameOff = p + 12;
    const descOff = nameOff + up(namesz);
    if (descOff + descsz > end) break;
    const name = r.cstring(nameOff, nameOff + namesz);
    if (name === "GNU" && type === 3) out.buildId = toHex(r.slice(descOff, descsz));
    if (name === "Go" && type === 4) out.goBuildId = r.cstring(descOff, descOff + descsz);
    if (name === "GNU" && type === 1 && descsz >= 16) {
      const os = r.u32(descOff);
      out.abiTag = `${ABI_OS[os] ?? `os${os}`} ${r.u32(descOff + 4)}.${r.u32(descOff + 8)}.${
        r.u32(descOff + 12)
      }`;
    }
    p = descOff + up(descsz);
  }
}
