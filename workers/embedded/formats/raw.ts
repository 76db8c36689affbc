/**
 * Raw blobs (firmware, shellcode, memory dumps) mapped as one rwx segment at a given base, read
 * from the file when asked rather than held.
 */

import { RemcpError } from "../../../src/errors.ts";
import { makeImage } from "./_mapped_image.ts";
import { asSource, type ByteSource } from "./_source.ts";
import { knownArchNames, parseArchName } from "./arch_names.ts";
import type { BinaryImage } from "./image.ts";

/** Maps `bytes` at `base` as code of architecture `arch` ("x86_64", "arm64", "thumb", "mipsel", …). */
export function parseRaw(
  input: Uint8Array | ByteSource,
  arch: string,
  base: number,
): BinaryImage {
  const bytes = asSource(input);
  const spec = parseArchName(arch);
  if (!spec) {
    throw new RemcpError(
      "InvalidArgument",
      `Unknown architecture "${arch}": use one of ${knownArchNames().join(", ")}`,
      { arch },
    );
  }
  if (!Number.isSafeInteger(base) || base < 0 || !Number.isSafeInteger(base + bytes.length)) {
    throw new RemcpError(
      "InvalidArgument",
      `Base ${base} is not a non-negative integer below 2^53 (known limitation)`,
      { base },
    );
  }
  const seg = {
    name: "raw",
    start: base,
    end: base + bytes.length,
    fileOffset: 0,
    fileSize: bytes.length,
    perms: "rwx",
  };
  const thumb = spec.thumb === true;
  return makeImage(bytes, {
    format: "raw",
    arch: spec.arch,
    bits: spec.bits,
    endian: spec.endian,
    ...(spec.arch === "arm" ? { thumb, isThumb: () => thumb, armModesKnown: true } : {}),
    entry: base,
    imageBase: base,
    fileSize: bytes.length,
    segments: bytes.length > 0 ? [seg] : [],
    sections: bytes.length > 0 ? [{ ...seg, kind: "code", segment: "raw" }] : [],
    symbols: [],
    imports: [],
    exports: [],
    entryPoints: [{ name: "entry", address: base, kind: "entry" }],
    functionHints: [],
    relocations: [],
    info: { warnings: [] },
    // Firmware can be hundreds of MiB: the analysis scans it in windows and tools read what they
    // are asked for, so nothing of it is held.
    onDemand: () => true,
  });
}
