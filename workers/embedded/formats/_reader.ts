/**
 * Bounds-checked reads over a file's bytes. Every parser reads through this so a truncated or
 * hostile file ends in `OpenFailed` naming the offset, never a RangeError or a silent garbage value.
 */

import { RemcpError } from "../../../src/errors.ts";
import { asSource, type ByteSource, type ByteWindow } from "./_source.ts";

/** Formats an offset or address as `0x…`. */
export function hex(n: number): string {
  return n < 0 ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`;
}

/** The error for malformed input: `what` was wrong at `offset`. */
export function malformed(what: string, offset: number): RemcpError {
  return new RemcpError("OpenFailed", `${what} at offset ${hex(offset)}`, { offset });
}

const utf8 = new TextDecoder("utf-8");

/** Decodes bytes[start, end) as UTF-8 text (invalid sequences become U+FFFD). */
export function decodeText(bytes: Uint8Array, start: number, end: number): string {
  // A per-character `s +=` loop looks cheaper but leaves one cons-string per character for the
  // GC; on a large symbol table that cost more than all the parsing.
  return end > start ? utf8.decode(bytes.subarray(start, end)) : "";
}

/** Random-access reader with bounds checks and a fixed byte order. */
export class ByteReader {
  readonly source: ByteSource;
  readonly length: number;
  readonly little: boolean;
  /** The window the last read used: sequential reads of a table stay in it. */
  #win: ByteWindow;

  constructor(source: ByteSource | Uint8Array, little: boolean) {
    this.source = asSource(source);
    this.length = this.source.length;
    this.little = little;
    this.#win = this.source.window(0, 0);
  }

  /** Whether [off, off+len) lies inside the file. */
  has(off: number, len: number): boolean {
    return Number.isSafeInteger(off) && Number.isSafeInteger(len) && off >= 0 && len >= 0 &&
      off + len <= this.length;
  }

  /** Throws `OpenFailed` unless [off, off+len) lies inside the file. */
  check(off: number, len: number, what = "Data runs past the end of the file"): void {
    if (!this.has(off, len)) throw malformed(`${what} (${len} bytes needed)`, off);
  }

  /** Checks [off, off+n) and returns its position in the current window (switching if needed). */
  #at(off: number, n: number): number {
    this.check(off, n);
    let rel = off - this.#win.base;
    if (rel < 0 || rel + n > this.#win.bytes.length) {
      this.#win = this.source.window(off, n);
      rel = off - this.#win.base;
    }
    return rel;
  }

  /** A hint passed to the source: these ranges will be read (see {@link ByteSource.keep}). */
  keep(ranges: readonly { offset: number; size: number }[]): void {
    this.source.keep(ranges);
  }

  u8(off: number): number {
    const p = this.#at(off, 1);
    return this.#win.bytes[p]!;
  }

  u16(off: number): number {
    const p = this.#at(off, 2);
    return this.#win.view.getUint16(p, this.little);
  }

  i16(off: number): number {
    const p = this.#at(off, 2);
    return this.#win.view.getInt16(p, this.little);
  }

  u32(off: number): number {
    const p = this.#at(off, 4);
    return this.#win.view.getUint32(p, this.little);
  }

  i32(off: number): number {
    const p = this.#at(off, 4);
    return this.#win.view.getInt32(p, this.little);
  }

  /** Unsigned 64-bit as a number; values at or above 2^53 lose precision (callers that care use {@link addr64}). */
  u64(off: number): number {
    const p = this.#at(off, 8);
    const v = this.#win.view;
    const a = v.getUint32(p, this.little);
    const b = v.getUint32(p + 4, this.little);
    return this.little ? b * 0x1_0000_0000 + a : a * 0x1_0000_0000 + b;
  }

  /** Signed 64-bit as a number (precise within ±2^53). */
  i64(off: number): number {
    const p = this.#at(off, 8);
    const v = this.#win.view;
    if (this.little) return v.getInt32(p + 4, true) * 0x1_0000_0000 + v.getUint32(p, true);
    return v.getInt32(p, false) * 0x1_0000_0000 + v.getUint32(p + 4, false);
  }

  /** A pointer-sized unsigned value (4 or 8 bytes). */
  word(off: number, size: 4 | 8): number {
    return size === 8 ? this.u64(off) : this.u32(off);
  }

  /** 64-bit address; throws `OpenFailed` when it cannot be a JS number exactly. */
  addr64(off: number, what: string): number {
    const v = this.u64(off);
    if (!Number.isSafeInteger(v)) {
      throw malformed(
        `${what} ${
          v.toString(16)
        } is at or above 2^53, which the embedded engine cannot represent (known limitation)`,
        off,
      );
    }
    return v;
  }

  /** Bytes [off, off+len): a view when the source has them in one piece, else a copy. */
  slice(off: number, len: number): Uint8Array {
    this.check(off, len);
    return this.source.read(off, len);
  }

  /**
   * The offset of the first `byte` in [from, end) (clamped to the file), or -1. Scans window by
   * window, so a search through a file read on demand holds one window at a time.
   */
  indexOf(byte: number, from: number, end: number): number {
    const stop = Math.min(end, this.length);
    let at = Math.max(0, from);
    while (at < stop) {
      const p = this.#at(at, 1);
      const w = this.#win;
      const upto = Math.min(w.bytes.length, stop - w.base);
      const i = w.bytes.subarray(0, upto).indexOf(byte, p);
      if (i >= 0) return w.base + i;
      at = w.base + upto;
    }
    return -1;
  }

  /**
   * NUL-terminated string starting at `off`, not reading at or past `limit` (default: end of file)
   * nor more than `max` bytes; "" when `off` is outside [0, limit).
   */
  cstring(off: number, limit = this.length, max = 4096): string {
    const lim = Math.min(limit, this.length);
    if (!Number.isSafeInteger(off) || off < 0 || off >= lim) return "";
    const stop = Math.min(lim, off + max);
    let end = this.indexOf(0, off, stop);
    if (end < 0) end = stop;
    return this.#text(off, end);
  }

  /** Fixed-size, NUL-padded name field (ELF/PE/Mach-O section names). */
  fixedString(off: number, len: number): string {
    this.check(off, len);
    const nul = this.indexOf(0, off, off + len);
    return this.#text(off, nul < 0 ? off + len : nul);
  }

  #text(start: number, end: number): string {
    return end > start ? decodeText(this.source.read(start, end - start), 0, end - start) : "";
  }
}
