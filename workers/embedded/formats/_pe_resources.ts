/** The PE resource tree, listed as (type, name, language, size) leaves. */

import { DIR_RESOURCE, offOrThrow, type PeContext } from "./_pe_types.ts";

/** One resource leaf. */
export interface PeResource {
  type: string;
  name: string;
  lang: number;
  size: number;
  rva: number;
}

const TYPE_NAMES: Record<number, string> = {
  1: "CURSOR",
  2: "BITMAP",
  3: "ICON",
  4: "MENU",
  5: "DIALOG",
  6: "STRING",
  7: "FONTDIR",
  8: "FONT",
  9: "ACCELERATOR",
  10: "RCDATA",
  11: "MESSAGETABLE",
  12: "GROUP_CURSOR",
  14: "GROUP_ICON",
  16: "VERSION",
  17: "DLGINCLUDE",
  19: "PLUGPLAY",
  20: "VXD",
  21: "ANICURSOR",
  22: "ANIICON",
  23: "HTML",
  24: "MANIFEST",
};

const MAX_NODES = 10_000;
const MAX_LEAVES = 5_000;
/** Type / name / language; anything deeper is not a standard tree and is not followed. */
const MAX_DEPTH = 3;

/** Lists the resource leaves; bounded in depth and node count, and immune to cycles. */
export function readPeResources(ctx: PeContext): PeResource[] {
  const dir = ctx.dirs[DIR_RESOURCE];
  if (!dir || dir.rva === 0) return [];
  const { r } = ctx;
  const root = offOrThrow(ctx, dir.rva, "Resource directory");
  const out: PeResource[] = [];
  const visited = new Set<number>();
  let nodes = 0;

  const entryName = (raw: number): string => {
    if (raw & 0x80000000) {
      const so = root + (raw & 0x7fffffff);
      const len = Math.min(r.u16(so), 256);
      r.check(so + 2, len * 2, "Resource name runs past the end of the file");
      let s = "";
      for (let i = 0; i < len; i++) s += String.fromCharCode(r.u16(so + 2 + i * 2));
      return s;
    }
    return String(raw);
  };

  const walk = (off: number, depth: number, path: string[], ids: number[]): void => {
    if (visited.has(off) || nodes++ > MAX_NODES || out.length >= MAX_LEAVES) return;
    visited.add(off);
    r.check(off, 16, "Resource directory runs past the end of the file");
    const count = r.u16(off + 12) + r.u16(off + 14);
    for (let i = 0; i < count && out.length < MAX_LEAVES; i++) {
      const e = off + 16 + i * 8;
      const nameRaw = r.u32(e);
      const target = r.u32(e + 4);
      const label = entryName(nameRaw);
      const id = nameRaw & 0x80000000 ? -1 : nameRaw;
      if (target & 0x80000000) {
        if (depth + 1 < MAX_DEPTH) {
          walk(root + (target & 0x7fffffff), depth + 1, [...path, label], [...ids, id]);
        }
        continue;
      }
      const leaf = root + target;
      r.check(leaf, 16, "Resource data entry runs past the end of the file");
      const allIds = [...ids, id];
      const allPath = [...path, label];
      const typeId = allIds[0] ?? -1;
      out.push({
        type: TYPE_NAMES[typeId] ?? allPath[0] ?? "",
        name: allPath[1] ?? "",
        lang: allIds[2] !== undefined && allIds[2] >= 0 ? allIds[2] : 0,
        size: r.u32(leaf + 4),
        rva: r.u32(leaf),
      });
    }
  };
  walk(root, 0, [], []);
  return out;
}
