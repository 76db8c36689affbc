/**
 * Alignment padding between functions, and the prologue signatures that mark a function start
 * in code no other evidence reached.
 */

import type { BinaryImage } from "../formats/image.ts";

/** Bytes of padding at `b[i]`, or 0 when the bytes there are not padding. */
export function paddingAt(arch: string, b: Uint8Array, i: number, little: boolean): number {
  const c = b[i];
  if (c === undefined) return 0;
  if (arch === "x86" || arch === "x86_64") {
    if (c === 0x90 || c === 0xcc || c === 0x00) return 1;
    // i386 gcc pads with lea esi,[esi+0] / lea edi,[edi+0] / mov esi,esi forms.
    if (arch === "x86" && c === 0x8d) {
      const m = b[i + 1];
      if (m === 0xb4 && b[i + 2] === 0x26) return 7;
      if (m === 0xbc && b[i + 2] === 0x27) return 7;
      if (m === 0xb6 || m === 0xbf) return 6;
      if (m === 0x74 && b[i + 2] === 0x26) return 4;
      if (m === 0x76 || m === 0x7f) return 3;
    }
    if (arch === "x86" && c === 0x89 && b[i + 1] === 0xf6) return 2;
    // Multi-byte nops: [66|2e]* 0f 1f /0 with a ModRM-sized tail.
    let j = i;
    while (b[j] === 0x66 || b[j] === 0x2e) j++;
    if (b[j] === 0x90 && j > i) return j - i + 1;
    if (b[j] === 0x0f && b[j + 1] === 0x1f) {
      const modrm = b[j + 2] ?? 0;
      const mod = modrm >> 6;
      const sib = (modrm & 7) === 4 && mod !== 3 ? 1 : 0;
      const disp = mod === 1 ? 1 : mod === 2 ? 4 : 0;
      return j - i + 3 + sib + disp;
    }
    return 0;
  }
  const width = arch === "arm" || arch === "riscv32" || arch === "riscv64" ? 2 : 4;
  if (i + width > b.length) return 0;
  const v = width === 2
    ? (little ? b[i]! | (b[i + 1]! << 8) : (b[i]! << 8) | b[i + 1]!)
    : new DataView(b.buffer, b.byteOffset + i, 4).getUint32(0, little);
  if (v === 0) return arch === "ppc" || arch === "ppc64" ? tracebackTableAt(b, i, little) : width;
  if (arch === "aarch64" && (v === 0xd503201f)) return 4;
  if (arch === "arm" && (v === 0xbf00 || v === 0x46c0)) return 2;
  if ((arch === "riscv32" || arch === "riscv64") && v === 0x0001) return 2;
  if (
    (arch === "riscv32" || arch === "riscv64") && v === 0x0013 && b[i + 2] === 0 && b[i + 3] === 0
  ) {
    return 4;
  }
  if ((arch === "ppc" || arch === "ppc64") && (v === 0x60000000 || v === 0x60420000)) return 4; // nop, ori r2,r2,0
  return 0;
}

/**
 * Bytes of the PowerPC traceback table starting with the zero word at `b[i]` (at least that
 * word). GCC puts one after each function's last instruction: a zero word, then version 0, a
 * language byte, four flag bytes and the parameter counts; with `has_tboff` set, optional
 * fields follow (parameter types, the offset back to the start, the name). Such tables are
 * data between functions, and only between functions: code aligns its loops with plain nops.
 */
function tracebackTableAt(b: Uint8Array, i: number, little: boolean): number {
  if (i + 12 > b.length || b[i + 4] !== 0 || b[i + 5]! > 0x20) return 4;
  const flags1 = b[i + 6]!;
  const flags2 = b[i + 7]!;
  let n = 12;
  if ((flags1 & 0x20) !== 0) {
    // has_tboff: the optional part.
    if (b[i + 10] !== 0 || (b[i + 11]! >> 1) !== 0) n += 4; // parameter types
    n += 4; // tb_offset
    if ((flags2 & 0x40) !== 0 && i + n + 2 <= b.length) {
      const len = little ? b[i + n]! | (b[i + n + 1]! << 8) : (b[i + n]! << 8) | b[i + n + 1]!;
      n += 2 + len;
    }
    if ((flags2 & 0x20) !== 0) n += 1; // alloca register
    n = (n + 3) & ~3;
  }
  return Math.min(n, b.length - i);
}

/**
 * Where the padding at the start of `b` ends (0 when none): the bytes a jump at the end of a
 * function skips when it is a tail call to the function after the padding. On PowerPC the
 * padding between functions begins with a traceback table (a zero word); nops alone align
 * loop heads inside a function, so a jump over them is an ordinary jump.
 */
export function functionPaddingEnd(arch: string, b: Uint8Array, little: boolean): number {
  if ((arch === "ppc" || arch === "ppc64") && (b.length < 4 || b[0]! | b[1]! | b[2]! | b[3]!)) {
    return 0;
  }
  let i = 0;
  for (let n; i < b.length && (n = paddingAt(arch, b, i, little)) > 0;) i += n;
  return i;
}

/** Whether the bytes at `b[i]` begin with a typical function prologue. */
export function prologueAt(image: BinaryImage, b: Uint8Array, i: number): boolean {
  const arch = image.arch;
  const at = (k: number) => b[i + k];
  if (arch === "x86_64") {
    if (at(0) === 0xf3 && at(1) === 0x0f && at(2) === 0x1e && at(3) === 0xfa) return true; // endbr64
    // push rbp; mov rbp, rsp
    return at(0) === 0x55 && at(1) === 0x48 && (at(2) === 0x89 && at(3) === 0xe5 ||
      at(2) === 0x8b && at(3) === 0xec);
  }
  if (arch === "x86") {
    if (at(0) === 0xf3 && at(1) === 0x0f && at(2) === 0x1e && at(3) === 0xfb) return true; // endbr32
    return at(0) === 0x55 && (at(1) === 0x89 && at(2) === 0xe5 || at(1) === 0x8b && at(2) === 0xec);
  }
  if (arch === "aarch64") {
    if (i % 4 !== 0 || i + 4 > b.length) return false;
    const w = new DataView(b.buffer, b.byteOffset + i, 4).getUint32(0, image.endian === "little");
    // stp x29, x30, [sp, #-N]!  |  paciasp  |  bti c
    return ((w & 0xffc07fff) >>> 0) === 0xa9807bfd || w === 0xd503233f || w === 0xd503245f;
  }
  if (arch === "ppc64") {
    if (i % 4 !== 0 || i + 8 > b.length) return false;
    const v = new DataView(b.buffer, b.byteOffset + i, 8);
    const little = image.endian === "little";
    // ELFv2 global entry: addis r2, r12, hi; addi r2, r2, lo (the TOC pointer).
    return v.getUint32(0, little) >>> 16 === 0x3c4c && v.getUint32(4, little) >>> 16 === 0x3842;
  }
  return false;
}
