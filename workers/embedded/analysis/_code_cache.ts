/**
 * Decoded instructions by address, decoded on demand in runs and kept for the whole analysis,
 * so re-walking a function (after the set of non-returning functions grows) costs no decoding.
 */

import type { Decoder, Insn } from "../arch/types.ts";
import type { BinaryImage } from "../formats/image.ts";

/** Bytes decoded per cache miss: most runs end at a jump or return well before this. */
const RUN_BYTES = 384;

/** Decoded instructions of an image's executable ranges. */
export class CodeCache {
  readonly #image: BinaryImage;
  readonly #decoder: Decoder;
  readonly #thumbDecoder: Decoder | undefined;
  readonly #insns = new Map<number, Insn>();
  readonly #exec: { start: number; end: number }[];
  /** Instructions decoded so far, for progress and yield accounting. */
  decoded = 0;

  constructor(image: BinaryImage, decoder: Decoder, thumbDecoder?: Decoder) {
    this.#image = image;
    this.#decoder = decoder;
    this.#thumbDecoder = thumbDecoder;
    this.#exec = executableRanges(image);
  }

  /** Executable address ranges, sorted. */
  get ranges(): readonly { start: number; end: number }[] {
    return this.#exec;
  }

  /** Whether `addr` lies in an executable range. */
  isCode(addr: number): boolean {
    return this.rangeEnd(addr) !== undefined;
  }

  /** The end of the executable range (code section) holding `addr`, if any. */
  rangeEnd(addr: number): number | undefined {
    const r = this.#exec;
    let lo = 0;
    let hi = r.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = r[mid]!;
      if (addr < m.start) hi = mid - 1;
      else if (addr >= m.end) lo = mid + 1;
      else return m.end;
    }
    return undefined;
  }

  /** The instruction at `addr`, decoding a run from there on a miss; undefined outside code. */
  at(addr: number): Insn | undefined {
    const hit = this.#insns.get(addr);
    if (hit !== undefined) return hit;
    if (!this.isCode(addr)) return undefined;
    const decoder = this.decoderFor(addr);
    const bytes = this.#image.readUpTo(addr, RUN_BYTES);
    if (bytes.length === 0) return undefined;
    const insns = decoder.decode(bytes, addr, { stopAtFlowEnd: true });
    this.decoded += insns.length;
    // On ARM a run must not cross into code of the other mode (A32 crt code between Thumb
    // functions): what it decoded there would shadow the right decoding.
    const mode = this.#thumbDecoder === undefined ? undefined : decoder;
    for (const insn of insns) {
      if (mode !== undefined && this.decoderFor(insn.address) !== mode) break;
      // Keep the first decoding of an address: a later run may start mid-instruction and
      // must not replace what an earlier, aligned run saw.
      if (!this.#insns.has(insn.address)) this.#insns.set(insn.address, insn);
    }
    return this.#insns.get(addr);
  }

  /** The decoder for code at `addr` (Thumb or ARM on 32-bit ARM). */
  decoderFor(addr: number): Decoder {
    if (this.#thumbDecoder !== undefined && this.#image.isThumb?.(addr) === true) {
      return this.#thumbDecoder;
    }
    return this.#decoder;
  }
}

/** Executable ranges: code sections when there are any, otherwise executable segments. */
export function executableRanges(image: BinaryImage): { start: number; end: number }[] {
  let ranges = image.sections
    .filter((s) => s.kind === "code" && s.end > s.start)
    .map((s) => ({ start: s.start, end: s.end }));
  if (ranges.length === 0) {
    ranges = image.segments
      .filter((s) => s.perms.includes("x") && s.end > s.start)
      .map((s) => ({ start: s.start, end: s.end }));
  }
  ranges.sort((a, b) => a.start - b.start);
  return ranges;
}
