/** Embedded handlers: searching memory for bytes and text. */
import { RemcpError } from "../../../src/errors.ts";
import { searchBytes, searchText } from "../../../src/protocol/catalog/search.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { parsePattern } from "../../shared/values.ts";
import { type DbAccess, type EmbeddedDb, labelOf, resolve } from "../db.ts";

/** Bytes of a segment searched at a time. */
const WINDOW = 16 << 20;

/** Most hits one search collects (the total is then a lower bound). */
export const MAX_HITS = 100_000;

/** Finds `pattern` (with wildcards) in mapped memory within [start, end). */
export function findPattern(
  d: EmbeddedDb,
  pattern: number[],
  start: number,
  end: number,
  max = MAX_HITS,
  fold = false,
): number[] {
  if (fold) pattern = pattern.map((b) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b));
  if (pattern.every((b) => b === -1)) {
    throw new RemcpError("InvalidArgument", "pattern is only wildcards", { param: "pattern" });
  }
  // Anchor on the longest run of fixed bytes; indexOf over it is native speed.
  let bestAt = 0;
  let bestLen = 0;
  for (let i = 0; i < pattern.length;) {
    if (pattern[i] === -1) {
      i++;
      continue;
    }
    let j = i;
    while (j < pattern.length && pattern[j] !== -1) j++;
    if (j - i > bestLen) {
      bestAt = i;
      bestLen = j - i;
    }
    i = j;
  }
  const anchor = Uint8Array.from(pattern.slice(bestAt, bestAt + bestLen));
  const hits: number[] = [];
  for (const seg of d.image.segments) {
    const lo = Math.max(seg.start, start);
    const hi = Math.min(seg.start + Math.min(seg.fileSize, seg.end - seg.start), end);
    if (hi - lo < pattern.length) continue;
    const found: number[] = [];
    let whole = true;
    // A window at a time (each overlapping the next by the pattern's length less one): a raw
    // blob is read from the file as it is searched, never held whole.
    for (let w = lo; w + pattern.length <= hi && hits.length + found.length < max; w += WINDOW) {
      const raw = d.image.read(w, Math.min(hi, w + WINDOW + pattern.length - 1) - w);
      if (!raw) {
        whole = false;
        break;
      }
      const bytes = fold ? foldAscii(raw) : raw;
      let from = bestAt;
      while (hits.length + found.length < max) {
        const at = indexOf(bytes, anchor, from);
        const s = at - bestAt;
        if (at === -1 || s >= WINDOW) break;
        if (s + pattern.length <= bytes.length && matches(bytes, s, pattern)) found.push(w + s);
        from = at + 1;
      }
    }
    // As when the segment was read at once: one that is not all mapped is not searched.
    if (whole) { for (const f of found) hits.push(f); }
  }
  return hits.sort((a, b) => a - b);
}

function foldAscii(raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    out[i] = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
  }
  return out;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  for (let i = hay.indexOf(first, from); i !== -1; i = hay.indexOf(first, i + 1)) {
    if (i + needle.length > hay.length) return -1;
    let k = 1;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

function matches(bytes: Uint8Array, at: number, pattern: number[]): boolean {
  for (let k = 0; k < pattern.length; k++) {
    const p = pattern[k]!;
    if (p !== -1 && bytes[at + k] !== p) return false;
  }
  return true;
}

/** The [start, end) range of a search. */
export function searchRange(
  d: EmbeddedDb,
  args: { start?: string | number | undefined; end?: string | number | undefined },
) {
  const start = args.start !== undefined ? resolve(d, args.start) : 0;
  const end = args.end !== undefined ? resolve(d, args.end) : Number.MAX_SAFE_INTEGER;
  if (end <= start) {
    throw new RemcpError("InvalidArgument", `end ${hex(end)} is not after start ${hex(start)}`, {
      param: "end",
    });
  }
  return { start, end };
}

function hitItem(d: EmbeddedDb, addr: number, len: number) {
  const sec = d.image.sectionAt(addr);
  const label = labelOf(d, addr);
  const bytes = d.image.readUpTo(addr, Math.min(len, 32));
  return {
    address: hex(addr),
    ...(sec ? { section: sec.name } : {}),
    ...(label ? { function: label } : {}),
    preview: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" "),
  };
}

/** The search tools over `db`. */
export function searchTools(db: DbAccess): ToolImpl[] {
  return [
    impl(searchBytes, (args) => {
      const d = db();
      const pattern = parsePattern(args.pattern);
      const { start, end } = searchRange(d, args);
      const hits = findPattern(d, pattern, start, end);
      const page = pageOf(hits, args, (a) => hitItem(d, a, pattern.length));
      return hits.length >= MAX_HITS
        ? {
          ...page,
          warnings: [{ code: "capped", message: `Stopped at ${MAX_HITS} hits: narrow the range` }],
        }
        : page;
    }, { duringAnalysis: true }),
    impl(searchText, (args) => {
      const d = db();
      const { start, end } = searchRange(d, args);
      const hits: { address: number; encoding: string }[] = [];
      const fold = !args.case_sensitive;
      const ascii = [...new TextEncoder().encode(args.text)];
      for (const a of findPattern(d, ascii, start, end, MAX_HITS, fold)) {
        hits.push({ address: a, encoding: "ascii" });
      }
      const wide = [...args.text].flatMap((c) => {
        const code = c.charCodeAt(0);
        return [code & 0xff, code >> 8];
      });
      for (const a of findPattern(d, wide, start, end, MAX_HITS, fold)) {
        hits.push({ address: a, encoding: "utf16" });
      }
      const unique = [...new Map(hits.map((h) => [`${h.address}:${h.encoding}`, h])).values()]
        .sort((a, b) => a.address - b.address);
      return pageOf(unique, args, (h) => ({
        ...hitItem(d, h.address, Math.min(args.text.length, 32)),
        encoding: h.encoding,
      }));
    }, { duringAnalysis: true }),
  ];
}
