/**
 * Function addresses in position-independent Thumb code: gcc builds `&f` as a PC-relative
 * literal and an add, `ldr r3, [pc, #n]` … `add r3, pc` (`signal(SIGINT, handler)`), so no
 * instruction carries the address. A Thumb function's address has its low bit set, which tells
 * it from a label or data.
 */

import type { BinaryImage } from "../formats/image.ts";
import type { CodeCache } from "./_code_cache.ts";

/** How many instructions before the `add rX, pc` the literal load may be. */
const REACH = 6;

/**
 * The Thumb function whose address `add rX, pc` at `address` completes, when a literal load of
 * `rX` a few instructions before sets it up (the exploration's `immediatePointer`).
 */
export function thumbPcPointer(
  image: BinaryImage,
  cache: CodeCache,
  address: number,
  size: number,
): number | undefined {
  if (size !== 2 || image.isThumb?.(address) !== true) return undefined;
  const h = halfword(image, address);
  // ADD (register) T2 with Rm = pc: 0100 0100 D 1111 Rdn.
  if (h === undefined || (h & 0xff78) !== 0x4478) return undefined;
  const rd = ((h >> 4) & 8) | (h & 7);
  for (let back = 2; back <= REACH * 4; back += 2) {
    const at = address - back;
    const lit = literalOf(image, at, rd);
    if (lit === undefined || !reaches(cache, at, address)) continue;
    const w = image.read(lit, 4);
    if (w === undefined) return undefined;
    const value = (new DataView(w.buffer, w.byteOffset, 4).getUint32(0, true) + address + 4) >>> 0;
    return (value & 1) === 1 && cache.isCode(value - 1) ? value - 1 : undefined;
  }
  return undefined;
}

function halfword(image: BinaryImage, at: number): number | undefined {
  const b = image.read(at, 2);
  return b === undefined ? undefined : b[0]! | (b[1]! << 8);
}

/** The literal's address when `at` holds `ldr rd, [pc, #imm]` (16- or 32-bit encoding). */
function literalOf(image: BinaryImage, at: number, rd: number): number | undefined {
  const h = halfword(image, at);
  if (h === undefined) return undefined;
  const base = (at + 4) & ~3;
  if ((h & 0xf800) === 0x4800 && ((h >> 8) & 7) === rd) return base + (h & 0xff) * 4;
  const h2 = halfword(image, at + 2);
  if (h === 0xf8df && h2 !== undefined && h2 >> 12 === rd) return base + (h2 & 0xfff);
  return undefined;
}

/** Whether decoding straight on from `from` lands on `to` within {@link REACH} instructions. */
function reaches(cache: CodeCache, from: number, to: number): boolean {
  let a = from;
  for (let i = 0; i <= REACH && a < to; i++) {
    const n = cache.indexAt(a);
    if (n < 0) return false;
    a += cache.sizeOf(n);
  }
  return a === to;
}

/**
 * Bytes of the pool entry a Thumb PC-relative instruction at `address` refers to: 8 for
 * `ldrd rt, rt2, [pc, #n]`, `vldr dN, [pc, #n]` and an `adr` of an 8-byte aligned entry (gcc -O0
 * loads a 64-bit constant as `adr r1, lit; ldrd r0, r1, [r1]`), else 4.
 */
export function thumbLiteralBytes(image: BinaryImage, address: number, size: number): number {
  if (image.isThumb?.(address) !== true) return 4;
  const h = halfword(image, address);
  // ADR T1: 1010 0ddd imm8, the entry at Align(PC, 4) + imm8 * 4.
  if (size === 2 && h !== undefined && (h & 0xf800) === 0xa000) {
    return (((address + 4) & ~3) + (h & 0xff) * 4) % 8 === 0 ? 8 : 4;
  }
  if (size !== 4) return 4;
  const h2 = halfword(image, address + 2);
  if (h === undefined || h2 === undefined) return 4;
  // LDRD (literal): 1110 100P U1W1 1111; VLDR Dd (literal): 1110 1101 UD01 1111, coproc 1011.
  if ((h & 0xfe5f) === 0xe85f) return 8;
  if ((h & 0xff3f) === 0xed1f && (h2 & 0x0f00) === 0x0b00) return 8;
  return 4;
}
