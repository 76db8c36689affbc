/**
 * The in-memory model every format parser produces: one shape for ELF, PE, Mach-O and raw blobs,
 * so analysis code never branches on the container format.
 *
 * Addresses are JS numbers. Images with addresses at or above 2^53 are refused when opened
 * (a known limitation) rather than silently rounded.
 */

/** Instruction-set architectures the embedded engine can disassemble. */
export type Arch =
  | "x86"
  | "x86_64"
  | "arm"
  | "aarch64"
  | "mips"
  | "mips64"
  | "ppc"
  | "ppc64"
  | "riscv32"
  | "riscv64";

/** A contiguous mapped range of the image (ELF PT_LOAD, Mach-O segment, PE section/header). */
export interface Segment {
  name: string;
  start: number;
  /** Exclusive. */
  end: number;
  fileOffset: number;
  /** Bytes backed by the file; the rest up to `end` reads as zeros. */
  fileSize: number;
  /** "r-x" style. */
  perms: string;
}

/**
 * A named section. Sections not loaded at run time (ELF non-alloc sections such as `.symtab`)
 * have `start === end === 0`, kind "other" and their file extent in `fileOffset`/`fileSize`.
 */
export interface Section {
  name: string;
  start: number;
  end: number;
  fileOffset: number;
  /** 0 for bss-like sections. */
  fileSize: number;
  perms: string;
  kind: "code" | "data" | "rodata" | "bss" | "other";
  /** Name of the segment holding the section, when one does. */
  segment?: string;
}

/** A symbol from one of the image's symbol tables. */
export interface SymbolEntry {
  name: string;
  address: number;
  /** 0 when unknown. */
  size: number;
  kind: "function" | "object" | "other";
  /** "symtab" | "dynsym" | "export" | "macho-symtab" | "coff" … */
  source: string;
  global: boolean;
}

/** A function or object the image takes from another module. */
export interface ImportEntry {
  name: string;
  library?: string;
  ordinal?: number;
  /** Where code calls: PLT stub / Mach-O stub, or the IAT/GOT slot when there is no stub. */
  address: number;
  /** GOT/IAT/lazy pointer address. */
  slot?: number;
  delayLoad?: boolean;
}

/** A symbol the image offers to other modules. */
export interface ExportEntry {
  name: string;
  address: number;
  ordinal?: number;
  /** "OTHERDLL.Name" for PE forwarders, or the re-exported name for Mach-O re-exports. */
  forwarder?: string;
}

/** A place the loader transfers control to. */
export interface EntryPoint {
  name: string;
  address: number;
  /** `export`: an exported function of a shared library (its entry points for other modules). */
  kind: "entry" | "init" | "fini" | "tls" | "main" | "export";
  /** ARM: the address's low bit was set (Thumb code) or clear (A32), when the file gave one. */
  thumb?: boolean;
}

/**
 * A function start (and end when known) taken from unwind or function-start tables.
 * `arm_exidx` (ARM EHABI `.ARM.exidx`) is an addition to the original three sources.
 */
export interface FunctionHint {
  start: number;
  end?: number;
  source: "eh_frame" | "pdata" | "function_starts" | "arm_exidx";
}

/** A load-time fixup: `address` is patched with `target` or with the address of `symbol`. */
export interface Relocation {
  address: number;
  target?: number;
  symbol?: string;
  /** Format-specific relocation type number. */
  type: number;
}

/** A parsed executable image with virtual-memory reads. */
export interface BinaryImage {
  format: "elf" | "pe" | "macho" | "raw";
  arch: Arch;
  bits: 32 | 64;
  endian: "little" | "big";
  /** ARM: the entry point runs in Thumb mode. Per-address answers come from {@link isThumb}. */
  thumb?: boolean;
  entry?: number;
  imageBase: number;
  fileSize: number;
  segments: Segment[];
  sections: Section[];
  symbols: SymbolEntry[];
  imports: ImportEntry[];
  exports: ExportEntry[];
  entryPoints: EntryPoint[];
  functionHints: FunctionHint[];
  relocations: Relocation[];
  /**
   * Format-specific facts, JSON-serializable. Always holds `warnings: string[]` naming optional
   * parts that were skipped because they were malformed.
   */
  info: Record<string, unknown>;
  /** Virtual read: bytes mapped at [addr, addr+len); zero-filled for bss; undefined when any byte is unmapped. */
  read(addr: number, len: number): Uint8Array | undefined;
  /** Largest mapped run starting at addr (≤ max), for disassembly. */
  readUpTo(addr: number, max: number): Uint8Array;
  /**
   * Copies the mapped run at `addr` (at most `out.length` bytes, zeros where the file backs
   * none) into `out` and returns its length: {@link readUpTo} into a buffer the caller reuses.
   */
  readInto(addr: number, out: Uint8Array): number;
  isMapped(addr: number): boolean;
  addrToOffset(addr: number): number | undefined;
  offsetToAddr(offset: number): number | undefined;
  sectionAt(addr: number): Section | undefined;
  segmentAt(addr: number): Segment | undefined;
  /**
   * ARM only: whether code at `addr` is Thumb, from mapping symbols, Thumb function symbols and
   * the entry mode. Absent on other architectures.
   */
  isThumb?(addr: number): boolean;
  /**
   * ARM only: {@link isThumb} answers from marks that decide every address (ELF mapping
   * symbols, Mach-O function starts, a PE or a raw blob's single mode). Without them it can
   * only give the entry point's mode, and the analysis learns modes of its own.
   */
  armModesKnown?: boolean;
}

/** Options for opening a file. */
export interface OpenOptions {
  /** Architecture for raw blobs, or the slice to open in a fat Mach-O ("x86_64", "arm64", …). */
  arch?: string;
  /** Load address for raw blobs. */
  base?: number;
  /** Treat the file as a raw blob even when its magic is recognised. */
  raw?: boolean;
}
