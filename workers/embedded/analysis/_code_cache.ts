/**
 * Decoded instructions by address, decoded on demand in runs and kept for the whole analysis,
 * so re-walking a function (after the set of non-returning functions grows) costs no decoding.
 *
 * A big binary decodes millions of instructions: they are kept as columns of typed arrays (an
 * index per code byte, then size, flow, target and memRef per instruction), about 20 bytes
 * each, instead of one object and one map entry each (about 100 bytes, all of it traced by
 * every garbage collection). {@link CodeCache.at} builds a fresh {@link Insn} per call.
 */

import { type Decoder, type Flow, type Insn, NO_OPERANDS } from "../arch/types.ts";
import type { BinaryImage } from "../formats/image.ts";
import { ArmModes, type ModeChange } from "./_arm_modes.ts";

/** Bytes decoded per cache miss: most runs end at a jump or return well before this. */
const RUN_BYTES = 384;

/** Flow kinds by their code in the `flow` column. */
const FLOWS: readonly Flow[] = [
  "seq",
  "jump",
  "cjump",
  "call",
  "ret",
  "ijump",
  "icall",
  "trap",
  "invalid",
];
/** The code of each flow kind in the `flow` column ({@link CodeCache.flowOf}). */
export const FLOW_CODE = Object.fromEntries(FLOWS.map((f, i) => [f, i])) as Record<Flow, number>;

/** Decoded instructions of an image's executable ranges. */
/** Bytes `byteAt` reads at once. */
const WINDOW = 64 * 1024;

export class CodeCache {
  readonly #image: BinaryImage;
  readonly #decoder: Decoder;
  readonly #thumbDecoder: Decoder | undefined;
  readonly #exec: { start: number; end: number }[];
  /** Per executable range: instruction number + 1 at each byte offset, 0 when not decoded. */
  readonly #index: Int32Array[];
  /** Per executable range: its bytes, read on first use (views on the image's bytes). */
  #window: Uint8Array = new Uint8Array(0);
  #windowStart = 0;
  #size = new Uint8Array(1024);
  #flow = new Uint8Array(1024);
  /** NaN for none. */
  #target = new Float64Array(1024);
  /** NaN for none. */
  #memRef = new Float64Array(1024);
  /** Instructions decoded so far, for progress and yield accounting. */
  decoded = 0;
  /** Numbers of the few instructions a run decoded past the end of its code section. */
  readonly #outside = new Map<number, number>();
  /** Instructions kept. */
  #count = 0;
  #released = false;
  /** ARM: the mode of each address, as the image says and the analysis learns. */
  readonly modes: ArmModes;

  constructor(image: BinaryImage, decoder: Decoder, thumbDecoder?: Decoder) {
    this.#image = image;
    this.#decoder = decoder;
    this.#thumbDecoder = thumbDecoder;
    this.modes = new ArmModes(image);
    this.#exec = executableRanges(image);
    this.#index = this.#exec.map((r) => new Int32Array(r.end - r.start));
    // Room for an instruction every 4 bytes of code at once: doubling from small copies
    // the columns many times (pages never written cost no memory).
    const room = Math.max(1024, this.#exec.reduce((n, r) => n + r.end - r.start, 0) >> 2);
    this.#size = new Uint8Array(room);
    this.#flow = new Uint8Array(room);
    this.#target = new Float64Array(room);
    this.#memRef = new Float64Array(room);
  }

  /** Executable address ranges, sorted. */
  get ranges(): readonly { start: number; end: number }[] {
    return this.#exec;
  }

  /** Whether `addr` lies in an executable range. */
  isCode(addr: number): boolean {
    return this.#rangeOf(addr) >= 0;
  }

  /** The end of the executable range (code section) holding `addr`, if any. */
  rangeEnd(addr: number): number | undefined {
    const i = this.#rangeOf(addr);
    return i < 0 ? undefined : this.#exec[i]!.end;
  }

  /**
   * The byte of code at `addr`, or -1 outside the executable ranges. Read a 64 KiB window at a
   * time: a raw blob is read from the file on demand, and holding its whole range would cost its
   * size.
   */
  byteAt(addr: number): number {
    const off = addr - this.#windowStart;
    if (off >= 0 && off < this.#window.length) return this.#window[off]!;
    const ri = this.#rangeOf(addr);
    if (ri < 0) return -1;
    const r = this.#exec[ri]!;
    const start = Math.max(r.start, addr - (addr % WINDOW));
    this.#window = this.#image.readUpTo(start, Math.min(r.end, start + WINDOW) - start);
    this.#windowStart = start;
    return this.#window[addr - start] ?? -1;
  }

  /** Index of the executable range holding `addr`, or -1. */
  #rangeOf(addr: number): number {
    const r = this.#exec;
    let lo = 0;
    let hi = r.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = r[mid]!;
      if (addr < m.start) hi = mid - 1;
      else if (addr >= m.end) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  /** The instruction at `addr`, decoding a run from there on a miss; undefined outside code. */
  at(addr: number): Insn | undefined {
    if (this.#released) {
      const bytes = this.#image.readUpTo(addr, 16);
      if (bytes.length === 0 || !this.isCode(addr)) return undefined;
      return this.decoderFor(addr).decode(bytes, addr, { maxCount: 1 })[0];
    }
    const n = this.indexAt(addr);
    return n < 0 ? undefined : this.insn(n, addr);
  }

  /**
   * The number of the instruction at `addr` (decoding a run from there on a miss), or -1 where
   * none is: the hot loops read its columns ({@link sizeOf}, {@link flowOf}, …) instead of
   * building an {@link Insn} per visit. Numbers stay valid until {@link release}.
   */
  indexAt(addr: number): number {
    if (this.#released) throw new Error("CodeCache.indexAt after release");
    const ri = this.#rangeOf(addr);
    if (ri < 0) return this.#outside.get(addr) ?? -1;
    const index = this.#index[ri]!;
    const offset = addr - this.#exec[ri]!.start;
    let n = index[offset]!;
    if (n === 0) {
      this.#decodeRun(addr);
      n = index[offset]!;
    }
    return n - 1;
  }

  /** Size in bytes of instruction `n`. */
  sizeOf(n: number): number {
    return this.#size[n]!;
  }

  /** Flow of instruction `n`, as its {@link FLOW_CODE}. */
  flowOf(n: number): number {
    return this.#flow[n]!;
  }

  /** Direct target of instruction `n`, NaN for none. */
  targetOf(n: number): number {
    return this.#target[n]!;
  }

  /** Memory reference of instruction `n`, NaN for none. */
  memRefOf(n: number): number {
    return this.#memRef[n]!;
  }

  /** Instruction `n` (at `address`) as an object. */
  insn(n: number, address: number): Insn {
    const insn: Insn = {
      address,
      size: this.#size[n]!,
      flow: FLOWS[this.#flow[n]!]!,
      operands: NO_OPERANDS,
    };
    const target = this.#target[n]!;
    if (target === target) insn.target = target;
    const memRef = this.#memRef[n]!;
    if (memRef === memRef) insn.memRef = memRef;
    return insn;
  }

  #decodeRun(addr: number): void {
    const decoder = this.decoderFor(addr);
    const bytes = this.#image.readUpTo(addr, RUN_BYTES);
    if (bytes.length === 0) return;
    const insns = decoder.decode(bytes, addr, { stopAtFlowEnd: true });
    this.decoded += insns.length;
    // On ARM a run must not cross into code of the other mode (A32 crt code between Thumb
    // functions): what it decoded there would shadow the right decoding.
    const mode = this.#thumbDecoder === undefined ? undefined : decoder;
    for (const insn of insns) {
      if (mode !== undefined && this.decoderFor(insn.address) !== mode) break;
      const ri = this.#rangeOf(insn.address);
      if (ri < 0) {
        if (!this.#outside.has(insn.address)) this.#outside.set(insn.address, this.#add(insn));
        continue;
      }
      const index = this.#index[ri]!;
      const offset = insn.address - this.#exec[ri]!.start;
      // Keep the first decoding of an address: a later run may start mid-instruction and
      // must not replace what an earlier, aligned run saw.
      if (index[offset] !== 0) continue;
      index[offset] = this.#add(insn) + 1;
    }
  }

  #add(insn: Insn): number {
    const n = this.#count++;
    if (n === this.#size.length) {
      const grow = <T extends Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.#size = grow(this.#size, (k) => new Uint8Array(k));
      this.#flow = grow(this.#flow, (k) => new Uint8Array(k));
      this.#target = grow(this.#target, (k) => new Float64Array(k));
      this.#memRef = grow(this.#memRef, (k) => new Float64Array(k));
    }
    this.#size[n] = insn.size;
    this.#flow[n] = FLOW_CODE[insn.flow];
    this.#target[n] = insn.target ?? NaN;
    this.#memRef[n] = insn.memRef ?? NaN;
    return n;
  }

  /**
   * Frees the decoded instructions once the analysis needs no more (ranges stay); `at` then
   * decodes again.
   */
  release(): void {
    for (let i = 0; i < this.#index.length; i++) this.#index[i] = new Int32Array(0);
    this.#index.length = 0;
    this.#outside.clear();
    this.#size = new Uint8Array(0);
    this.#flow = new Uint8Array(0);
    this.#target = new Float64Array(0);
    this.#memRef = new Float64Array(0);
    this.#count = 0;
    this.#released = true;
  }

  /** The decoder for code at `addr` (Thumb or ARM on 32-bit ARM). */
  decoderFor(addr: number): Decoder {
    if (this.#thumbDecoder !== undefined && this.modes.isThumb(addr)) return this.#thumbDecoder;
    return this.#decoder;
  }

  /** ARM: whether code at `addr` is Thumb (always false elsewhere). */
  isThumb(addr: number): boolean {
    return this.#thumbDecoder !== undefined && this.modes.isThumb(addr);
  }

  /**
   * ARM: learns that code at `addr` runs in `thumb` mode (see {@link ArmModes.learn}) and drops
   * what was decoded in the other mode; true when some address changed mode.
   */
  learnMode(addr: number, thumb: boolean, soft = false): boolean {
    if (this.#thumbDecoder === undefined) return false;
    return this.#forget(this.modes.learn(addr, thumb, soft));
  }

  /** ARM: undoes {@link learnMode} at `addr`. */
  forgetMode(addr: number): void {
    if (this.#thumbDecoder !== undefined) this.#forget(this.modes.forget(addr));
  }

  /** Drops the decoded instructions in `change` (their numbers stay taken); true if any. */
  #forget(change: ModeChange | undefined): boolean {
    if (change === undefined) return false;
    if (this.#released) return true;
    this.#exec.forEach((r, i) => {
      const from = Math.max(change.start, r.start);
      const to = Math.min(change.end, r.end);
      if (from < to) this.#index[i]!.fill(0, from - r.start, to - r.start);
    });
    for (const a of this.#outside.keys()) {
      if (a >= change.start && a < change.end) this.#outside.delete(a);
    }
    return true;
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
