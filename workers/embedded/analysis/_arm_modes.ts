/**
 * ARM/Thumb modes learnt during the analysis. A stripped ELF has no mapping symbols, so the
 * image can only say "the entry point's mode" for every address; clang's armhf builds are A32
 * while their crt start files are Thumb, and reading their functions as Thumb turns each into a
 * string of tiny bogus functions. The analysis learns a mode where a function starts (a code
 * pointer's bit 0, `bl` keeps the mode and `blx imm` switches it, prologues in gaps) and code
 * after such a mark runs in its mode up to the next mark, as after a mapping symbol. Mapping
 * symbols, where present, always win ({@link BinaryImage.armModesKnown}).
 */

import type { BinaryImage } from "../formats/image.ts";
import { lastAtOrBefore } from "../formats/_sorted.ts";

/** A learnt mode: code from `addr` up to the next mark runs in this mode. */
export interface ModeMark {
  addr: number;
  thumb: boolean;
}

/** A learnt mark; a soft one (a section's start) gives way to evidence. */
interface Mark extends ModeMark {
  soft: boolean;
  /** The soft mode a hard mark replaced, restored if it is forgotten. */
  under?: boolean;
}

/** The addresses whose mode a {@link ArmModes.learn} or {@link ArmModes.forget} changed. */
export interface ModeChange {
  start: number;
  /** Exclusive; Infinity up to the end of the code. */
  end: number;
}

/** Learnt ARM/Thumb modes over the image's static answer. */
export class ArmModes {
  readonly #fixed: boolean;
  readonly #fallback: (addr: number) => boolean;
  readonly #marks: Mark[] = [];

  constructor(image: BinaryImage) {
    const isThumb = image.isThumb;
    const entry = image.thumb ?? false;
    this.#fallback = isThumb === undefined ? () => entry : (a) => isThumb.call(image, a);
    this.#fixed = image.arch !== "arm" || image.armModesKnown === true;
  }

  /** Whether the image's own marks decide every mode (nothing is learnt then). */
  get fixed(): boolean {
    return this.#fixed;
  }

  /** The image's own answer at `addr`, without what was learnt. */
  fallback(addr: number): boolean {
    return this.#fallback(addr);
  }

  /** Whether code at `addr` runs in Thumb mode. */
  isThumb(addr: number): boolean {
    const m = this.#marks;
    if (m.length === 0) return this.#fallback(addr);
    const k = lastAtOrBefore(m, addr, (x) => x.addr);
    return k < 0 ? this.#fallback(addr) : m[k]!.thumb;
  }

  /** Whether evidence (not just a section's start) set the mode exactly at `addr`. */
  markedAt(addr: number): boolean {
    const k = lastAtOrBefore(this.#marks, addr, (x) => x.addr);
    return k >= 0 && this.#marks[k]!.addr === addr && !this.#marks[k]!.soft;
  }

  /**
   * Records that a function at `addr` runs in `thumb` mode (the first evidence on an address
   * wins; a `soft` mark, a section's start, gives way to evidence). Returns the addresses whose
   * mode this changed, if any: what was decoded there is stale.
   */
  learn(addr: number, thumb: boolean, soft = false): ModeChange | undefined {
    if (this.#fixed) return undefined;
    const m = this.#marks;
    const k = lastAtOrBefore(m, addr, (x) => x.addr);
    const at = k >= 0 && m[k]!.addr === addr ? m[k]! : undefined;
    if (at !== undefined && (soft || !at.soft)) return undefined;
    const before = this.isThumb(addr);
    if (at !== undefined) m[k] = { addr, thumb, soft: false, under: at.thumb };
    else m.splice(k + 1, 0, { addr, thumb, soft });
    if (before === thumb) return undefined;
    const next = m[at !== undefined ? k + 1 : k + 2];
    return { start: addr, end: next?.addr ?? Infinity };
  }

  /** Drops the mark at `addr` (a probe in that mode failed); returns what changed back. */
  forget(addr: number): ModeChange | undefined {
    const m = this.#marks;
    const k = lastAtOrBefore(m, addr, (x) => x.addr);
    if (k < 0 || m[k]!.addr !== addr) return undefined;
    const was = m[k]!.thumb;
    const under = m[k]!.under;
    if (under !== undefined) m[k] = { addr, thumb: under, soft: true };
    else m.splice(k, 1);
    if (this.isThumb(addr) === was) return undefined;
    const next = m[under !== undefined ? k + 1 : k];
    return { start: addr, end: next?.addr ?? Infinity };
  }

  /** The learnt marks, sorted, without those that repeat the mode before them. */
  marks(): ModeMark[] {
    const out: ModeMark[] = [];
    for (const mark of this.#marks) {
      const before = out.length > 0 ? out[out.length - 1]!.thumb : this.#fallback(mark.addr);
      if (before !== mark.thumb) out.push({ addr: mark.addr, thumb: mark.thumb });
    }
    return out;
  }
}

/**
 * `isThumb` over learnt `marks` (see {@link ArmModes.marks}): the mark at or before `addr`, else
 * `fallback` (the image's own answer). For the tools that decode after the analysis.
 */
export function modesOver(
  marks: readonly ModeMark[],
  fallback: (addr: number) => boolean,
): (addr: number) => boolean {
  if (marks.length === 0) return fallback;
  return (addr) => {
    const k = lastAtOrBefore(marks, addr, (x) => x.addr);
    return k < 0 ? fallback(addr) : marks[k]!.thumb;
  };
}

/** The 32-bit little-endian word at `b[i]`, or -1. */
function word(b: Uint8Array, i: number): number {
  if (i < 0 || i + 4 > b.length) return -1;
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** The 16-bit little-endian halfword at `b[i]`, or -1. */
function half(b: Uint8Array, i: number): number {
  return i < 0 || i + 2 > b.length ? -1 : b[i]! | (b[i + 1]! << 8);
}

/** Words at the start of a candidate that {@link a32Odds} looks at. */
export const A32_WORDS = 8;

/**
 * Log-odds, summed over the first {@link A32_WORDS} words of `b` (code at `addr`), that they are
 * A32 rather than Thumb read as words; -Infinity when `addr` is not word-aligned. The top nibble
 * of a word is an A32 condition: "always" (E) for about 80% of A32 words and EQ/NE (0, 1) for most
 * of the rest, while Thumb code read as words spreads over every nibble (E about 6%, 0 or 1 about
 * 12%; measured on gcc and clang builds of Lua, libyaml and cJSON).
 */
export function a32Odds(addr: number, b: Uint8Array): number {
  if (addr % 4 !== 0) return -Infinity;
  let odds = 0;
  for (let k = 0; k < A32_WORDS; k++) {
    const w = word(b, k * 4);
    if (w < 0) break;
    const c = w >>> 28;
    odds += c === 0xe ? 2.5 : c <= 1 ? 0.5 : -3;
  }
  return odds;
}

/** Whether `b` (code at `addr`) reads as A32: clear odds, and a first word that could be code. */
export function plausibleA32(addr: number, b: Uint8Array): boolean {
  const w = word(b, 0);
  const c = w >>> 28;
  return w > 0 && (c === 0xe || c <= 1) && a32Odds(addr, b) >= 8;
}

/**
 * Bytes of A32 padding at `b[i]` (code at `addr` in A32 mode): a zero word, `nop` or
 * `mov r0, r0`; 0 when none. A zero halfword is not padding there: it is the low half of
 * `cmp r0, #0` and many more.
 */
export function a32PaddingAt(b: Uint8Array, i: number, addr: number): number {
  if (addr % 4 !== 0) return 0;
  const w = word(b, i);
  return w === 0 || w === 0xe320f000 || w === 0xe1a00000 ? 4 : 0;
}

/** Odds at or below which code surely is not A32 (it may still be data). */
export const NOT_A32 = -8;

/** Whether `b` starts with an A32 prologue: `push {…, lr}` or `str lr, [sp, #-4]!`. */
export function a32PrologueAt(b: Uint8Array): boolean {
  const w = word(b, 0);
  return w >= 0 && (((w & 0xffff4000) >>> 0) === 0xe92d4000 || w === 0xe52de004);
}

/** Whether `b` starts with a Thumb prologue: `push {…, lr}` (16-bit) or `push.w {…, lr}`. */
export function thumbPrologueAt(b: Uint8Array): boolean {
  const h = half(b, 0);
  if ((h & 0xff00) === 0xb500) return true;
  return h === 0xe92d && (half(b, 2) & 0x4000) !== 0;
}

/**
 * Whether the call at the start of `b` is `blx imm`, which switches the mode of its target
 * (`bl` keeps it): A32 `1111 101H`, Thumb `11110…` then `11x0…`.
 */
export function switchesMode(b: Uint8Array, thumb: boolean): boolean {
  if (!thumb) {
    const w = word(b, 0);
    return w >= 0 && w >>> 25 === 0x7d;
  }
  const h = half(b, 0);
  const h2 = half(b, 2);
  return h >= 0 && h2 >= 0 && (h & 0xf800) === 0xf000 && (h2 & 0xd000) === 0xc000;
}
