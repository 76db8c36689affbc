/**
 * A sequential reader confined to [pos, end) of a {@link ByteReader}, for the variable-length
 * encodings (ULEB128/SLEB128, opcode streams, tries) that make up much of Mach-O and DWARF CFI.
 */

import { type ByteReader, malformed } from "./_reader.ts";

/** A read position that can never leave its window. */
export class Cursor {
  readonly r: ByteReader;
  pos: number;
  readonly end: number;

  constructor(r: ByteReader, start: number, end: number) {
    this.r = r;
    this.pos = start;
    this.end = Math.min(end, r.length);
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  #need(n: number): number {
    const p = this.pos;
    if (p < 0 || p + n > this.end) throw malformed("Data runs past the end of its table", p);
    this.pos = p + n;
    return p;
  }

  u8(): number {
    return this.r.u8(this.#need(1));
  }

  u16(): number {
    return this.r.u16(this.#need(2));
  }

  u32(): number {
    return this.r.u32(this.#need(4));
  }

  i32(): number {
    return this.r.i32(this.#need(4));
  }

  u64(): number {
    return this.r.u64(this.#need(8));
  }

  i64(): number {
    return this.r.i64(this.#need(8));
  }

  skip(n: number): void {
    this.#need(n);
  }

  /** Unsigned LEB128; values beyond 2^53 are rejected as malformed rather than rounded. */
  uleb(): number {
    const start = this.pos;
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = this.u8();
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) break;
      mul *= 128;
      if (mul > 2 ** 63) throw malformed("ULEB128 value is too long", start);
    }
    if (!Number.isSafeInteger(result)) throw malformed("ULEB128 value is at or above 2^53", start);
    return result;
  }

  /**
   * ULEB128 taken modulo 2^64 as a signed 64-bit value: dyld opcode streams encode negative
   * address steps this way.
   */
  ulebWrapping(): number {
    const start = this.pos;
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.u8();
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 70n) throw malformed("ULEB128 value is too long", start);
    }
    return Number(BigInt.asIntN(64, v));
  }

  /** Signed LEB128. */
  sleb(): number {
    const start = this.pos;
    let result = 0;
    let mul = 1;
    let b: number;
    do {
      b = this.u8();
      result += (b & 0x7f) * mul;
      mul *= 128;
      if (mul > 2 ** 70) throw malformed("SLEB128 value is too long", start);
    } while (b & 0x80);
    if (b & 0x40) result -= mul;
    if (!Number.isSafeInteger(result)) throw malformed("SLEB128 value is out of range", start);
    return result;
  }

  /** NUL-terminated string; throws when no NUL appears before the window ends. */
  cstring(): string {
    const start = this.pos;
    let end = this.r.indexOf(0, start, this.end);
    if (end < 0) throw malformed("Unterminated string", start);
    this.pos = end + 1;
    if (end - start > 65536) end = start + 65536;
    return this.r.cstring(start, end + 1, end - start + 1);
  }
}
