/**
 * Where a parser's bytes come from: a whole file in memory (tests, fuzzing, small files) or a file
 * read on demand (the backend), so that opening a file costs memory for the ranges the engine
 * keeps — loaded segments, symbol and string tables — and not for debug sections or overlays.
 *
 * Parsers read through {@link ByteReader}, which asks a source for windows; nothing else in the
 * parsers touches a source's bytes, so both kinds of source give identical results.
 */

/** Bytes of the source at [base, base + bytes.length), with a view for multi-byte reads. */
export interface ByteWindow {
  readonly base: number;
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

/** Random, synchronous, read-only access to a file's bytes. */
export interface ByteSource {
  /** Size in bytes. */
  readonly length: number;
  /**
   * A window holding [off, off+len); the caller has checked that the range lies inside the
   * source. The window may hold more on either side, and may be shared: never write to it.
   */
  window(off: number, len: number): ByteWindow;
  /** Bytes [off, off+len) (inside the source) as one array: a view when it can be, else a copy. */
  read(off: number, len: number): Uint8Array;
  /**
   * Copies bytes [off, off+out.length) (inside the source) into `out`: how a long scan reads a
   * window at a time into one buffer instead of leaving a fresh array per window to the GC.
   */
  readInto(off: number, out: Uint8Array): void;
  /**
   * A hint that every byte of `ranges` (clamped to the source) will be read, repeatedly and soon:
   * a source that reads on demand keeps them in memory from now on. Results never depend on it.
   */
  keep(ranges: readonly { offset: number; size: number }[]): void;
}

function windowOf(base: number, bytes: Uint8Array): ByteWindow {
  return { base, bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/** A source over bytes already in memory: every window is the whole array, reads are views. */
export function memorySource(bytes: Uint8Array): ByteSource {
  const whole = windowOf(0, bytes);
  return {
    length: bytes.length,
    window: () => whole,
    read: (off, len) => bytes.subarray(off, off + len),
    readInto: (off, out) => out.set(bytes.subarray(off, off + out.length)),
    keep: () => {},
  };
}

/** The part [offset, offset+size) of `source`, clamped to it, as a source of its own. */
export function subSource(source: ByteSource, start: number, size: number): ByteSource {
  const offset = Math.min(Math.max(0, start), source.length);
  const length = Math.max(0, Math.min(size, source.length - offset));
  if (offset === 0 && length === source.length) return source;
  return {
    length,
    window(off, len) {
      const w = source.window(offset + off, len);
      // Re-based so that offsets in the part index it; bytes outside the part stay out of reach
      // because every reader checks against `length` first.
      return { base: w.base - offset, bytes: w.bytes, view: w.view };
    },
    read: (off, len) => source.read(offset + off, len),
    readInto: (off, out) => source.readInto(offset + off, out),
    keep: (ranges) => source.keep(ranges.map((r) => ({ offset: offset + r.offset, size: r.size }))),
  };
}

/** A window from a fresh array (for sources that read on demand). */
export function freshWindow(base: number, bytes: Uint8Array): ByteWindow {
  return windowOf(base, bytes);
}

/**
 * `ranges` clamped to [0, length), sorted and merged where they overlap or touch: what a source
 * that keeps ranges reads, each byte once however many tables claim it.
 */
export function mergeRanges(
  ranges: readonly { offset: number; size: number }[],
  length: number,
): { offset: number; size: number }[] {
  const clamped = ranges
    .filter((r) => Number.isFinite(r.offset) && Number.isFinite(r.size) && r.size > 0)
    .map((r) => {
      const start = Math.min(Math.max(0, Math.floor(r.offset)), length);
      const end = Math.min(Math.max(start, Math.floor(r.offset + r.size)), length);
      return { start, end };
    })
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start);
  const out: { offset: number; size: number }[] = [];
  let cur: { start: number; end: number } | undefined;
  for (const r of clamped) {
    if (cur && r.start <= cur.end) {
      cur.end = Math.max(cur.end, r.end);
    } else {
      if (cur) out.push({ offset: cur.start, size: cur.end - cur.start });
      cur = { ...r };
    }
  }
  if (cur) out.push({ offset: cur.start, size: cur.end - cur.start });
  return out;
}

/** `input` as a source: bytes in memory are wrapped, a source is used as it is. */
export function asSource(input: Uint8Array | ByteSource): ByteSource {
  return input instanceof Uint8Array ? memorySource(input) : input;
}
