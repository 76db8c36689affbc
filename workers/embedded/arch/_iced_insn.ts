/**
 * Reads a decoded iced-x86 `Instruction` straight from WASM memory, so the decode loop makes
 * one call (`decodeOut`) per instruction instead of five getter calls.
 *
 * The offsets are rustc's layout of `Instruction` in the iced-x86 1.21.0 WASM build, behind
 * wasm-bindgen's 8-byte `RefCell` header. They are not a public contract, so
 * {@link IcedInsnView.verify} checks them against the getters on known encodings when a decoder
 * is created, and a different build fails loudly instead of decoding wrongly.
 */

import type { IcedRuntime } from "./_iced_wasm.ts";
import { RemcpError } from "../../../src/errors.ts";

const NEXT_RIP = 8;
const MEM_DISPL = 16;
const CODE = 40;
const MEM_BASE = 43;
const MEM_INDEX = 44;
const DISPL_SIZE = 45;
const LENGTH = 46;
const TWO_POW_32 = 2 ** 32;
const UNKNOWN_FLOW = 255;

/** The decoded instruction at a fixed WASM address, read in place. */
export class IcedInsnView {
  readonly ptr: number;
  readonly #rt: IcedRuntime;
  #u8: Uint8Array;
  #u16: Uint16Array;
  #u32: Uint32Array;
  // FlowControl depends on the opcode only: ask iced once per Code value.
  readonly #flows = new Uint8Array(1 << 13).fill(UNKNOWN_FLOW);

  constructor(rt: IcedRuntime, ptr: number) {
    this.#rt = rt;
    this.ptr = ptr;
    this.#u8 = new Uint8Array(0);
    this.#u16 = new Uint16Array(0);
    this.#u32 = new Uint32Array(0);
    this.refresh();
  }

  /** Re-create the views after the WASM heap grew (growth detaches the old buffer). */
  refresh(): void {
    if (this.#u8.byteLength !== 0) return; // a detached (grown-from) buffer has length 0
    const buffer = this.#rt.memory.buffer;
    this.#u8 = new Uint8Array(buffer);
    this.#u16 = new Uint16Array(buffer);
    this.#u32 = new Uint32Array(buffer);
  }

  /** Instruction length in bytes. */
  length(): number {
    return this.#u8[this.ptr + LENGTH] ?? 0;
  }

  /** iced `Code` (0 = INVALID). */
  code(): number {
    return this.#u16[(this.ptr + CODE) >> 1] ?? 0;
  }

  /** iced `FlowControl`. */
  flow(): number {
    const code = this.code();
    const cached = this.#flows[code] ?? UNKNOWN_FLOW;
    if (cached !== UNKNOWN_FLOW) return cached;
    const flow = this.#rt.wasm.instruction_flowControl(this.ptr);
    if (code < this.#flows.length) this.#flows[code] = flow;
    return flow;
  }

  /** Whether the memory operand has a displacement (RIP-relative ones always do). */
  hasDisplacement(): boolean {
    return this.#u8[this.ptr + DISPL_SIZE] !== 0;
  }

  /** Memory base register (iced `Register`, 0 = none). */
  base(): number {
    return this.#u8[this.ptr + MEM_BASE] ?? 0;
  }

  /** Memory index register (0 = none). */
  index(): number {
    return this.#u8[this.ptr + MEM_INDEX] ?? 0;
  }

  /**
   * The u64 holding the near branch target, the resolved RIP-relative address, or the memory
   * displacement; as a number (imprecise above 2^53).
   */
  displacement(): number {
    const at = (this.ptr + MEM_DISPL) >> 2;
    return (this.#u32[at + 1] ?? 0) * TWO_POW_32 + (this.#u32[at] ?? 0);
  }

  /** The low 32 bits of {@link IcedInsnView.displacement}. */
  displacementLow(): number {
    return this.#u32[(this.ptr + MEM_DISPL) >> 2] ?? 0;
  }

  /** Address of the next instruction. */
  nextIp(): number {
    const at = (this.ptr + NEXT_RIP) >> 2;
    return (this.#u32[at + 1] ?? 0) * TWO_POW_32 + (this.#u32[at] ?? 0);
  }

  /**
   * Check the offsets against iced's getters after `decode(bytes)` at 0x401000 of each probe:
   * a RIP-relative (64-bit) or absolute (32-bit) load, a call, and an SIB load with an index.
   */
  verify(decode: (bytes: Uint8Array) => void): void {
    const wasm = this.#rt.wasm;
    const probes = [
      [0x8b, 0x05, 0xe9, 0x2e, 0x00, 0x00],
      [0xe8, 0x1b, 0x00, 0x00, 0x00],
      [0x8b, 0x04, 0xc5, 0x10, 0x20, 0x30, 0x00],
    ];
    for (const probe of probes) {
      decode(Uint8Array.from(probe));
      this.refresh();
      const p = this.ptr;
      const target = wasm.instruction_flowControl(p) === 5
        ? wasm.instruction_nearBranchTarget(p)
        : wasm.instruction_memoryDisplacement(p);
      const ok = this.length() === wasm.instruction_length(p) &&
        this.code() === wasm.instruction_code(p) &&
        this.base() === wasm.instruction_memoryBase(p) &&
        this.index() === wasm.instruction_memoryIndex(p) &&
        this.hasDisplacement() === (wasm.instruction_memoryDisplSize(p) !== 0) &&
        BigInt(this.displacement()) === target &&
        this.nextIp() === 0x401000 + probe.length;
      if (!ok) {
        throw new RemcpError("Internal", "Cannot use iced-x86: unexpected Instruction layout", {
          probe: probe.map((b) => b.toString(16).padStart(2, "0")).join(""),
        });
      }
    }
  }
}
