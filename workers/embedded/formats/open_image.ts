/** Opens any supported file: detects the format by magic and hands it to its parser. */

import { RemcpError } from "../../../src/errors.ts";
import { INTERNAL_WARNING } from "./_optional_part.ts";
import { hex } from "./_reader.ts";
import { parseElf } from "./elf.ts";
import { chooseFatSlice, isFat } from "./fat.ts";
import type { BinaryImage, OpenOptions } from "./image.ts";
import { parseMacho } from "./macho.ts";
import { parsePe } from "./pe.ts";
import { parseRaw } from "./raw.ts";
import { asSource, type ByteSource } from "./_source.ts";

/** The container format `bytes` starts with, or undefined. */
export function detectFormat(
  input: Uint8Array | ByteSource,
): "elf" | "pe" | "macho" | "fat" | undefined {
  const source = asSource(input);
  // Every magic lies in the first 8 bytes.
  const bytes = source.read(0, Math.min(8, source.length));
  if (
    bytes.length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c &&
    bytes[3] === 0x46
  ) {
    return "elf";
  }
  if (source.length >= 0x40 && bytes[0] === 0x4d && bytes[1] === 0x5a) return "pe";
  if (bytes.length >= 4) {
    const m = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    if (m === 0xfeedface || m === 0xfeedfacf || m === 0xcefaedfe || m === 0xcffaedfe) {
      return "macho";
    }
  }
  if (isFat(source)) return "fat";
  return undefined;
}

function parse(bytes: ByteSource, options: OpenOptions): BinaryImage {
  const raw = () => parseRaw(bytes, options.arch ?? "", options.base ?? 0);
  if (options.raw) {
    if (options.arch === undefined) {
      throw new RemcpError("InvalidArgument", "A raw blob needs options: {arch, base}", {});
    }
    return raw();
  }
  switch (detectFormat(bytes)) {
    case "elf":
      return parseElf(bytes);
    case "pe":
      return parsePe(bytes);
    case "macho":
      return parseMacho(bytes);
    case "fat": {
      const slice = chooseFatSlice(bytes, options.arch);
      return parseMacho(bytes, slice.offset, slice.size, {
        fat_slice: slice.arch,
        fat_offset: slice.offset,
      });
    }
    default: {
      if (options.arch !== undefined && options.base !== undefined) return raw();
      const head = bytes.read(0, Math.min(2, bytes.length));
      throw new RemcpError(
        "OpenFailed",
        `Unknown file format (first bytes ${hex(head[0] ?? 0)} ${
          hex(head[1] ?? 0)
        } at offset 0x0): it is not ELF, PE or Mach-O; to read it as a raw blob pass options: {arch, base}`,
        { offset: 0 },
      );
    }
  }
}

/**
 * Parses `bytes` (a whole file) into a {@link BinaryImage}. ELF, PE and Mach-O (thin or fat,
 * with `options.arch` choosing the slice) are detected by magic; `options.raw`, or `arch` plus
 * `base` on an unknown format, maps the file as a raw blob.
 *
 * Malformed input throws `RemcpError` `OpenFailed` (message names the offset); a fat file without
 * a chosen slice throws `AmbiguousFatBinary`. Broken optional parts are skipped and named in
 * `info.warnings`.
 */
export function openImage(
  input: Uint8Array | ByteSource,
  options: OpenOptions = {},
): BinaryImage {
  try {
    return withExportEntries(parse(asSource(input), options));
  } catch (err) {
    if (err instanceof RemcpError) throw err;
    // A parser bug must still surface as a failed open naming the file part, not a crash.
    const msg = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new RemcpError(
      "OpenFailed",
      `Cannot parse the file (${INTERNAL_WARNING}: ${msg}) at offset 0x0`,
      {
        offset: 0,
        internal: true,
      },
    );
  }
}

/**
 * Whether `image` is a shared library: a DLL, a Mach-O dylib or bundle, or an ELF shared object
 * that is not a position-independent executable (no DF_1_PIE flag, and either no interpreter or
 * a soname: libc.so.6 has both and is still a library).
 */
export function isSharedLibrary(image: BinaryImage): boolean {
  const info = image.info;
  switch (image.format) {
    case "pe":
      return info.dll === true;
    case "macho":
      return info.filetype === "dylib" || info.filetype === "bundle";
    case "elf":
      return info.elf_type === "DYN" && info.pie !== true &&
        (info.interpreter === undefined || info.soname !== undefined);
    default:
      return false;
  }
}

/**
 * A library's exported functions are where other modules enter it: list them as entry points
 * (kind "export"), as IDA and Ghidra do. Exports of data and forwarders are not code.
 */
function withExportEntries(image: BinaryImage): BinaryImage {
  if (!isSharedLibrary(image)) return image;
  const known = new Set(image.entryPoints.map((e) => e.address));
  for (const e of image.exports) {
    if (e.forwarder !== undefined || known.has(e.address)) continue;
    if (image.sectionAt(e.address)?.kind !== "code") continue;
    known.add(e.address);
    image.entryPoints.push({ name: e.name, address: e.address, kind: "export" });
  }
  return image;
}
