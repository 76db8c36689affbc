/**
 * Function addresses in position-independent ARM code: gcc and clang build `&f` as a PC-relative
 * literal and an add, `ldr r3, [pc, #n]` … `add r3, pc` in Thumb (`signal(SIGINT, handler)`),
 * `ldr r0, [pc, #n]` … `add r0, pc, r0` in A32, so no instruction carries the address. The
 * address's low bit gives the function's mode (set: Thumb), which the analysis learns from.
 */

import type { BinaryImage } from "../formats/image.ts";
import type { CodeCache } from "./_code_cache.ts";

/** How many instructions before the `add rX, pc` the literal load may be. */
const REACH = 6;

/**
 * The function whose address `add rX, pc` (Thumb) or `add rX, pc, rX` (A32) at `address`
 * completes, when a literal load of `rX` a few instructions before sets it up (the exploration's
 * `immediatePointer`). The value keeps its low bit: set for a Thumb function, clear for A32.
 */
export function armPcPointer(
  image: BinaryImage,
  cache: CodeCache,
  address: number,
  size: number,
): number | undefined {
  const thumb = cache.isThumb(address);
  let rd: number;
  let pc: number;
  if (thumb) {
    const h = halfword(image, address);
    // ADD (register) T2 with Rm = pc: 0100 0100 D 1111 Rdn.
    if (size !== 2 || h === undefined || (h & 0xff78) !== 0x4478) return undefined;
    rd = ((h >> 4) & 8) | (h & 7);
    pc = address + 4;
  } else {
    const w = word(image, address);
    // ADD (register) A1, no shift: cond 0000 1000 Rn Rd 0000 0000 Rm with pc as Rn or Rm.
    if (size !== 4 || w === undefined || ((w & 0x0ff00ff0) >>> 0) !== 0x00800000) return undefined;
    const rn = (w >>> 16) & 15;
    const rm = w & 15;
    rd = (w >>> 12) & 15;
    if (rn === 15 && rm === rd) pc = address + 8;
    else if (rm === 15 && rn === rd) pc = address + 8;
    else return undefined;
  }
  const step = thumb ? 2 : 4;
  for (let back = step; back <= REACH * 4; back += step) {
    const at = address - back;
    const lit = thumb ? literalOf(image, at, rd) : a32LiteralOf(image, at, rd);
    if (lit === undefined || !reaches(cache, at, address)) continue;
    const w = word(image, lit);
    if (w === undefined) return undefined;
    const value = (w + pc) >>> 0;
    if (!cache.isCode(value & ~1)) return undefined;
    // An A32 function is word-aligned; an even value that is not is a label or data.
    return (value & 1) === 1 || value % 4 === 0 ? value : undefined;
  }
  return undefined;
}

function word(image: BinaryImage, at: number): number | undefined {
  const b = image.read(at, 4);
  return b === undefined ? undefined : (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
}

/** The literal's address when `at` holds A32 `ldr rd, [pc, #±imm]`. */
function a32LiteralOf(image: BinaryImage, at: number, rd: number): number | undefined {
  const w = word(image, at);
  // LDR (literal) A1: cond 0101 U001 1111 Rt imm12.
  if (w === undefined || ((w & 0x0f7f0000) >>> 0) !== 0x051f0000 || ((w >>> 12) & 15) !== rd) {
    return undefined;
  }
  const imm = w & 0xfff;
  return at + 8 + ((w & 0x00800000) !== 0 ? imm : -imm);
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
export function thumbLiteralBytes(
  image: BinaryImage,
  cache: CodeCache,
  address: number,
  size: number,
): number {
  if (!cache.isThumb(address)) return 4;
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
