/**
 * ARM/Thumb, AArch64, MIPS, PowerPC and RISC-V decoding with Capstone 5 (WASM). Decodes with
 * `cs_disasm_iter` into one `cs_malloc`ed instruction and reads it in place; detail is always
 * on (flow needs operands), text and operand objects are built only when asked for.
 */

import { endsFlow, invalidText } from "./_common.ts";
import { type FlowContext, hasDelaySlot, riscvHasRelativeTarget } from "./_capstone_flow.ts";
import { CsInsnView, OP_FP, OP_IMM, OP_MEM, OP_REG } from "./_capstone_insn.ts";
import { type CapstoneOptions, CS_ARCH_PPC, type Target, target } from "./_capstone_targets.ts";
import { type CapstoneRuntime, loadCapstone } from "./_capstone_wasm.ts";
import { RemcpError } from "../../../src/errors.ts";
import {
  type Arch,
  type DecodeOptions,
  type Decoder,
  type Insn,
  type InsnText,
  NO_OPERANDS,
  type Operand,
} from "./types.ts";

const CS_OPT_DETAIL = 2;
const CS_OPT_ON = 3;
const PPC_OP_CRX = 64;
const MAX_WINDOW = 1 << 22;

/** Create a Capstone decoder for `arch`. */
export async function createCapstoneDecoder(
  arch: Arch,
  options: CapstoneOptions,
): Promise<Decoder> {
  const t = target(arch, options);
  return new CapstoneDecoder(await loadCapstone(), arch, t, options);
}

class CapstoneDecoder implements Decoder {
  readonly arch: Arch;
  readonly mode: string;
  readonly #rt: CapstoneRuntime;
  readonly #target: Target;
  readonly #ctx: FlowContext;
  readonly #handle: number;
  readonly #handlePtr: number;
  readonly #insn: number;
  readonly #view: CsInsnView;
  /** code**, size_t*, uint64_t* for cs_disasm_iter. */
  readonly #cursor: number;
  #buffer = 0;
  #capacity = 0;
  #disposed = false;

  constructor(rt: CapstoneRuntime, arch: Arch, t: Target, options: CapstoneOptions) {
    this.arch = arch;
    this.mode = t.mode;
    this.#rt = rt;
    this.#target = t;
    this.#ctx = {
      thumb: options.thumb,
      bits: options.bits,
      bigEndian: options.bigEndian,
      bytes: new Uint8Array(0),
      pos: 0,
    };
    const cs = rt.cs;
    this.#handlePtr = rt.alloc(8);
    const opened = cs.cs_open(t.csArch, t.csMode, this.#handlePtr);
    if (opened !== 0) {
      throw new RemcpError("Unsupported", `Capstone cannot open ${arch} (${t.mode})`, {
        arch,
        mode: t.mode,
        error: rt.cString(cs.cs_strerror(opened) >>> 0),
      });
    }
    this.#handle = new DataView(rt.memory.buffer).getUint32(this.#handlePtr, true);
    cs.cs_option(this.#handle, CS_OPT_DETAIL, CS_OPT_ON);
    this.#insn = cs.cs_malloc(this.#handle) >>> 0;
    this.#cursor = rt.alloc(16);
    this.#view = new CsInsnView(rt, this.#handle, t.layout, this.#insn);
  }

  decode(bytes: Uint8Array, address: number, options: DecodeOptions = {}): Insn[] {
    this.#live();
    const t = this.#target;
    const cs = this.#rt.cs;
    const v = this.#view;
    const ctx = this.#ctx;
    const detail = options.detail === true;
    const text = options.text === true;
    const stopAtFlowEnd = options.stopAtFlowEnd === true;
    const max = options.maxCount ?? Infinity;
    const out: Insn[] = [];
    ctx.bytes = bytes;
    let pos = 0;
    let window = Math.min(
      MAX_WINDOW,
      Number.isFinite(max) ? max * t.maxSize : stopAtFlowEnd ? 1024 : MAX_WINDOW,
    );
    // Set after a branch with a delay slot ends the flow: stop after one more instruction.
    let stopAfterNext = false;
    let done = false;
    try {
      while (!done && pos < bytes.length && out.length < max) {
        const start = pos;
        const end = Math.min(bytes.length, start + window);
        window = Math.min(MAX_WINDOW, window * 2);
        const buffer = this.#load(bytes.subarray(start, end));
        this.#seek(buffer, end - start, address + start);
        while (pos < end && out.length < max) {
          if (
            cs.cs_disasm_iter(
              this.#handle,
              this.#cursor,
              this.#cursor + 4,
              this.#cursor + 8,
              this.#insn,
            ) === 0
          ) {
            if (end - pos < t.maxSize) {
              // Maybe an instruction cut by the window (decode it from the next) or the data.
              if (end < bytes.length) break;
              done = true;
              break;
            }
            const missed = this.#missed(bytes, pos);
            out.push({
              address: address + pos,
              size: t.align,
              flow: missed ? "seq" : "invalid",
              operands: NO_OPERANDS,
            });
            pos += t.align;
            if (stopAfterNext || (stopAtFlowEnd && !missed)) {
              done = true;
              break;
            }
            this.#seek(buffer + (pos - start), end - pos, address + pos);
            continue;
          }
          v.load(address + pos);
          ctx.pos = pos;
          const result: Insn = {
            address: v.address,
            size: v.size,
            flow: "seq",
            operands: NO_OPERANDS,
          };
          t.classify(v, result, ctx);
          if (detail) result.operands = this.#operands(result);
          if (text) {
            const formatted = this.#text(result);
            result.mnemonic = formatted.mnemonic;
            result.opStr = formatted.opStr;
          }
          out.push(result);
          pos += v.size;
          if (stopAfterNext) {
            done = true;
            break;
          }
          if (stopAtFlowEnd && endsFlow(result.flow)) {
            if (t.delaySlots && result.flow !== "trap" && hasDelaySlot(v)) {
              stopAfterNext = true;
              continue;
            }
            done = true;
            break;
          }
        }
      }
    } finally {
      ctx.bytes = new Uint8Array(0);
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
    const slice = bytes.subarray(offset, offset + Math.max(insn.size, this.#target.maxSize));
    const [decoded] = this.decode(slice, insn.address, { maxCount: 1, text: true });
    if (!decoded || decoded.mnemonic === undefined || decoded.opStr === undefined) {
      return invalidText(slice.subarray(0, this.#target.align));
    }
    return { mnemonic: decoded.mnemonic, opStr: decoded.opStr };
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const cs = this.#rt.cs;
    cs.cs_free(this.#insn, 1);
    cs.cs_close(this.#handlePtr);
    if (this.#buffer !== 0) cs.free(this.#buffer);
    cs.free(this.#cursor);
    cs.free(this.#handlePtr);
  }

  #live(): void {
    if (this.#disposed) throw new RangeError("Decoder used after dispose()");
  }

  /** Copy `bytes` into the reusable input buffer, growing it as needed. */
  /** Whether the word at `bytes[pos]` is an instruction Capstone rejects but the ISA has. */
  #missed(bytes: Uint8Array, pos: number): boolean {
    const missed = this.#target.missed;
    if (missed === undefined || pos + 4 > bytes.length) return false;
    const b = bytes.subarray(pos, pos + 4);
    const word = this.#ctx.bigEndian
      ? ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0
      : ((b[3]! << 24) | (b[2]! << 16) | (b[1]! << 8) | b[0]!) >>> 0;
    return missed(word);
  }

  #load(bytes: Uint8Array): number {
    if (bytes.length > this.#capacity) {
      if (this.#buffer !== 0) this.#rt.cs.free(this.#buffer);
      this.#buffer = 0;
      this.#capacity = Math.max(bytes.length, 4096);
      this.#buffer = this.#rt.alloc(this.#capacity);
    }
    this.#view.refresh();
    new Uint8Array(this.#rt.memory.buffer, this.#buffer, bytes.length).set(bytes);
    return this.#buffer;
  }

  #seek(code: number, size: number, address: number): void {
    const view = new DataView(this.#rt.memory.buffer);
    view.setUint32(this.#cursor, code, true);
    view.setUint32(this.#cursor + 4, size, true);
    view.setBigUint64(this.#cursor + 8, BigInt(address), true);
  }

  #text(result: Insn): InsnText {
    const v = this.#view;
    const mnemonic = v.mnemonic();
    let opStr = v.opStr();
    if (this.#target.riscv && result.target !== undefined && riscvHasRelativeTarget(v.name())) {
      // Capstone prints RISC-V branch offsets; show the absolute target like other arches.
      const comma = opStr.lastIndexOf(", ");
      opStr = `${comma < 0 ? "" : opStr.slice(0, comma + 2)}0x${result.target.toString(16)}`;
    }
    return { mnemonic, opStr };
  }

  #operands(result: Insn): Operand[] {
    const v = this.#view;
    const n = v.opCount();
    const operands: Operand[] = [];
    for (let i = 0; i < n; i++) {
      const type = v.opType(i);
      let operand: Operand;
      if (type === OP_REG) operand = { kind: "reg", reg: v.regName(v.reg(i)) };
      else if (type === OP_IMM) operand = { kind: "imm", imm: v.imm(i) };
      else if (type === OP_MEM) {
        operand = { kind: "mem", disp: v.memDisp(i) };
        const base = v.reg(i);
        const index = v.memIndex(i);
        if (base !== 0) operand.base = v.regName(base);
        if (index !== 0) {
          operand.index = v.regName(index);
          operand.scale = v.memScale(i);
        }
      } else if (type === OP_FP) operand = { kind: "imm", imm: v.fp(i) };
      else if (type === PPC_OP_CRX && this.#target.csArch === CS_ARCH_PPC) {
        operand = { kind: "reg", reg: v.regName(v.word(i, 4)) };
      } else operand = { kind: "imm", imm: v.word(i, 0) };
      const access = v.access(i) & 3;
      if (access !== 0) operand.access = access === 1 ? "r" : access === 2 ? "w" : "rw";
      operands.push(operand);
    }
    if (this.#target.riscv) riscvOperands(operands, v, result);
    return operands;
  }
}

/**
 * Capstone 5 reports RISC-V `ld a0, 8(sp)` as reg, imm, reg and branch offsets relative to the
 * instruction; make them a memory operand and an absolute target like the other arches.
 */
function riscvOperands(operands: Operand[], v: CsInsnView, result: Insn): void {
  const last = operands.length - 1;
  const disp = operands[last - 1];
  const base = operands[last];
  if (
    disp?.kind === "imm" && base?.kind === "reg" && base.reg !== undefined &&
    disp.imm !== undefined && v.opStr().includes("(")
  ) {
    operands.splice(last - 1, 2, { kind: "mem", base: base.reg, disp: disp.imm });
    return;
  }
  const tail = operands[last];
  if (tail?.kind === "imm" && result.target !== undefined && riscvHasRelativeTarget(v.name())) {
    tail.imm = result.target;
  }
}
