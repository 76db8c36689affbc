/**
 * Bounds-checked reads over a file's bytes. Every parser reads through this so a truncated or
 * hostile file ends in `OpenFailed` naming the offset, never a RangeError or a silent garbage value.
 */

import { RemcpError } from "../../../src/errors.ts";

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
  readonly bytes: Uint8Array;
  readonly length: number;
  readonly little: boolean;
  readonly #view: DataView;

  constructor(bytes: Uint8Array, little: boolean) {
    this.bytes = bytes;
    this.length = bytes.length;
    this.little = little;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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

  u8(off: number): number {
    this.check(off, 1);
    return this.bytes[off]!;
  }

  u16(off: number): number {
    this.check(off, 2);
    return this.#view.getUint16(off, this.little);
  }

  i16(off: number): number {
    this.check(off, 2);
    return this.#view.getInt16(off, this.little);
  }

  u32(off: number): number {
    this.check(off, 4);
    return this.#view.getUint32(off, this.little);
  }

  i32(off: number): number {
    this.check(off, 4);
    return this.#view.getInt32(off, this.little);
  }

  /** Unsigned 64-bit as a number; values at or above 2^53 lose precision (callers that care use {@link addr64}). */
  u64(off: number): number {
    this.check(off, 8);
    const a = this.#view.getUint32(off, this.little);
    const b = this.#view.getUint32(off + 4, this.little);
    return this.little ? b * 0x1_0000_0000 + a : a * 0x1_0000_0000 + b;
  }

  /** Signed 64-bit as a number (precise within ±2^53). */
  i64(off: number): number {
    this.check(off, 8);
    const a = this.#view.getUint32(off, this.little);
    const b = this.#view.getInt32(off + 4, this.little);
    if (this.little) return b * 0x1_0000_0000 + a;
    return this.#view.getInt32(off, false) * 0x1_0000_0000 + this.#view.getUint32(off + 4, false);
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

  /** Bytes [off, off+len) without copying. */
  slice(off: number, len: number): Uint8Array {
    this.check(off, len);
    return this.bytes.subarray(off, off + len);
  }

  /**
   * NUL-terminated string starting at `off`, not reading at or past `limit` (default: end of file)
   * nor more than `max` bytes; "" when `off` is outside [0, limit).
   */
  cstring(off: number, limit = this.length, max = 4096): string {
    const lim = Math.min(limit, this.length);
    if (!Number.isSafeInteger(off) || off < 0 || off >= lim) return "";
    const stop = Math.min(lim, off + max);
    let end = this.bytes.indexOf(0, off);
    if (end < 0 || end > stop) end = stop;
    return decodeText(this.bytes, off, end);
  }

  /** Fixed-size, NUL-padded name field (ELF/PE/Mach-O section names). */
  fixedString(off: number, len: number): string {
    this.check(off, len);
    let end = off;
    while (end < off + len && this.bytes[end] !== 0) end++;
    return decodeText(this.bytes, off, end);
  }
}
