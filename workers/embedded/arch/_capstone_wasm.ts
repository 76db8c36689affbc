/**
 * Capstone 5 compiled to WebAssembly (from `@alexaltea/capstone-js` 5.0.9), instantiated from
 * bytes imported at build time and called through its raw C exports.
 *
 * The package's JS wrapper reads `cs_detail` at Capstone 4 offsets (so operands come back
 * empty) and fetches `capstone.wasm` from its own folder at run time; neither survives bundling.
 * The emscripten module needs only three imports (heap growth, and `fd_write`/`fd_close` for a
 * stdio Capstone never uses), so it is instantiated directly. Its exports are minified: the
 * names below are the package's `assignWasmExports` table for this build, and the arity check in
 * `bindExports` plus the version check catch a mismatched build.
 */

import capstoneWasm from "@alexaltea/capstone-js/dist/capstone.wasm" with { type: "bytes" };
import { RemcpError } from "../../../src/errors.ts";
import { type Arities, bindExports, exportedMemory } from "./_wasm_exports.ts";

/** The raw Capstone C API (wasm32: pointers and `size_t` are 32-bit, `uint64_t` is a bigint). */
export interface CapstoneExports {
  cs_version(major: number, minor: number): number;
  cs_open(arch: number, mode: number, handle: number): number;
  cs_close(handle: number): number;
  cs_option(handle: number, type: number, value: number): number;
  cs_malloc(handle: number): number;
  cs_free(insn: number, count: number): void;
  cs_disasm_iter(handle: number, code: number, size: number, address: number, insn: number): number;
  cs_reg_name(handle: number, reg: number): number;
  cs_insn_name(handle: number, id: number): number;
  cs_strerror(code: number): number;
  malloc(size: number): number;
  free(ptr: number): void;
  __wasm_call_ctors(): void;
}

// Minified export name of each function in this build of capstone.wasm.
const EXPORT_NAMES: Record<keyof CapstoneExports, string> = {
  cs_version: "f",
  cs_open: "j",
  cs_close: "k",
  cs_option: "l",
  cs_malloc: "o",
  cs_free: "n",
  cs_disasm_iter: "p",
  cs_reg_name: "q",
  cs_insn_name: "r",
  cs_strerror: "i",
  malloc: "z",
  free: "A",
  __wasm_call_ctors: "e",
};

const ARITIES: Arities<CapstoneExports> = {
  cs_version: 2,
  cs_open: 3,
  cs_close: 1,
  cs_option: 3,
  cs_malloc: 1,
  cs_free: 2,
  cs_disasm_iter: 5,
  cs_reg_name: 2,
  cs_insn_name: 2,
  cs_strerror: 1,
  malloc: 1,
  free: 1,
  __wasm_call_ctors: 0,
};

const WASM_PAGE = 65536;
const MAX_HEAP = 2 ** 31;

/** A live Capstone instance. */
export interface CapstoneRuntime {
  readonly cs: CapstoneExports;
  readonly memory: WebAssembly.Memory;
  /** The NUL-terminated ASCII string at `ptr`. */
  cString(ptr: number): string;
  /** `malloc`, throwing when the heap is exhausted. */
  alloc(size: number): number;
}

/** Instantiate a fresh Capstone module (each decoder owns one, so disposal frees everything). */
export async function loadCapstone(): Promise<CapstoneRuntime> {
  // The heap-growth import runs before instantiation returns the memory it grows.
  const late: { memory?: WebAssembly.Memory } = {};
  const imports = {
    a: {
      // fd_write / fd_close: Capstone prints nothing; report success without writing.
      a: () => 0,
      c: () => 0,
      // emscripten_resize_heap(requestedSize): grow to at least the requested byte size.
      b: (requested: number) => {
        const memory = late.memory;
        if (!memory) return 0;
        const wanted = requested >>> 0;
        if (wanted > MAX_HEAP) return 0;
        const current = memory.buffer.byteLength;
        const target = Math.min(MAX_HEAP, Math.max(wanted, Math.ceil(current * 1.5)));
        try {
          memory.grow(Math.ceil((target - current) / WASM_PAGE));
          return 1;
        } catch {
          return 0;
        }
      },
    },
  };
  let instance: WebAssembly.Instance;
  try {
    instance = (await WebAssembly.instantiate(capstoneWasm, imports)).instance;
  } catch (error) {
    throw new RemcpError("Internal", `Cannot load Capstone: ${String(error)}`, {});
  }
  const renamed: Record<string, WebAssembly.ExportValue> = {};
  for (const [name, minified] of Object.entries(EXPORT_NAMES)) {
    const value = instance.exports[minified];
    if (value !== undefined) renamed[name] = value;
  }
  const cs = bindExports<CapstoneExports>(renamed, ARITIES, "Capstone");
  const mem = exportedMemory(instance.exports, "d", "Capstone");
  late.memory = mem;
  cs.__wasm_call_ctors();
  const version = cs.cs_version(0, 0);
  if (version >> 8 !== 5) {
    throw new RemcpError("Internal", `Cannot load Capstone: version ${version >> 8} is not 5`, {
      version,
    });
  }
  return {
    cs,
    memory: mem,
    cString(ptr) {
      const heap = new Uint8Array(mem.buffer);
      let end = ptr;
      while (heap[end] !== 0 && end < heap.length) end++;
      return String.fromCharCode(...heap.subarray(ptr, end));
    },
    alloc(size) {
      const ptr = cs.malloc(size) >>> 0;
      if (ptr === 0) {
        throw new RemcpError("Unavailable", "Capstone is out of memory", { bytes: size });
      }
      return ptr;
    },
  };
}
