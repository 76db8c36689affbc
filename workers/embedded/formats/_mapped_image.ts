/**
 * Builds a {@link BinaryImage} from what a parser found: the parser supplies tables, this file
 * supplies the virtual-memory view (reads, address/offset translation, lookups) shared by all
 * formats.
 */

import type { BinaryImage, Section, Segment } from "./image.ts";
import { asSource, type ByteSource, mergeRanges } from "./_source.ts";
import { lastAtOrBefore } from "./_sorted.ts";

/** Everything of a {@link BinaryImage} except its methods, plus what the methods need. */
export type ImageParts =
  & Omit<
    BinaryImage,
    | "read"
    | "readUpTo"
    | "readInto"
    | "isMapped"
    | "addrToOffset"
    | "offsetToAddr"
    | "sectionAt"
    | "segmentAt"
    | "isThumb"
  >
  & {
    /**
     * Ranges that back virtual memory; defaults to `segments`. A parser passes its own list when
     * some segments (Mach-O `__PAGEZERO`) must not read as memory.
     */
    mapping?: Segment[];
    /** Per-address Thumb answer for ARM images. */
    isThumb?: (addr: number) => boolean;
    /**
     * Mapped ranges whose bytes are read from the source when asked instead of held: the
     * analysis reads them seldom or never (a raw blob is scanned once, debug sections never),
     * so holding them would cost their size for nothing.
     */
    onDemand?: (s: Segment) => boolean;
  };

/** Index of the last element whose `start` is ≤ addr, or -1. */
function lastStartAtOrBefore(list: readonly { start: number }[], addr: number): number {
  return lastAtOrBefore(list, addr, (s) => s.start);
}

/** How far back a lookup walks past the binary-search hit, to find ranges that overlap. */
const OVERLAP_WALK = 16;

/**
 * A mapped range and its file-backed bytes (`fileSize` of them): held, or read from the source
 * when asked (`data` undefined).
 */
type Region = Segment & { data: Uint8Array | undefined };

/**
 * Reads the file bytes behind `ranges` (clamped to the file), each byte once however many
 * ranges share it, and returns each range's bytes.
 */
function loadRanges(
  source: ByteSource,
  ranges: readonly { fileOffset: number; fileSize: number }[],
): Uint8Array[] {
  const blocks = mergeRanges(
    ranges.map((r) => ({ offset: r.fileOffset, size: r.fileSize })),
    source.length,
  ).map((m) => ({ start: m.offset, bytes: source.read(m.offset, m.size) }));
  return ranges.map((r) => {
    if (r.fileSize === 0) return new Uint8Array(0);
    const b = blocks[lastStartAtOrBefore(blocks, r.fileOffset)]!;
    const at = r.fileOffset - b.start;
    return b.bytes.subarray(at, at + r.fileSize);
  });
}

/**
 * Makes a {@link BinaryImage} whose reads come from `input` (the whole file; offsets in `parts`
 * are absolute file offsets). The mapped bytes are read here, once: the image keeps them and
 * nothing else of the file, except ranges `parts.onDemand` names, which it reads from `input`
 * whenever they are asked for (so `input` must stay readable while the image is used).
 */
export function makeImage(input: Uint8Array | ByteSource, parts: ImageParts): BinaryImage {
  const source = asSource(input);
  const { mapping: mapList, isThumb, onDemand, ...rest } = parts;
  // Clamp file extents to the bytes we have, so a truncated file reads zeros instead of throwing.
  const clamped: Segment[] = (mapList ?? parts.segments)
    .filter((s) => s.end > s.start)
    .map((s) => {
      const off = Math.min(Math.max(0, s.fileOffset), source.length);
      const size = Math.max(0, Math.min(s.fileSize, s.end - s.start, source.length - off));
      return { ...s, fileOffset: off, fileSize: size };
    })
    .sort((a, b) => a.start - b.start);
  const lazy = clamped.map((s) => onDemand?.(s) === true);
  const heldList = clamped.filter((_, i) => !lazy[i]);
  // Said before reading: a source with a limit on what it holds refuses here, not after.
  source.keep(heldList.map((s) => ({ offset: s.fileOffset, size: s.fileSize })));
  const data = loadRanges(source, heldList);
  let held = 0;
  const regions: Region[] = clamped.map((s, i) => ({
    ...s,
    data: lazy[i] ? undefined : data[held++],
  }));

  /** `n` file-backed bytes of `r` from `rel` on: a view of held bytes, or read from the source. */
  function bytesOf(r: Region, rel: number, n: number): Uint8Array {
    return r.data ? r.data.subarray(rel, rel + n) : source.read(r.fileOffset + rel, n);
  }
  const byOffset = regions.filter((s) => s.fileSize > 0).sort((a, b) =>
    a.fileOffset - b.fileOffset
  );
  const lookupSections = parts.sections
    .filter((s) => s.end > s.start && !s.name.startsWith(".tbss"))
    .sort((a, b) => a.start - b.start);
  const lookupSegments = [...parts.segments].filter((s) => s.end > s.start).sort((a, b) =>
    a.start - b.start
  );

  function find<T extends { start: number; end: number }>(list: T[], addr: number): T | undefined {
    const i = lastStartAtOrBefore(list, addr);
    for (let j = i; j >= 0 && j > i - OVERLAP_WALK; j--) {
      const s = list[j]!;
      if (addr >= s.start && addr < s.end) return s;
    }
    return undefined;
  }

  /** Copies `out.length` file-backed bytes of `r` from `rel` on into `out`. */
  function copyOf(r: Region, rel: number, out: Uint8Array): void {
    if (r.data) out.set(r.data.subarray(rel, rel + out.length));
    else source.readInto(r.fileOffset + rel, out);
  }

  /** Copies the mapped run at [addr, addr+len) into `out`; returns how many bytes it mapped. */
  function fill(addr: number, len: number, out: Uint8Array | undefined): number {
    let done = 0;
    while (done < len) {
      const a = addr + done;
      const r = find(regions, a);
      if (!r) break;
      const n = Math.min(len - done, r.end - a);
      if (out) {
        const rel = a - r.start;
        const fileN = Math.max(0, Math.min(n, r.fileSize - rel));
        if (fileN > 0) copyOf(r, rel, out.subarray(done, done + fileN));
        // Bytes past the file-backed part stay zero (bss); `out` starts zeroed.
      }
      done += n;
    }
    return done;
  }

  function read(addr: number, len: number): Uint8Array | undefined {
    if (!Number.isSafeInteger(addr) || !Number.isSafeInteger(len) || len < 0) return undefined;
    if (len === 0) return isMapped(addr) ? new Uint8Array(0) : undefined;
    const r = find(regions, addr);
    if (!r) return undefined;
    const rel = addr - r.start;
    // Fast path: fully file-backed inside one region, no copy of held bytes.
    if (addr + len <= r.end && rel + len <= r.fileSize) return bytesOf(r, rel, len);
    if (fill(addr, len, undefined) < len) return undefined;
    const out = new Uint8Array(len);
    fill(addr, len, out);
    return out;
  }

  function readUpTo(addr: number, max: number): Uint8Array {
    if (!Number.isSafeInteger(addr) || !(max > 0)) return new Uint8Array(0);
    const n = fill(addr, Math.floor(max), undefined);
    return n === 0 ? new Uint8Array(0) : (read(addr, n) ?? new Uint8Array(0));
  }

  function readInto(addr: number, out: Uint8Array): number {
    if (!Number.isSafeInteger(addr)) return 0;
    const n = fill(addr, out.length, undefined);
    // `fill` leaves bytes past the file-backed part (bss) as they are: a reused buffer is not zero.
    out.fill(0, 0, n);
    fill(addr, n, out);
    return n;
  }

  function isMapped(addr: number): boolean {
    return find(regions, addr) !== undefined;
  }

  function addrToOffset(addr: number): number | undefined {
    const r = find(regions, addr);
    if (!r) return undefined;
    const rel = addr - r.start;
    return rel < r.fileSize ? r.fileOffset + rel : undefined;
  }

  function offsetToAddr(offset: number): number | undefined {
    for (const r of byOffset) {
      if (r.fileOffset > offset) break;
      if (offset < r.fileOffset + r.fileSize) return r.start + (offset - r.fileOffset);
    }
    return undefined;
  }

  const image: BinaryImage = {
    ...rest,
    read,
    readUpTo,
    readInto,
    isMapped,
    addrToOffset,
    offsetToAddr,
    sectionAt: (addr: number): Section | undefined => find(lookupSections, addr),
    segmentAt: (addr: number): Segment | undefined => find(lookupSegments, addr),
  };
  if (isThumb) image.isThumb = isThumb;
  return image;
}
