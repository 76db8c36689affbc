/**
 * PLT stub decoding: each stub loads its target from one GOT slot, so decoding the load tells
 * which import (the symbol relocated into that slot) a call to the stub reaches.
 */

import {
  type ElfContext,
  type ElfSection,
  EM_386,
  EM_AARCH64,
  EM_ARM,
  EM_RISCV,
  EM_X86_64,
  SHT_NOBITS,
} from "./_elf_types.ts";

const PLT_SECTIONS = new Set([".plt", ".plt.sec", ".plt.got", ".iplt", ".plt.bnd"]);
/** More stub bytes than any sane PLT holds; bounds the scan of a hostile section. */
const MAX_PLT_BYTES = 64 * 1024 * 1024;

/** Decodes one stub section, reporting (slot, stub address) pairs. */
type StubDecoder = (
  code: Uint8Array,
  addr: number,
  entry: number,
  gotBase: number,
  report: (slot: number, stub: number) => void,
) => void;

function sx32(v: number): number {
  return v | 0;
}

function le32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** x86-64: `jmp *disp32(%rip)` (optionally after endbr64 / bnd) somewhere in each entry. */
const x8664: StubDecoder = (code, addr, entry, _got, report) => {
  for (let e = 0; e + entry <= code.length; e += entry) {
    for (let k = e; k + 6 <= e + entry; k++) {
      if (code[k] === 0xff && code[k + 1] === 0x25) {
        report(addr + k + 6 + sx32(le32(code, k + 2)), addr + e);
        break;
      }
    }
  }
};

/** i386: `jmp *abs32` (non-PIC) or `jmp *disp32(%ebx)` relative to the GOT (PIC). */
const i386: StubDecoder = (code, addr, entry, got, report) => {
  for (let e = 0; e + entry <= code.length; e += entry) {
    for (let k = e; k + 6 <= e + entry; k++) {
      if (code[k] !== 0xff) continue;
      if (code[k + 1] === 0x25) {
        report(le32(code, k + 2), addr + e);
        break;
      }
      if (code[k + 1] === 0xa3) {
        report((got + sx32(le32(code, k + 2))) >>> 0, addr + e);
        break;
      }
    }
  }
};

/** AArch64: `adrp x16, page; ldr x17, [x16, #off]` (optionally after `bti c`). */
function aarch64(word: (i: number) => number): StubDecoder {
  return (code, addr, _entry, _got, report) => {
    for (let i = 0; i + 8 <= code.length; i += 4) {
      const w = word(i);
      if ((w & 0x9f000000) >>> 0 !== 0x90000000) continue;
      const rd = w & 0x1f;
      const w2 = word(i + 4);
      const isLdr64 = (w2 & 0xffc00000) >>> 0 === 0xf9400000;
      const isLdr32 = (w2 & 0xffc00000) >>> 0 === 0xb9400000;
      if ((!isLdr64 && !isLdr32) || ((w2 >>> 5) & 0x1f) !== rd) continue;
      let imm = (((w >>> 5) & 0x7ffff) << 2) | ((w >>> 29) & 3);
      if (imm & 0x100000) imm -= 0x200000;
      const pc = addr + i;
      const page = Math.floor(pc / 4096) * 4096 + imm * 4096;
      const slot = page + ((w2 >>> 10) & 0xfff) * (isLdr64 ? 8 : 4);
      const stub = i >= 4 && word(i - 4) === 0xd503245f ? pc - 4 : pc;
      report(slot, stub);
      i += 4;
    }
  };
}

function armRotImm(w: number): number {
  const imm = w & 0xff;
  const rot = ((w >>> 8) & 0xf) * 2;
  return rot === 0 ? imm : ((imm >>> rot) | (imm << (32 - rot))) >>> 0;
}

/** ARM: `add ip, pc, #a; [add ip, ip, #b …]; ldr pc, [ip, #c]!`, optionally after a Thumb `bx pc`. */
function arm(word: (i: number) => number): StubDecoder {
  return (code, addr, _entry, _got, report) => {
    for (let i = 0; i + 12 <= code.length; i += 4) {
      const w = word(i);
      if ((w & 0x0ffff000) !== 0x028fc000) continue;
      let ip = addr + i + 8 + armRotImm(w);
      let j = i + 4;
      while (j + 4 <= code.length && (word(j) & 0x0ffff000) === 0x028cc000 && j < i + 16) {
        ip += armRotImm(word(j));
        j += 4;
      }
      if (j + 4 > code.length) break;
      const ld = word(j);
      if ((ld & 0x0f7ff000) !== 0x053cf000) continue;
      const off = ld & 0xfff;
      const slot = (ip + ((ld & 0x00800000) ? off : -off)) >>> 0;
      // A Thumb caller enters through `bx pc` (+ `nop` or `b.n`) just before the ARM code.
      const stub = i >= 4 && (word(i - 4) & 0xffff) === 0x4778 ? addr + i - 4 : addr + i;
      report(slot, stub);
      i = j;
    }
  };
}

/** RISC-V: `auipc t3, hi; l{d,w} t3, lo(t3)`. */
function riscv(word: (i: number) => number): StubDecoder {
  return (code, addr, _entry, _got, report) => {
    for (let i = 0; i + 8 <= code.length; i += 4) {
      const w = word(i);
      if ((w & 0xfff) !== 0xe17) continue;
      const w2 = word(i + 4);
      const f3 = (w2 >>> 12) & 7;
      if ((w2 & 0xf8fff) !== 0xe0e03 || (f3 !== 2 && f3 !== 3)) continue;
      const pc = addr + i;
      report(pc + sx32(w & 0xfffff000) + (sx32(w2) >> 20), pc);
      i += 4;
    }
  };
}

/**
 * Maps GOT slot address → PLT stub address for the PLT sections the file has. `gotBase` is
 * DT_PLTGOT (the i386 PIC base). Architectures without a decoder give an empty map.
 */
export function findPltStubs(ctx: ElfContext, gotBase: number): Map<number, number> {
  const stubs = new Map<number, number>();
  const { r } = ctx;
  const word = (code: Uint8Array) => {
    const dv = new DataView(code.buffer, code.byteOffset, code.byteLength);
    return (i: number) => dv.getUint32(i, r.little);
  };
  for (const s of ctx.sections) {
    if (!PLT_SECTIONS.has(s.name) || s.type === SHT_NOBITS || !r.has(s.offset, s.size)) continue;
    const code = r.slice(s.offset, Math.min(s.size, MAX_PLT_BYTES));
    const decoder = decoderFor(ctx.machine, word(code));
    if (!decoder) return stubs;
    decoder(code, s.addr, entrySize(s), gotBase, (slot, stub) => {
      if (!stubs.has(slot)) stubs.set(slot, stub);
    });
  }
  return stubs;
}

function entrySize(s: ElfSection): number {
  return s.entsize === 8 || s.entsize === 16 ? s.entsize : 16;
}

function decoderFor(machine: number, word: (i: number) => number): StubDecoder | undefined {
  switch (machine) {
    case EM_X86_64:
      return x8664;
    case EM_386:
      return i386;
    case EM_AARCH64:
      return aarch64(word);
    case EM_ARM:
      return arm(word);
    case EM_RISCV:
      return riscv(word);
    default:
      return undefined;
  }
}
