/**
 * String scanning: NUL-terminated ASCII/UTF-8 and UTF-16LE runs in data sections, and the
 * string (of any length) at an address code refers to.
 */

import type { BinaryImage, Section } from "../formats/image.ts";
import type { StringInfo } from "./types.ts";

/** Options of {@link scanStrings}. */
export interface StringScanOptions {
  /** Shortest string reported, in characters; default 4. */
  minLength?: number;
  /** Scan code sections too; default false. */
  includeCode?: boolean;
  /** Stop and return when more strings than this were found; default unlimited. */
  limit?: number;
  /** Called every megabyte scanned; throws to stop (the analysis time budget). */
  check?: () => void;
}

// Tables, not text: their bytes would be reported as thousands of symbol names.
const SKIPPED =
  /^(\.dynstr|\.dynsym|\.symtab|\.strtab|\.shstrtab|\.gnu|\.rela?\.|\.rela?$|\.eh_frame|\.note|\.hash|\.dynamic|\.got|\.init_array|\.fini_array|\.pdata|\.xdata|\.reloc|__LINKEDIT)/;

/** Sections {@link scanStrings} reads. */
export function stringSections(image: BinaryImage, includeCode: boolean): Section[] {
  return image.sections.filter((s) =>
    s.end > s.start && s.fileSize > 0 && !SKIPPED.test(s.name) &&
    (s.kind === "rodata" || s.kind === "data" || (includeCode && s.kind === "code"))
  );
}

function printable(c: number): boolean {
  return (c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13;
}

/** Length of a valid UTF-8 multi-byte sequence at `i`, or 0. */
function utf8Seq(b: Uint8Array, i: number): number {
  const c = b[i]!;
  const n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n === 0 || c >= 0xf5) return 0;
  for (let k = 1; k < n; k++) if (((b[i + k] ?? 0) & 0xc0) !== 0x80) return 0;
  return n;
}

const utf8 = new TextDecoder("utf-8");
const utf16 = new TextDecoder("utf-16le");

/** Every string in the image's data sections, sorted by address. */
export function scanStrings(image: BinaryImage, options: StringScanOptions = {}): StringInfo[] {
  const min = options.minLength ?? 4;
  const limit = options.limit ?? Infinity;
  const out: StringInfo[] = [];
  for (const sec of stringSections(image, options.includeCode === true)) {
    const bytes = image.read(sec.start, Math.min(sec.end, sec.start + sec.fileSize) - sec.start);
    if (bytes === undefined) continue;
    scanSection(bytes, sec, min, out, options.check);
    if (out.length >= limit) break;
  }
  out.sort((a, b) => a.address - b.address);
  return out.length > limit ? out.slice(0, limit) : out;
}

function scanSection(
  b: Uint8Array,
  sec: Section,
  min: number,
  out: StringInfo[],
  check: (() => void) | undefined,
): void {
  const n = b.length;
  let i = 0;
  let nextCheck = 1 << 20;
  // UTF-16LE first pass marks its bytes so the 8-bit pass does not report each letter.
  const taken = new Uint8Array(n);
  for (let s = 0; s + 1 < n; s += 2) {
    if (s >= nextCheck) {
      check?.();
      nextCheck = s + (1 << 20);
    }
    if (!(printable(b[s]!) && b[s + 1] === 0)) continue;
    let e = s;
    while (e + 1 < n && printable(b[e]!) && b[e + 1] === 0) e += 2;
    const chars = (e - s) / 2;
    if (chars >= min && e + 1 < n && b[e] === 0 && b[e + 1] === 0) {
      out.push({
        address: sec.start + s,
        size: e - s,
        encoding: "utf16le",
        text: utf16.decode(b.subarray(s, e)),
        section: sec.name,
      });
      taken.fill(1, s, e + 2);
    }
    s = e;
  }
  nextCheck = 1 << 20;
  while (i < n) {
    if (i >= nextCheck) {
      check?.();
      nextCheck = i + (1 << 20);
    }
    if (taken[i] === 1 || b[i] === 0) {
      i++;
      continue;
    }
    let e = i;
    let multi = false;
    let chars = 0;
    while (e < n && taken[e] !== 1) {
      const c = b[e]!;
      if (printable(c)) e++;
      else {
        const k = c >= 0x80 ? utf8Seq(b, e) : 0;
        if (k === 0) break;
        multi = true;
        e += k;
      }
      chars++;
    }
    if (chars >= min && e < n && b[e] === 0) {
      out.push({
        address: sec.start + i,
        size: e - i,
        encoding: multi ? "utf8" : "ascii",
        text: utf8.decode(b.subarray(i, e)),
        section: sec.name,
      });
    }
    i = e + 1;
  }
}

/**
 * The NUL-terminated string at `addr` of at least `min` characters (ASCII/UTF-8, then UTF-16LE),
 * or undefined. Used for strings code refers to, which may be shorter than the scan minimum.
 */
export function stringAt(image: BinaryImage, addr: number, min = 1): StringInfo | undefined {
  const b = image.readUpTo(addr, 1024);
  const section = image.sectionAt(addr)?.name ?? "";
  let e = 0;
  let multi = false;
  let chars = 0;
  while (e < b.length && b[e] !== 0) {
    const c = b[e]!;
    if (printable(c)) e++;
    else {
      const k = c >= 0x80 ? utf8Seq(b, e) : 0;
      if (k === 0) break;
      multi = true;
      e += k;
    }
    chars++;
  }
  if (chars >= min && e < b.length && b[e] === 0) {
    return {
      address: addr,
      size: e,
      encoding: multi ? "utf8" : "ascii",
      text: utf8.decode(b.subarray(0, e)),
      section,
    };
  }
  let w = 0;
  while (w + 1 < b.length && printable(b[w]!) && b[w + 1] === 0) w += 2;
  if (w / 2 >= Math.max(min, 2) && w + 1 < b.length && b[w] === 0 && b[w + 1] === 0) {
    return {
      address: addr,
      size: w,
      encoding: "utf16le",
      text: utf16.decode(b.subarray(0, w)),
      section,
    };
  }
  return undefined;
}
