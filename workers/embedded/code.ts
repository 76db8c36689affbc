/**
 * Decoding and rendering code for one database: the decoders it needs (ARM and Thumb side by
 * side), linear decoding at an address, and instruction rows with names for branch and data
 * targets.
 */
import { hex } from "../../src/protocol/paging.ts";
import { createDecoder } from "./arch/decoder.ts";
import type { DecodeOptions, Decoder, Insn } from "./arch/types.ts";
import type { BinaryImage } from "./formats/image.ts";
import { type ModeMark, modesOver } from "./analysis/_arm_modes.ts";

/** An instruction as results show it. */
export interface InsnRow {
  address: string;
  bytes: string;
  mnemonic: string;
  operands: string;
  target?: string;
  target_name?: string;
  ref?: string;
  ref_name?: string;
  comment?: string;
}

/** How rows get names and comments. */
export interface RowNamer {
  /** Name for a branch or call target (`func+0x10` is fine). */
  label(address: number): string | undefined;
  /** Name for a data reference: exact names, or inside a sized symbol. */
  data(address: number): string | undefined;
  comment(address: number): string | undefined;
}

/** Decoders for one image, created on first use. */
export class CodeView {
  #image: BinaryImage;
  #decoders = new Map<string, Promise<Decoder>>();
  /** ARM: modes the analysis learnt, over the image's own answer. */
  #isThumb: ((address: number) => boolean) | undefined;

  constructor(image: BinaryImage) {
    this.#image = image;
  }

  /**
   * ARM: decode by the modes the analysis learnt (a stripped binary has no mapping symbols,
   * and its A32 functions must not be read as Thumb).
   */
  useModes(marks: readonly ModeMark[]): void {
    const img = this.#image;
    const fallback = (a: number) => img.isThumb?.(a) ?? img.thumb ?? false;
    this.#isThumb = marks.length > 0 ? modesOver(marks, fallback) : undefined;
  }

  /** Whether code at `address` is Thumb (ARM). */
  isThumb(address: number): boolean {
    const img = this.#image;
    if (img.arch !== "arm") return false;
    return this.#isThumb?.(address) ?? img.isThumb?.(address) ?? img.thumb ?? false;
  }

  /** The decoder for code at `address` (Thumb where the image or the analysis says so). */
  decoder(address: number): Promise<Decoder> {
    return this.modeDecoder(this.isThumb(address));
  }

  /** The decoder for one mode: Thumb, or the image's own (A32 on ARM). */
  modeDecoder(thumb: boolean): Promise<Decoder> {
    const img = this.#image;
    const key = thumb ? "thumb" : "default";
    let d = this.#decoders.get(key);
    if (!d) {
      d = createDecoder(img.arch, { thumb, endian: img.endian, bits: img.bits });
      this.#decoders.set(key, d);
    }
    return d;
  }

  /** The Thumb decoder of an ARM image. */
  thumbDecoder(): Promise<Decoder> {
    return this.modeDecoder(true);
  }

  /** Decodes up to `count` instructions from `address` (linear sweep). */
  async decodeAt(address: number, count: number, options: DecodeOptions = {}): Promise<Insn[]> {
    const bytes = this.#image.readUpTo(address, count * 16);
    if (bytes.length === 0) return [];
    const d = await this.decoder(address);
    return d.decode(bytes, address, { ...options, maxCount: count });
  }

  /** Renders decoded instructions with text, bytes and names. */
  async rows(insns: Insn[], namer: RowNamer): Promise<InsnRow[]> {
    const out: InsnRow[] = [];
    for (const insn of insns) {
      const bytes = this.#image.readUpTo(insn.address, insn.size);
      const d = await this.decoder(insn.address);
      const text = insn.mnemonic !== undefined
        ? { mnemonic: insn.mnemonic, opStr: insn.opStr ?? "" }
        : d.format(this.#image.readUpTo(insn.address, 16), insn.address, insn);
      const row: InsnRow = {
        address: hex(insn.address),
        bytes: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""),
        mnemonic: text.mnemonic,
        operands: text.opStr,
      };
      if (insn.target !== undefined) {
        row.target = hex(insn.target);
        const n = namer.label(insn.target);
        if (n) row.target_name = n;
      }
      if (insn.memRef !== undefined) {
        row.ref = hex(insn.memRef);
        const n = namer.data(insn.memRef);
        if (n) row.ref_name = n;
      }
      const c = namer.comment(insn.address);
      if (c) row.comment = c;
      out.push(row);
    }
    return out;
  }

  /** Frees the decoders. */
  async dispose(): Promise<void> {
    for (const d of this.#decoders.values()) (await d).dispose();
    this.#decoders.clear();
  }
}
