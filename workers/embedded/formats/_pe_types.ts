/** Shapes shared by the PE parser's parts. */

import { RemcpError } from "../../../src/errors.ts";
import { type ByteReader, hex } from "./_reader.ts";

/** A PE section header as stored. */
export interface PeSection {
  name: string;
  virtualSize: number;
  rva: number;
  rawSize: number;
  rawOffset: number;
  characteristics: number;
}

/** A data-directory entry. */
export interface PeDirectory {
  rva: number;
  size: number;
}

/** What the table parsers need from the header parser. */
export interface PeContext {
  r: ByteReader;
  is64: boolean;
  ptrSize: 4 | 8;
  machine: number;
  imageBase: number;
  sections: PeSection[];
  dirs: PeDirectory[];
  /** File offset of an RVA, when the RVA is file-backed. */
  rvaToOff(rva: number): number | undefined;
  warnings: string[];
}

export const DIR_EXPORT = 0;
export const DIR_IMPORT = 1;
export const DIR_RESOURCE = 2;
export const DIR_EXCEPTION = 3;
export const DIR_BASERELOC = 5;
export const DIR_DEBUG = 6;
export const DIR_TLS = 9;
export const DIR_LOAD_CONFIG = 10;
export const DIR_DELAY_IMPORT = 13;
export const DIR_CLR = 14;

export const IMAGE_FILE_MACHINE_I386 = 0x14c;
export const IMAGE_FILE_MACHINE_AMD64 = 0x8664;
export const IMAGE_FILE_MACHINE_ARM = 0x1c0;
export const IMAGE_FILE_MACHINE_ARMNT = 0x1c4;
export const IMAGE_FILE_MACHINE_THUMB = 0x1c2;
export const IMAGE_FILE_MACHINE_ARM64 = 0xaa64;

/** Upper bound on entries read from any one PE table. */
export const MAX_PE_ENTRIES = 2_000_000;

/** File offset of `rva`; throws `OpenFailed` when no section or header backs it. */
export function offOrThrow(ctx: PeContext, rva: number, what: string): number {
  const off = ctx.rvaToOff(rva);
  if (off === undefined) {
    throw new RemcpError("OpenFailed", `${what} at RVA ${hex(rva)} is not backed by the file`, {
      rva,
    });
  }
  return off;
}
