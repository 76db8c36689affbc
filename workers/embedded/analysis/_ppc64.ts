/**
 * PowerPC64 specifics of function discovery that need more than one instruction's bytes.
 */

import type { BinaryImage } from "../formats/image.ts";
import type { CodeCache } from "./_code_cache.ts";
import type { Trace } from "./_explore.ts";

/**
 * Whether every undecodable word a probe ran into is the traceback table after a call: GCC ends
 * each function with a zero word and its traceback table, so a function whose last instruction
 * calls one that does not return (`bl error`) falls through into that table while the callee is
 * not yet known not to return. That is the function's end, not a sign of data.
 */
export function badOnlyAfterCalls(image: BinaryImage, trace: Trace, cache: CodeCache): boolean {
  for (const addr of trace.insns) {
    const insn = cache.at(addr);
    if (insn === undefined) return false;
    const next = insn.address + insn.size;
    const succ: number[] = [];
    if (insn.flow === "seq" || insn.flow === "cjump") succ.push(next);
    if ((insn.flow === "jump" || insn.flow === "cjump") && insn.target !== undefined) {
      succ.push(insn.target);
    }
    for (const s of succ) if (!trace.insns.has(s) && undecodable(cache, s)) return false;
    if ((insn.flow === "call" || insn.flow === "icall") && !trace.insns.has(next)) {
      const w = cache.at(next);
      if (w !== undefined && w.flow !== "invalid") continue;
      if (!zeroWord(image, next)) return false;
    }
  }
  return true;
}

function undecodable(cache: CodeCache, addr: number): boolean {
  if (!cache.isCode(addr)) return false;
  const insn = cache.at(addr);
  return insn === undefined || insn.flow === "invalid";
}

function zeroWord(image: BinaryImage, addr: number): boolean {
  const b = image.readUpTo(addr, 4);
  return b.length === 4 && (b[0]! | b[1]! | b[2]! | b[3]!) === 0;
}

/** D-form stores: their first register field is a source, not a destination. */
const STORES = new Set([36, 37, 38, 39, 44, 45, 46, 47, 52, 53, 54, 55, 62]);
/** Forms whose second register field (RA) is the destination (logical, rotate, X-form). */
const RA_TARGET = new Set([20, 21, 23, 24, 25, 26, 27, 28, 29, 30, 31]);

/**
 * PowerPC64 code builds a function's address from the TOC pointer in two instructions,
 * `addis rA, r2, hi` then (a few instructions later) `addi rD, rA, lo`: callbacks passed to
 * `qsort` or stored in tables. Given the `addi`, the address when the `addis` is found within
 * eight words before it with nothing between that writes rA or branches.
 */
export function tocPairPointer(image: BinaryImage, toc: number, addr: number): number | undefined {
  const little = image.endian === "little";
  const word = (a: number) => {
    const b = image.read(a, 4);
    return b === undefined
      ? undefined
      : new DataView(b.buffer, b.byteOffset, 4).getUint32(0, little);
  };
  const lo = word(addr);
  if (lo === undefined || lo >>> 26 !== 14) return undefined; // addi
  const ra = (lo >>> 16) & 31;
  if (ra === 0 || ra === 2) return undefined;
  for (let k = 1; k <= 8; k++) {
    const w = word(addr - 4 * k);
    if (w === undefined) return undefined;
    const op = w >>> 26;
    const rt = (w >>> 21) & 31;
    if (op === 15 && rt === ra) {
      if (((w >>> 16) & 31) !== 2) return undefined;
      return toc + ((w & 0xffff) << 16 >> 0) + ((lo & 0xffff) << 16 >> 16);
    }
    if (op === 16 || op === 18 || op === 19) return undefined; // branches
    if (rt === ra && !STORES.has(op)) return undefined;
    if (RA_TARGET.has(op) && ((w >>> 16) & 31) === ra) return undefined;
  }
  return undefined;
}

/**
 * `main` as glibc's PowerPC64 `_start` passes it: `addis r8, r2, hi; addi r8, r8, lo` points
 * at a start-up block whose second doubleword is `main`, then `b __libc_start_main`. Without it
 * `main` is only a relocated word in data, tried last, after which its callees' tables have
 * already been taken for functions.
 */
export function startMain(image: BinaryImage, toc: number, entry: number): number | undefined {
  const little = image.endian === "little";
  const b = image.read(entry, 64);
  if (b === undefined) return undefined;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let o = 4; o + 4 <= b.length; o += 4) {
    const w = v.getUint32(o, little);
    if (w >>> 26 === 18) break; // b __libc_start_main
    // addi r8, r8, lo
    if ((w & 0xffff0000) >>> 0 !== 0x39080000) continue;
    const block = tocPairPointer(image, toc, entry + o);
    if (block === undefined) return undefined;
    const slot = block + 8;
    const r = image.relocations.find((x) => x.address === slot && x.target !== undefined);
    if (r !== undefined) return r.target;
    const q = image.read(slot, 8);
    return q === undefined
      ? undefined
      : Number(new DataView(q.buffer, q.byteOffset, 8).getBigUint64(0, little));
  }
  return undefined;
}
