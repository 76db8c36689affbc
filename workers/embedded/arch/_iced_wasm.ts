/**
 * iced-x86's WebAssembly module, instantiated from bytes imported at build time and called
 * through its raw exports.
 *
 * The npm package's own JS reads `iced_x86_bg.wasm` from `__dirname` with `fs` when imported,
 * which breaks once the program is bundled into one file. Its wasm-bindgen glue is therefore
 * replaced by the few calls used here, following the ABI of iced-x86 1.21.0: functions that
 * return a `Result` or a `String` take a return-slot pointer first (allocated by moving the
 * shadow stack pointer), and strings handed back must be freed with `__wbindgen_free`.
 */

import icedWasm from "iced-x86/iced_x86_bg.wasm" with { type: "bytes" };
import { RemcpError } from "../../../src/errors.ts";
import { type Arities, bindExports, exportedMemory } from "./_wasm_exports.ts";

/** The raw iced-x86 exports this folder calls. */
export interface IcedExports {
  __wbindgen_add_to_stack_pointer(delta: number): number;
  __wbindgen_malloc(size: number, align: number): number;
  __wbindgen_free(ptr: number, size: number, align: number): void;
  decoder_new(ret: number, bitness: number, data: number, length: number, options: number): void;
  __wbg_decoder_free(decoder: number): void;
  decoder_set_ip(decoder: number, ip: bigint): void;
  decoder_set_position(ret: number, decoder: number, position: number): void;
  decoder_decodeOut(decoder: number, insn: number): void;
  decoder_lastError(decoder: number): number;
  instruction_new(): number;
  __wbg_instruction_free(insn: number): void;
  instruction_length(insn: number): number;
  instruction_code(insn: number): number;
  instruction_flowControl(insn: number): number;
  instruction_nearBranchTarget(insn: number): bigint;
  instruction_farBranch32(insn: number): number;
  instruction_ipRelMemoryAddress(insn: number): bigint;
  instruction_memoryBase(insn: number): number;
  instruction_memoryIndex(insn: number): number;
  instruction_memoryIndexScale(insn: number): number;
  instruction_memoryDisplacement(insn: number): bigint;
  instruction_memoryDisplSize(insn: number): number;
  instruction_memorySegment(insn: number): number;
  instruction_memorySize(insn: number): number;
  instruction_opCount(insn: number): number;
  instruction_opKind(ret: number, insn: number, operand: number): void;
  instruction_opRegister(ret: number, insn: number, operand: number): void;
  instruction_immediate(ret: number, insn: number, operand: number): void;
  memorysizeext_size(memorySize: number): number;
  registerext_size(register: number): number;
  instructioninfofactory_new(): number;
  __wbg_instructioninfofactory_free(factory: number): void;
  instructioninfofactory_infoOptions(factory: number, insn: number, options: number): number;
  __wbg_instructioninfo_free(info: number): void;
  instructioninfo_opAccess(ret: number, info: number, operand: number): void;
  fastformatter_new(): number;
  __wbg_fastformatter_free(formatter: number): void;
  fastformatter_format(ret: number, formatter: number, insn: number): void;
  fastformatter_set_useHexPrefix(formatter: number, value: number): void;
  fastformatter_set_uppercaseHex(formatter: number, value: number): void;
  fastformatter_set_alwaysShowMemorySize(formatter: number, value: number): void;
  fastformatter_set_spaceAfterOperandSeparator(formatter: number, value: number): void;
  fastformatter_set_ripRelativeAddresses(formatter: number, value: number): void;
  formatter_new(ret: number, syntax: number): void;
  __wbg_formatter_free(formatter: number): void;
  formatter_formatRegister(ret: number, formatter: number, register: number): void;
}

const ARITIES: Arities<IcedExports> = {
  __wbindgen_add_to_stack_pointer: 1,
  __wbindgen_malloc: 2,
  __wbindgen_free: 3,
  decoder_new: 5,
  __wbg_decoder_free: 1,
  decoder_set_ip: 2,
  decoder_set_position: 3,
  decoder_decodeOut: 2,
  decoder_lastError: 1,
  instruction_new: 0,
  __wbg_instruction_free: 1,
  instruction_length: 1,
  instruction_code: 1,
  instruction_flowControl: 1,
  instruction_nearBranchTarget: 1,
  instruction_farBranch32: 1,
  instruction_ipRelMemoryAddress: 1,
  instruction_memoryBase: 1,
  instruction_memoryIndex: 1,
  instruction_memoryIndexScale: 1,
  instruction_memoryDisplacement: 1,
  instruction_memoryDisplSize: 1,
  instruction_memorySegment: 1,
  instruction_memorySize: 1,
  instruction_opCount: 1,
  instruction_opKind: 3,
  instruction_opRegister: 3,
  instruction_immediate: 3,
  memorysizeext_size: 1,
  registerext_size: 1,
  instructioninfofactory_new: 0,
  __wbg_instructioninfofactory_free: 1,
  instructioninfofactory_infoOptions: 3,
  __wbg_instructioninfo_free: 1,
  instructioninfo_opAccess: 3,
  fastformatter_new: 0,
  __wbg_fastformatter_free: 1,
  fastformatter_format: 3,
  fastformatter_set_useHexPrefix: 2,
  fastformatter_set_uppercaseHex: 2,
  fastformatter_set_alwaysShowMemorySize: 2,
  fastformatter_set_spaceAfterOperandSeparator: 2,
  fastformatter_set_ripRelativeAddresses: 2,
  formatter_new: 2,
  __wbg_formatter_free: 1,
  formatter_formatRegister: 3,
};

/** A live iced-x86 instance: its exports and the little glue they need. */
export interface IcedRuntime {
  readonly wasm: IcedExports;
  readonly memory: WebAssembly.Memory;
  /** Reserve a 16-byte return slot on the shadow stack; pair with {@link IcedRuntime.popSlot}. */
  pushSlot(): number;
  popSlot(): void;
  /** The WASM heap (a fresh view if it grew). */
  heap(): Uint8Array;
  /** The i32 at `ptr`. */
  i32(ptr: number): number;
  /** The i64 at `ptr` (8-aligned). */
  i64(ptr: number): bigint;
  /** Throw the pending error when a `Result` return slot at `ret` holds one at word `word`. */
  check(ret: number, word: number): void;
  /** Copy `bytes` into WASM memory allocated with the module's allocator; ownership moves on. */
  passBytes(bytes: Uint8Array): number;
  /** Read, then free, a `String` returned in slot `ret`. */
  takeString(ret: number): string;
}

/** Instantiate a fresh iced-x86 module (each decoder owns one, so disposal frees everything). */
export async function loadIced(): Promise<IcedRuntime> {
  // wasm-bindgen passes JS objects (only errors, here) to WASM as indexes into this table; the
  // first 132 indexes are reserved for its constants (undefined, null, true, false).
  const objects: unknown[] = new Array(132).fill(undefined);
  // Imports may run before instantiation returns the memory they read.
  const late: { memory?: WebAssembly.Memory } = {};
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const readUtf8 = (ptr: number, length: number): string =>
    utf8.decode(new Uint8Array(mem().buffer, ptr, length));
  const mem = (): WebAssembly.Memory => {
    if (!late.memory) throw new RangeError("iced-x86 memory used before instantiation");
    return late.memory;
  };
  const unsupported = (): never => {
    throw new RangeError("iced-x86 called a JS import this glue does not provide");
  };
  const imports = {
    __wbindgen_placeholder__: {
      __wbindgen_object_drop_ref: (index: number) => {
        objects[index] = undefined;
      },
      __wbg_new_3a66822ed076951c: (ptr: number, length: number) =>
        objects.push(new Error(readUtf8(ptr, length))) - 1,
      __wbg_new_34c624469fb1d4fd: unsupported,
      __wbg_push_906164999551d793: unsupported,
      __wbg_usedregister_new: unsupported,
      __wbg_usedmemory_new: unsupported,
      __wbg_instruction_new: unsupported,
      __wbindgen_throw: (ptr: number, length: number) => {
        throw new Error(readUtf8(ptr, length));
      },
    },
  };
  let instance: WebAssembly.Instance;
  try {
    instance = (await WebAssembly.instantiate(icedWasm, imports)).instance;
  } catch (error) {
    throw new RemcpError("Internal", `Cannot load iced-x86: ${String(error)}`, {});
  }
  const m = exportedMemory(instance.exports, "memory", "iced-x86");
  late.memory = m;
  const wasm = bindExports<IcedExports>(instance.exports, ARITIES, "iced-x86");
  // Views are re-created only when the heap grows (growth detaches the old buffer).
  let u8 = new Uint8Array(m.buffer);
  let view = new DataView(m.buffer);
  const fresh = (): void => {
    if (u8.byteLength !== 0) return; // a detached (grown-from) buffer has length 0

    u8 = new Uint8Array(m.buffer);
    view = new DataView(m.buffer);
  };
  const i32 = (ptr: number): number => {
    fresh();
    return view.getInt32(ptr, true);
  };
  return {
    wasm,
    memory: m,
    pushSlot: () => wasm.__wbindgen_add_to_stack_pointer(-16),
    popSlot: () => {
      wasm.__wbindgen_add_to_stack_pointer(16);
    },
    heap: () => {
      fresh();
      return u8;
    },
    i32,
    i64: (ptr) => {
      fresh();
      return view.getBigInt64(ptr, true);
    },
    check(ret, word) {
      if (i32(ret + 4 * word) === 0) return;
      const index = i32(ret + 4 * (word - 1));
      const error = objects[index];
      objects[index] = undefined;
      throw error instanceof Error ? error : new Error("iced-x86 failed");
    },
    passBytes(bytes) {
      const ptr = wasm.__wbindgen_malloc(bytes.length, 1) >>> 0;
      fresh();
      u8.set(bytes, ptr);
      return ptr;
    },
    takeString(ret) {
      const ptr = i32(ret) >>> 0;
      const length = i32(ret + 4) >>> 0;
      // Formatter output is short ASCII; building it directly beats TextDecoder on small strings.
      const text = asciiOrUtf8(u8, ptr, length, readUtf8);
      wasm.__wbindgen_free(ptr, length, 1);
      return text;
    },
  };
}

/**
 * Formatter output is short ASCII. Deno's TextDecoder costs more per call than building such a
 * string by char codes, so do that and fall back to UTF-8 decoding for anything else.
 */
function asciiOrUtf8(
  u8: Uint8Array,
  ptr: number,
  length: number,
  utf8: (ptr: number, length: number) => string,
): string {
  let text = "";
  for (let i = 0; i < length; i++) {
    const c = u8[ptr + i] ?? 0;
    if (c >= 0x80) return utf8(ptr, length);
    text += String.fromCharCode(c);
  }
  return text;
}
