/**
 * x86 and x86-64 decoding with iced-x86. The fast path decodes into one reused WASM
 * `Instruction` with one call and reads it in place; text, operands and access are computed
 * only when asked for.
 */

import { endsFlow, invalidText } from "./_common.ts";
import { IcedInsnView } from "./_iced_insn.ts";
import { IcedOperands } from "./_iced_operands.ts";
import { type IcedRuntime, loadIced } from "./_iced_wasm.ts";
import {
  type Arch,
  type DecodeOptions,
  type Decoder,
  type Insn,
  type InsnText,
  NO_OPERANDS,
} from "./types.ts";

// iced-x86 enum values (FlowControl, Code, DecoderError, Register, OpKind).
const FLOW_NEXT = 0;
const FLOW_JUMP = 1;
const FLOW_INDIRECT_JUMP = 2;
const FLOW_COND_JUMP = 3;
const FLOW_RETURN = 4;
const FLOW_CALL = 5;
const FLOW_INDIRECT_CALL = 6;
const FLOW_INTERRUPT = 7;
const FLOW_XBEGIN = 8;
const FLOW_EXCEPTION = 9;
const CODE_INVALID = 0;
const ERROR_NO_MORE_BYTES = 2;
const REG_EIP = 69;
const REG_RIP = 70;
const REG_FS = 75;
const REG_GS = 76;
const OP_NEAR_BRANCH_LAST = 3;
const MAX_INSN_LENGTH = 15;
const MAX_WINDOW = 1 << 22;

/** Create an x86 (`bits` 32) or x86-64 (`bits` 64) decoder. */
export async function createX86Decoder(arch: Arch, bits: 32 | 64): Promise<Decoder> {
  return new IcedDecoder(await loadIced(), arch, bits);
}

class IcedDecoder implements Decoder {
  readonly arch: Arch;
  readonly mode: string;
  readonly #rt: IcedRuntime;
  readonly #bits: number;
  readonly #insn: number;
  readonly #view: IcedInsnView;
  readonly #operands: IcedOperands;
  #fastFormatter = 0;
  #disposed = false;

  constructor(rt: IcedRuntime, arch: Arch, bits: 32 | 64) {
    this.arch = arch;
    this.mode = String(bits);
    this.#rt = rt;
    this.#bits = bits;
    this.#insn = rt.wasm.instruction_new();
    this.#view = new IcedInsnView(rt, this.#insn);
    this.#operands = new IcedOperands(rt, this.#insn, bits);
    this.#view.verify((probe) => this.#decodeOne(probe, 0x401000));
  }

  decode(bytes: Uint8Array, address: number, options: DecodeOptions = {}): Insn[] {
    this.#live();
    const wasm = this.#rt.wasm;
    const insn = this.#insn;
    const view = this.#view;
    const detail = options.detail === true;
    const text = options.text === true;
    const stopAtFlowEnd = options.stopAtFlowEnd === true;
    const max = options.maxCount ?? Infinity;
    const out: Insn[] = [];
    let pos = 0;
    // Copy the input in windows: a caller may pass the rest of a section to decode a handful of
    // instructions, and iced's decoder copies all the data it is given.
    let window = Math.min(
      MAX_WINDOW,
      Number.isFinite(max) ? max * MAX_INSN_LENGTH : stopAtFlowEnd ? 1024 : MAX_WINDOW,
    );
    let done = false;
    while (!done && pos < bytes.length && out.length < max) {
      const start = pos;
      const end = Math.min(bytes.length, start + window);
      window = Math.min(MAX_WINDOW, window * 2);
      const decoder = this.#newDecoder(bytes.subarray(start, end), address + start);
      try {
        while (pos < end && out.length < max) {
          wasm.decoder_decodeOut(decoder, insn);
          view.refresh();
          if (view.code() === CODE_INVALID) {
            if (wasm.decoder_lastError(decoder) === ERROR_NO_MORE_BYTES) {
              // Truncated by the window: decode it again from a new window; by the data: stop.
              if (end < bytes.length) break;
              done = true;
              break;
            }
            out.push({ address: address + pos, size: 1, flow: "invalid", operands: NO_OPERANDS });
            pos += 1;
            if (stopAtFlowEnd) {
              done = true;
              break;
            }
            this.#seek(decoder, pos - start, address + pos);
            continue;
          }
          const size = view.length();
          const result: Insn = {
            address: address + pos,
            size,
            flow: "seq",
            operands: NO_OPERANDS,
          };
          const flow = view.flow();
          if (flow !== FLOW_NEXT) this.#classify(result, flow, bytes, pos);
          else if (size === 1 && bytes[pos] === 0xf4) result.flow = "trap"; // hlt
          if (view.hasDisplacement()) this.#memRef(result);
          if (detail) result.operands = this.#operands.operands(result);
          if (text) {
            const t = this.#text();
            result.mnemonic = t.mnemonic;
            result.opStr = t.opStr;
          }
          out.push(result);
          pos += size;
          if (stopAtFlowEnd && endsFlow(result.flow)) {
            done = true;
            break;
          }
        }
      } finally {
        wasm.__wbg_decoder_free(decoder);
      }
    }
    return out;
  }

  format(bytes: Uint8Array, address: number, insn: Insn): InsnText {
    this.#live();
    const offset = insn.address - address;
    if (offset < 0 || offset >= bytes.length) {
      throw new RangeError(`Instruction at 0x${insn.address.toString(16)} is outside the bytes`);
    }
    if (insn.flow === "invalid") return invalidText(bytes.subarray(offset, offset + insn.size));
    const slice = bytes.subarray(offset, Math.min(bytes.length, offset + MAX_INSN_LENGTH));
    if (!this.#decodeOne(slice, insn.address)) return invalidText(slice.subarray(0, 1));
    return this.#text();
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const wasm = this.#rt.wasm;
    wasm.__wbg_instruction_free(this.#insn);
    this.#operands.dispose();
    if (this.#fastFormatter !== 0) wasm.__wbg_fastformatter_free(this.#fastFormatter);
  }

  #live(): void {
    if (this.#disposed) throw new RangeError("Decoder used after dispose()");
  }

  #newDecoder(bytes: Uint8Array, ip: number): number {
    const rt = this.#rt;
    const data = rt.passBytes(bytes);
    const ret = rt.pushSlot();
    try {
      rt.wasm.decoder_new(ret, this.#bits, data, bytes.length, 0);
      rt.check(ret, 2);
      const decoder = rt.i32(ret) >>> 0;
      rt.wasm.decoder_set_ip(decoder, BigInt(ip));
      return decoder;
    } finally {
      rt.popSlot();
    }
  }

  /** Decode the first instruction of `bytes` into the reused instruction; false if invalid. */
  #decodeOne(bytes: Uint8Array, ip: number): boolean {
    const wasm = this.#rt.wasm;
    const decoder = this.#newDecoder(bytes, ip);
    try {
      wasm.decoder_decodeOut(decoder, this.#insn);
      return wasm.instruction_code(this.#insn) !== CODE_INVALID;
    } finally {
      wasm.__wbg_decoder_free(decoder);
    }
  }

  #seek(decoder: number, position: number, ip: number): void {
    const rt = this.#rt;
    const ret = rt.pushSlot();
    try {
      rt.wasm.decoder_set_position(ret, decoder, position);
      rt.check(ret, 1);
    } finally {
      rt.popSlot();
    }
    rt.wasm.decoder_set_ip(decoder, BigInt(ip));
  }

  #classify(result: Insn, flow: number, bytes: Uint8Array, pos: number): void {
    switch (flow) {
      case FLOW_JUMP:
      case FLOW_CALL:
      case FLOW_COND_JUMP: {
        const target = this.#branchTarget();
        if (target === 0 && this.#operands.opKind(0) > OP_NEAR_BRANCH_LAST) {
          // A far branch (ptr16:32): its target is outside the flat address space.
          result.flow = flow === FLOW_CALL ? "icall" : "ijump";
          return;
        }
        result.flow = flow === FLOW_JUMP ? "jump" : flow === FLOW_CALL ? "call" : "cjump";
        result.target = target;
        return;
      }
      case FLOW_INDIRECT_JUMP:
        result.flow = "ijump";
        return;
      case FLOW_INDIRECT_CALL:
        result.flow = "icall";
        return;
      case FLOW_RETURN:
        result.flow = "ret";
        return;
      case FLOW_EXCEPTION:
        result.flow = "trap";
        return;
      case FLOW_INTERRUPT:
        // int3 and int1 stop; int n, into, syscall, sysenter return to the next instruction.
        if (result.size === 1 && (bytes[pos] === 0xcc || bytes[pos] === 0xf1)) result.flow = "trap";
        return;
      case FLOW_XBEGIN: {
        const target = this.#branchTarget();
        if (target !== 0) {
          result.flow = "cjump";
          result.target = target;
        }
        return;
      }
    }
  }

  /** iced keeps a near branch's target where a memory operand keeps its displacement. */
  #branchTarget(): number {
    return this.#bits === 32 ? this.#view.displacementLow() : this.#view.displacement();
  }

  #memRef(result: Insn): void {
    const view = this.#view;
    const base = view.base();
    if (base === REG_RIP || base === REG_EIP) {
      // iced stores the resolved address of a RIP/EIP-relative operand as its displacement.
      result.memRef = base === REG_EIP ? view.displacementLow() : view.displacement();
      return;
    }
    if (base !== 0 || view.index() !== 0) return;
    const segment = this.#rt.wasm.instruction_memorySegment(this.#insn);
    if (segment === REG_FS || segment === REG_GS) return; // thread-local, not an address
    const value = this.#bits === 32 ? view.displacementLow() : view.displacement();
    if (value <= Number.MAX_SAFE_INTEGER) result.memRef = value;
  }

  #text(): InsnText {
    const rt = this.#rt;
    const ret = rt.pushSlot();
    try {
      rt.wasm.fastformatter_format(ret, this.#fastFormatterHandle(), this.#insn);
      const ptr = rt.i32(ret) >>> 0;
      const length = rt.i32(ret + 4) >>> 0;
      try {
        return splitText(rt.heap(), ptr, length);
      } finally {
        rt.wasm.__wbindgen_free(ptr, length, 1);
      }
    } finally {
      rt.popSlot();
    }
  }

  /**
   * iced's FastFormatter (Intel syntax, `0x` hex, sizes always shown, `rip+disp`) is about three
   * times faster than its configurable Formatter, which is kept for register names only.
   */
  #fastFormatterHandle(): number {
    if (this.#fastFormatter !== 0) return this.#fastFormatter;
    const wasm = this.#rt.wasm;
    const formatter = wasm.fastformatter_new();
    wasm.fastformatter_set_useHexPrefix(formatter, 1);
    wasm.fastformatter_set_uppercaseHex(formatter, 0);
    wasm.fastformatter_set_alwaysShowMemorySize(formatter, 1);
    wasm.fastformatter_set_spaceAfterOperandSeparator(formatter, 1);
    wasm.fastformatter_set_ripRelativeAddresses(formatter, 1);
    this.#fastFormatter = formatter;
    return formatter;
  }
}

// Prefixes iced prints before the mnemonic; they belong to it (`rep stosq`, `lock cmpxchg`).
const PREFIXES = new Set([
  "lock",
  "rep",
  "repe",
  "repne",
  "xacquire",
  "xrelease",
  "bnd",
  "notrack",
]);
const SPACE = 0x20;

/**
 * Split the formatter's ASCII output at `heap[ptr..ptr+length]` into mnemonic (with its
 * prefixes) and operands, building each string once from the bytes.
 */
function splitText(heap: Uint8Array, ptr: number, length: number): InsnText {
  const end = ptr + length;
  let wordStart = ptr;
  let split = end;
  for (let i = ptr; i < end; i++) {
    if (heap[i] !== SPACE) continue;
    if (!PREFIXES.has(ascii(heap, wordStart, i))) {
      split = i;
      break;
    }
    wordStart = i + 1;
  }
  return {
    mnemonic: ascii(heap, ptr, split),
    opStr: split < end ? ascii(heap, split + 1, end) : "",
  };
}

function ascii(heap: Uint8Array, start: number, end: number): string {
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(heap[i] ?? 0);
  return text;
}
