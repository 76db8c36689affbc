/**
 * Architecture names as users type them ("amd64", "arm64", "mipsel", "thumb") mapped to the
 * model's {@link Arch} plus the byte order and mode they imply.
 */

import type { Arch } from "./image.ts";

/** What an architecture name means. */
export interface ArchSpec {
  arch: Arch;
  bits: 32 | 64;
  endian: "little" | "big";
  thumb?: boolean;
}

const NAMES: Record<string, ArchSpec> = {
  x86: { arch: "x86", bits: 32, endian: "little" },
  i386: { arch: "x86", bits: 32, endian: "little" },
  i686: { arch: "x86", bits: 32, endian: "little" },
  x86_64: { arch: "x86_64", bits: 64, endian: "little" },
  "x86-64": { arch: "x86_64", bits: 64, endian: "little" },
  x64: { arch: "x86_64", bits: 64, endian: "little" },
  amd64: { arch: "x86_64", bits: 64, endian: "little" },
  x86_64h: { arch: "x86_64", bits: 64, endian: "little" },
  arm: { arch: "arm", bits: 32, endian: "little" },
  armv7: { arch: "arm", bits: 32, endian: "little" },
  armv7s: { arch: "arm", bits: 32, endian: "little" },
  armv7k: { arch: "arm", bits: 32, endian: "little" },
  armv6: { arch: "arm", bits: 32, endian: "little" },
  armbe: { arch: "arm", bits: 32, endian: "big" },
  thumb: { arch: "arm", bits: 32, endian: "little", thumb: true },
  aarch64: { arch: "aarch64", bits: 64, endian: "little" },
  arm64: { arch: "aarch64", bits: 64, endian: "little" },
  arm64e: { arch: "aarch64", bits: 64, endian: "little" },
  aarch64_be: { arch: "aarch64", bits: 64, endian: "big" },
  mips: { arch: "mips", bits: 32, endian: "big" },
  mipsel: { arch: "mips", bits: 32, endian: "little" },
  mips64: { arch: "mips64", bits: 64, endian: "big" },
  mips64el: { arch: "mips64", bits: 64, endian: "little" },
  ppc: { arch: "ppc", bits: 32, endian: "big" },
  powerpc: { arch: "ppc", bits: 32, endian: "big" },
  ppcle: { arch: "ppc", bits: 32, endian: "little" },
  ppc64: { arch: "ppc64", bits: 64, endian: "big" },
  ppc64le: { arch: "ppc64", bits: 64, endian: "little" },
  riscv32: { arch: "riscv32", bits: 32, endian: "little" },
  riscv64: { arch: "riscv64", bits: 64, endian: "little" },
};

/** The spec for `name` (case-insensitive), or undefined when it names no known architecture. */
export function parseArchName(name: string): ArchSpec | undefined {
  return NAMES[name.trim().toLowerCase()];
}

/** Every name {@link parseArchName} accepts, for error messages. */
export function knownArchNames(): string[] {
  return Object.keys(NAMES);
}
