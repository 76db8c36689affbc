/**
 * Switch jump-table recognition from the instructions before an indirect jump. Only the few
 * instructions before each `ijump` are formatted, so the text cost stays small.
 *
 * Recognised: x86-64 gcc/clang PIC (`lea B,[rip+T]; movsxd R,[B+I*4]; add R,B; jmp R`, and
 * gcc -O0's `lea D,[I*4]; lea T,[rip+T]; mov eax,[D+T]; cdqe; lea B,[rip+T]; add R,B;
 * (notrack) jmp R`, followed through a small backward slice of moves, leas, adds and shifts),
 * i386 gcc PIC (the same relative to the GOT in a register), absolute tables (`jmp [I*8+T]`,
 * `mov R,[I*8+T]; jmp R`), and AArch64 gcc (`adrp+add T; ldrb/ldrh/ldrsw; adr B; add ..., lsl #2;
 * br`). The case count comes from the preceding `cmp I, N` with `ja`/`b.hi` (N+1 cases).
 */

import type { Insn } from "../arch/types.ts";
import type { BinaryImage } from "../formats/image.ts";
import type { CodeCache } from "./_code_cache.ts";
import { DEEP_SLICE, type SwitchTable } from "./_explore.ts";
import {
  fixedRegisters,
  loadsJumpRegister,
  type ReadEntries,
  resolveLongBranch,
  resolveRisc,
  type RiscText,
} from "./_jump_tables_risc.ts";

const MAX_CASES = 4096;
/** How far back along the path an AArch64 table base may be set (a loop's preheader). */
const A64_SLICE = 48;
/** Without a bound, stop after this many entries that look like code. */
const UNBOUNDED_CASES = 512;

interface Text {
  insn: Insn;
  mnemonic: string;
  ops: string;
}

/** Capstone's text of one instruction. */
function textOf(image: BinaryImage, cache: CodeCache): (insn: Insn) => Text {
  return (insn) => {
    const bytes = image.read(insn.address, insn.size) ?? new Uint8Array(0);
    const t = cache.decoderFor(insn.address).format(bytes, insn.address, insn);
    return { insn, mnemonic: t.mnemonic, ops: t.opStr };
  };
}

const risc = (t: Text): RiscText => ({
  address: t.insn.address,
  size: t.insn.size,
  flow: t.insn.flow,
  memRef: t.insn.memRef,
  mnemonic: t.mnemonic,
  ops: t.ops,
});

/**
 * The exploration's `longBranch`: on MIPS, where a `jr $at` goes. Compilers and assemblers use
 * `$at` for branches too far for a 16-bit offset, never for calls or tail calls (those go through
 * `$t9`), so a resolved target is a jump within the function. Undefined on other ISAs.
 */
export function longBranchResolver(
  image: BinaryImage,
  cache: CodeCache,
): ((ijump: Insn, before: () => Iterable<Insn>) => number | undefined) | undefined {
  if (image.arch !== "mips" && image.arch !== "mips64") return undefined;
  const text = textOf(image, cache);
  const fixed = fixedRegisters(image);
  return (ijump, before) => {
    const jump = risc(text(ijump));
    if (jump.mnemonic !== "jr" || jump.ops !== "$at") return undefined;
    const back: RiscText[] = [];
    for (const insn of before()) {
      back.push(risc(text(insn)));
      if (back.length >= 8) break;
    }
    return resolveLongBranch(image, cache, back, fixed);
  };
}

/** Build the resolver used by exploration. */
export function switchResolver(
  image: BinaryImage,
  cache: CodeCache,
): (ijump: Insn, before: () => Iterable<Insn>) => SwitchTable | undefined {
  const gotBase = image.sections.find((s) => s.name === ".got.plt")?.start ??
    image.sections.find((s) => s.name === ".got")?.start;
  const text = textOf(image, cache);
  const x86 = image.arch === "x86" || image.arch === "x86_64";
  const fixed = fixedRegisters(image);
  // MIPS PIC code computes a table from $gp in more steps, and its delay slots count too.
  const depth = x86 || image.arch === "aarch64" ? 16 : 24;
  const gotos: Goto[] = [];
  return (ijump, before) => {
    const back: Text[] = [];
    const it = before()[Symbol.iterator]();
    const more = (n: number) => {
      for (let r = it.next(); !r.done; r = it.next()) {
        back.push(text(r.value));
        if (back.length >= n) break;
      }
      return back;
    };
    more(depth);
    const jump = text(ijump);
    if (x86) {
      // A switch in a loop (Lua 5.3's interpreter) sets its table base once before the loop, in
      // a callee-saved register: walk further back for it when the short slice does not reach.
      return resolveX86(image, cache, jump, back, gotBase) ??
        resolveX86(image, cache, jump, more(DEEP_SLICE), gotBase) ??
        computedGoto(image, cache, jump, back, () => more(DEEP_SLICE), gotos);
    }
    const read: ReadEntries = (table, size, signed, count, toTarget) =>
      readEntries(image, cache, table, size, signed, count, toTarget);
    // clang -O2 sets a switch-in-a-loop's AArch64 table base (`adrp`+`add`) before the loop:
    // walk further back along the path when the table is not found close to the jump.
    const found = image.arch === "aarch64"
      ? resolveAarch64(image, cache, jump, back) ??
        resolveAarch64(image, cache, jump, more(A64_SLICE))
      : resolveRisc(image, cache, risc(jump), back.map(risc), fixed, read);
    // A computed goto's table base is set at the entry: walk further back, once it is clear
    // the jump goes through a loaded value.
    if (found !== undefined || !loadsJumpRegister(risc(jump), back.map(risc))) return found;
    return resolveRisc(image, cache, risc(jump), more(DEEP_SLICE).map(risc), fixed, read);
  };
}

function num(s: string): number {
  const neg = s.startsWith("-");
  const v = Number.parseInt(neg ? s.slice(1) : s, s.includes("0x") ? 16 : 10);
  return neg ? -v : v;
}

/**
 * The case count from the bounds check before the table: the nearest conditional branch
 * (`ja`/`jae`/`b.hi`/`b.cs` out of range, or `jbe`/`b.ls` into it) and the `cmp X, N` or
 * `sub X, N` just before it (N + 1 cases for "above" and "below or same", N for "above or
 * equal"). Undefined when the pattern is not there.
 */
function boundFrom(
  back: readonly Text[],
  from: number,
  unsignedAbove: RegExp,
  rangeCheck?: RegExp,
): number | undefined {
  for (let i = from; i < back.length; i++) {
    const t = back[i]!;
    if (t.insn.flow !== "cjump") continue;
    // The nearest branch is some other test (a loop's `b.lt`): no bound from it.
    if (rangeCheck !== undefined && !rangeCheck.test(t.mnemonic)) return undefined;
    for (let j = i + 1; j < Math.min(back.length, i + 4); j++) {
      const u = back[j]!;
      if (u.mnemonic !== "cmp" && u.mnemonic !== "sub" && u.mnemonic !== "subs") continue;
      const m = /,\s*#?(-?(?:0x)?[0-9a-f]+)$/.exec(u.ops);
      if (m === null) return undefined;
      const n = num(m[1]!);
      return unsignedAbove.test(t.mnemonic) ? n + 1 : n;
    }
    return undefined;
  }
  return undefined;
}

function readEntries(
  image: BinaryImage,
  cache: CodeCache,
  table: number,
  size: 1 | 2 | 4 | 8,
  signed: boolean,
  count: number | undefined,
  toTarget: (entry: number) => number,
): number[] | undefined {
  const limit = count ?? UNBOUNDED_CASES;
  if (limit <= 0 || limit > MAX_CASES) return undefined;
  const bytes = image.read(table, limit * size) ?? image.readUpTo(table, limit * size);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = image.endian === "little";
  const targets: number[] = [];
  // RELA targets (AArch64, RISC-V) leave a PIE's absolute tables zero in the file: the
  // relocation holds the address.
  const relocs = size === (image.bits === 64 ? 8 : 4) ? relocationMap(image) : undefined;
  for (let i = 0; (i + 1) * size <= bytes.length && i < limit; i++) {
    const o = i * size;
    let e: number;
    const r = relocs?.get(table + o);
    if (r !== undefined) e = r;
    else if (size === 1) e = signed ? view.getInt8(o) : view.getUint8(o);
    else if (size === 2) e = signed ? view.getInt16(o, little) : view.getUint16(o, little);
    else if (size === 4) e = signed ? view.getInt32(o, little) : view.getUint32(o, little);
    else e = Number(view.getBigUint64(o, little));
    const target = toTarget(e);
    if (!cache.isCode(target)) {
      if (count !== undefined) return undefined;
      break;
    }
    targets.push(target);
  }
  return targets.length > 0 ? targets : undefined;
}

const relocationMaps = new WeakMap<BinaryImage, Map<number, number>>();

/** Relocated words by address (built once per image). */
function relocationMap(image: BinaryImage): Map<number, number> {
  let m = relocationMaps.get(image);
  if (m === undefined) {
    m = new Map();
    for (const r of image.relocations) if (r.target !== undefined) m.set(r.address, r.target);
    relocationMaps.set(image, m);
  }
  return m;
}

function parseMem(ops: string): { base?: string; index?: string; scale: number; disp: number } {
  // iced prints `[rdx+rax*4]`, `[rax*8+0x4020]` or `[ebx+eax*4-0x1f40]` with spaces.
  const inner = /\[([^\]]+)\]/.exec(ops)?.[1] ?? "";
  const out: { base?: string; index?: string; scale: number; disp: number } = {
    scale: 1,
    disp: 0,
  };
  for (const raw of inner.replace(/\s+/g, "").replace(/-/g, "+-").split("+")) {
    if (raw === "") continue;
    const star = raw.indexOf("*");
    if (star >= 0) {
      out.index = raw.slice(0, star);
      out.scale = Number(raw.slice(star + 1));
    } else if (/^-?(0x)?[0-9a-f]+$/.test(raw) && /\d/.test(raw[0] === "-" ? raw[1]! : raw[0]!)) {
      out.disp += num(raw);
    } else if (out.base === undefined) out.base = raw;
    else if (out.index === undefined) out.index = raw; // [rdx+rax]: two registers, scale 1
  }
  return out;
}

function resolveX86(
  image: BinaryImage,
  cache: CodeCache,
  jump: Text,
  back: readonly Text[],
  gotBase: number | undefined,
): SwitchTable | undefined {
  const ptr = image.bits === 64 ? 8 : 4;
  // jmp [I*8 + T]: an absolute table read by the jump itself.
  if (jump.ops.includes("[")) {
    const m = parseMem(jump.ops);
    if (m.base !== undefined || m.index === undefined || m.scale !== ptr) return undefined;
    const count = boundFrom(back, 0, /^(ja|jnbe|jbe|jna)$/) ??
      byteIndexBound(back, { mem: m, at: -1 });
    const targets = readEntries(image, cache, m.disp, ptr, false, count, (e) => e);
    return targets && { table: m.disp, targets, bounded: count !== undefined };
  }
  const reg = canonReg(jump.ops.trim());
  if (reg === undefined) return undefined;
  const v = valueOf(back, reg, 0);
  // mov R, [T + I*8]; jmp R — an absolute table (non-PIE), read into a register first.
  if (v.k === "load") {
    const table = tableAddress(back, v, ptr, gotBase);
    if (table === undefined) return undefined;
    const count = boundFrom(back, v.at + 1, /^(ja|jnbe|jbe|jna)$/) ?? byteIndexBound(back, v);
    const targets = readEntries(image, cache, table, ptr, false, count, (e) => e);
    return targets && { table, targets, bounded: count !== undefined };
  }
  // add R, B; jmp R with R loaded from [T + I*4]: 32-bit offsets from B (usually B = T), the
  // PIC form of gcc and clang at every level (gcc -O0 computes I*4 and T in separate steps).
  if (v.k !== "sum") return undefined;
  const [a, b] = v.parts;
  const load = a.k === "load" ? a : b.k === "load" ? b : undefined;
  const other = load === a ? b : a;
  if (load === undefined || load.size !== 4) return undefined;
  const base = other.k === "const" ? other.v : image.bits === 32 ? gotBase : undefined;
  if (base === undefined) return undefined;
  const table = tableAddress(back, load, 4, gotBase);
  if (table === undefined) return undefined;
  const count = boundFrom(back, load.at + 1, /^(ja|jnbe|jbe|jna)$/) ??
    byteIndexBound(back, load);
  const targets = readEntries(image, cache, table, 4, true, count, (e) => base + e);
  return targets && { table, targets, bounded: count !== undefined };
}

/**
 * gcc's computed goto (`goto *disptab[op]`, Lua's interpreter loop): `mov rax, [R + I*8];
 * jmp rax` with R set to the table once at the function's entry, outside the usual slice, so
 * the slice is walked further back for R alone. The index is masked (`and eax, 0x7f`) or the
 * table is read while its entries stay in the function.
 */
function computedGoto(
  image: BinaryImage,
  cache: CodeCache,
  jump: Text,
  back: readonly Text[],
  deeper: () => readonly Text[],
  known: Goto[],
): SwitchTable | undefined {
  const ptr = image.bits === 64 ? 8 : 4;
  const reg = canonReg(jump.ops.trim());
  if (reg === undefined) return undefined;
  const v = valueOf(back, reg, 0);
  if (v.k !== "load" || v.mem.base === undefined || v.mem.scale !== ptr) return undefined;
  const base = canonReg(v.mem.base);
  if (base === undefined || v.mem.index === undefined) return undefined;
  const t = valueOf(deeper(), base, v.at + 1);
  let table: number;
  if (t.k === "const") table = t.v + v.mem.disp;
  else {
    // The path back to the entry is not always the one recorded: another dispatch of the same
    // loop (between its labels) through the same register reads the same table.
    const same = known.find((g) =>
      g.base === base && jump.insn.address >= g.low && jump.insn.address <= g.high
    );
    if (same === undefined) return undefined;
    table = same.table;
  }
  // The mask caps the table; it may be shorter (83 opcodes under `and eax, 0x7f`).
  const cap = maskBound(back, canonReg(v.mem.index), v.at + 1) ?? Infinity;
  const targets = readEntries(image, cache, table, ptr, false, undefined, (e) => e)?.slice(0, cap);
  if (targets === undefined) return undefined;
  if (t.k === "const") {
    known.push({ base, table, low: Math.min(...targets), high: Math.max(...targets) });
  }
  return cap === Infinity
    ? { table, targets, bounded: false }
    : { table, targets, bounded: false, capped: true };
}

/** A computed goto resolved from the entry: its base register, table and the labels' span. */
interface Goto {
  base: string;
  table: number;
  low: number;
  high: number;
}

/** `and I, 2^k - 1` on the index before the load: 2^k entries. */
function maskBound(
  back: readonly Text[],
  index: string | undefined,
  from: number,
): number | undefined {
  if (index === undefined) return undefined;
  for (let j = from; j < back.length; j++) {
    const [dst, src] = operands(back[j]!.ops);
    if (dst === undefined || canonReg(dst) !== index) continue;
    if (back[j]!.mnemonic !== "and" || src === undefined) return undefined;
    const m = /^-?(0x)?[0-9a-f]+h?$/.test(src) ? num(src) : NaN;
    return m > 0 && (m & (m + 1)) === 0 && m < MAX_CASES ? m + 1 : undefined;
  }
  return undefined;
}

/**
 * A table indexed by a zero-extended byte (`movzx edi, dil`) has 256 entries even without a
 * range check.
 */
function byteIndexBound(
  back: readonly Text[],
  load: { mem: ReturnType<typeof parseMem>; at: number },
): number | undefined {
  const index = load.mem.index === undefined ? undefined : canonReg(load.mem.index);
  if (index === undefined) return undefined;
  for (let j = load.at + 1; j < back.length; j++) {
    const t = back[j]!;
    const [dst, src] = operands(t.ops);
    if (dst === undefined || canonReg(dst) !== index) continue;
    const byteReg = src !== undefined && /^([a-d]l|sil|dil|bpl|spl|r\d+b)$/.test(src);
    const byte = src !== undefined && (/byte/.test(src) || byteReg);
    if (t.mnemonic !== "movzx" || !byte) return undefined;
    // The byte's top bits (`shr dl, 5; movzx edx, dl`: 8 entries, gcc -O2 on x86-32).
    const shifted = byteReg ? shiftedByte(back, src!, j + 1) : undefined;
    return shifted ?? 256;
  }
  return undefined;
}

/** `shr R8, k` as the last write of the byte register `r8` before `back[from]`: 256 >> k values. */
function shiftedByte(back: readonly Text[], r8: string, from: number): number | undefined {
  for (let j = from; j < back.length; j++) {
    const t = back[j]!;
    const [dst, src] = operands(t.ops);
    if (dst === undefined || canonReg(dst) !== canonReg(r8)) continue;
    if (dst !== r8 || t.mnemonic !== "shr" || src === undefined) return undefined;
    const k = /^(0x)?[0-9a-f]+$/.test(src) ? num(src) : NaN;
    return k >= 1 && k < 8 ? 256 >> k : undefined;
  }
  return undefined;
}

/** What the backward slice says a register holds just before an instruction. */
type Value =
  | { k: "const"; v: number }
  | { k: "load"; mem: ReturnType<typeof parseMem>; size: number; at: number }
  | { k: "scaled"; scale: number }
  | { k: "sum"; parts: [Value, Value] }
  | { k: "opaque" };

const OPAQUE: Value = { k: "opaque" };

/** Registers (by {@link canonReg} name) a call leaves as they were. */
const CALLEE_SAVED = new Set(["rbx", "rbp", "r12", "r13", "r14", "r15"]);

/** `eax`, `ax`, `al`, `r8d` … → the 64-bit register they are part of (`rax`, `r8`). */
function canonReg(name: string): string | undefined {
  const n = name.trim();
  let m = /^r(\d+)[dwb]?$/.exec(n);
  if (m !== null) return `r${m[1]}`;
  m = /^[re]?([abcd])[xlh]$/.exec(n);
  if (m !== null) return `r${m[1]}x`;
  m = /^[re]?(si|di|bp|sp)l?$/.exec(n);
  if (m !== null) return `r${m[1]}`;
  return undefined;
}

/** Operands split at top-level commas (memory operands hold none in iced's syntax). */
function operands(ops: string): string[] {
  return ops.split(",").map((o) => o.trim());
}

function memSize(op: string, mnemonic: string, dst: string): number {
  if (/byte/.test(op) || mnemonic === "movzx" && /^[re]?[a-d]l$|b$/.test(dst)) return 1;
  if (/^word|\sword/.test(op)) return 2;
  if (/qword/.test(op)) return 8;
  if (/dword/.test(op) || mnemonic === "movsxd") return 4;
  // No size keyword: the destination register's width.
  return /^e|d$/.test(dst) ? 4 : /^r/.test(dst) ? 8 : 4;
}

/**
 * The value register `reg` holds before `back[from]` (`back` runs backwards from the jump), as
 * far as a handful of moves, loads, leas, adds and shifts tell. Anything else is opaque.
 */
function valueOf(back: readonly Text[], reg: string, from: number, depth = 0): Value {
  if (depth > 8) return OPAQUE;
  for (let j = from; j < back.length; j++) {
    const t = back[j]!;
    const mn = t.mnemonic.replace(/^(notrack|bnd)\s+/, "");
    // A call keeps the callee-saved registers (the SysV set, a subset of Windows x64's).
    if (t.insn.flow === "call" && !CALLEE_SAVED.has(reg)) return OPAQUE;
    if ((mn === "cdqe" || mn === "cltq") && reg === "rax") continue; // sign-extends eax in place
    const [dst, src] = operands(t.ops);
    if (dst === undefined || canonReg(dst) !== reg) continue;
    if (mn === "mov" || mn === "movsxd" || mn === "movsx" || mn === "movzx") {
      if (src === undefined) return OPAQUE;
      if (src.includes("[")) {
        return { k: "load", mem: parseMem(src), size: memSize(src, mn, dst), at: j };
      }
      const r = canonReg(src);
      if (r === reg) continue; // mov eax, eax: zero-extends in place
      if (r !== undefined) return valueOf(back, r, j + 1, depth + 1);
      return /^-?(0x)?[0-9a-f]+h?$/.test(src) ? { k: "const", v: num(src) } : OPAQUE;
    }
    if (mn === "lea" && src !== undefined) {
      const m = parseMem(src);
      if (t.insn.memRef !== undefined && (m.base === undefined || m.base === "rip")) {
        if (m.index === undefined) return { k: "const", v: t.insn.memRef };
      }
      if (m.base === undefined && m.index !== undefined && m.disp === 0) {
        return { k: "scaled", scale: m.scale };
      }
      return OPAQUE;
    }
    if (mn === "add" && src !== undefined) {
      const r = canonReg(src);
      const right: Value = r !== undefined
        ? valueOf(back, r, j + 1, depth + 1)
        : /^-?(0x)?[0-9a-f]+h?$/.test(src)
        ? { k: "const", v: num(src) }
        : OPAQUE;
      return { k: "sum", parts: [valueOf(back, reg, j + 1, depth + 1), right] };
    }
    // The printer writes the count in hex (`shl eax, 0x2`).
    if (mn === "shl" && src !== undefined && /^(0x)?[0-9a-f]+$/.test(src)) {
      return { k: "scaled", scale: 1 << num(src) };
    }
    return OPAQUE;
  }
  return OPAQUE;
}

/**
 * The table address a load reads from: `[T + I*scale]` with T a constant (displacement, or a
 * register set by `lea R, [rip+T]`, or the GOT base in i386 PIC code), or `[R1 + R2]` where one
 * register holds T and the other the index times `scale` (gcc -O0).
 */
function tableAddress(
  back: readonly Text[],
  load: { mem: ReturnType<typeof parseMem>; at: number },
  scale: number,
  gotBase: number | undefined,
): number | undefined {
  const m = load.mem;
  const valueAt = (r: string) => {
    const c = canonReg(r);
    return c === undefined ? OPAQUE : valueOf(back, c, load.at + 1);
  };
  if (m.index === undefined) {
    // i386 gcc -O0 without PIC: `shl eax, 2; add eax, T; mov eax, [eax]`, the address summed
    // in the register the load reads.
    const v = m.base === undefined ? OPAQUE : valueAt(m.base);
    if (v.k !== "sum") return undefined;
    const [a, b] = v.parts;
    if (a.k === "scaled" && a.scale === scale && b.k === "const") return b.v + m.disp;
    if (b.k === "scaled" && b.scale === scale && a.k === "const") return a.v + m.disp;
    return undefined;
  }
  if (m.base === undefined) return m.scale === scale ? m.disp : undefined;
  const base = valueAt(m.base);
  if (m.scale === scale) {
    if (base.k === "const") return base.v + m.disp;
    // i386 PIC: the base register holds the GOT address set up by the PC thunk.
    return scale === 4 && gotBase !== undefined && /^e/.test(m.base) ? gotBase + m.disp : undefined;
  }
  if (m.scale !== 1) return undefined;
  const index = valueAt(m.index);
  if (base.k === "const" && index.k === "scaled" && index.scale === scale) return base.v + m.disp;
  if (index.k === "const" && base.k === "scaled" && base.scale === scale) return index.v + m.disp;
  // i386 gcc -O0 PIC: `mov edx, [edx+eax-T']`, eax the GOT address from the PC thunk and edx
  // the index times 4.
  const scaled = (v: Value) => v.k === "scaled" && v.scale === scale;
  if (
    scale === 4 && gotBase !== undefined && /^e/.test(m.base) && (scaled(base) || scaled(index))
  ) {
    return gotBase + m.disp;
  }
  return undefined;
}

function resolveAarch64(
  image: BinaryImage,
  cache: CodeCache,
  jump: Text,
  back: readonly Text[],
): SwitchTable | undefined {
  if (jump.mnemonic !== "br") return undefined;
  let base: number | undefined;
  let shift = 2;
  let combined = false;
  let size: 1 | 2 | 4 | undefined;
  let signed = false;
  let table: number | undefined;
  let loadAt = -1;
  let tableReg: string | undefined;
  for (let i = 0; i < back.length; i++) {
    const t = back[i]!;
    if (t.mnemonic === "adr" && base === undefined) base = t.insn.memRef;
    else if (t.mnemonic === "add" && size === undefined && !combined) {
      // The add feeding `br`: `add x1, x0, w1, sxtb #2` (gcc) scales the entry; clang -O0's
      // `add x8, x8, x9` adds a byte offset.
      combined = true;
      const m = /#(\d+)$/.exec(t.ops);
      shift = m !== null && /[su]xt[bhw]|lsl/.test(t.ops) ? Number(m[1]) : 0;
      signed = /sxt/.test(t.ops);
    } else if (
      /^ldr(b|h|sw|sb|sh)?$/.test(t.mnemonic) && t.ops.includes("[") && size === undefined
    ) {
      size = t.mnemonic.endsWith("b") ? 1 : t.mnemonic.endsWith("h") ? 2 : 4;
      if (t.mnemonic.startsWith("ldrs")) signed = true;
      tableReg = /\[([a-z0-9]+)/.exec(t.ops)?.[1];
      loadAt = i;
    } else if (t.mnemonic === "add" && tableReg !== undefined && table === undefined) {
      const m = /^([a-z0-9]+),\s*([a-z0-9]+),\s*#(0x[0-9a-f]+|\d+)$/.exec(t.ops);
      if (m !== null && m[1] === tableReg) {
        for (let j = i + 1; j < back.length; j++) {
          const u = back[j]!;
          if (
            u.mnemonic === "adrp" && u.ops.startsWith(m[2]! + ",") && u.insn.memRef !== undefined
          ) {
            table = u.insn.memRef + num(m[3]!);
            break;
          }
        }
      }
    }
  }
  if (base === undefined || size === undefined || table === undefined) return undefined;
  const index = /\[[a-z0-9]+,\s*[wx](\d+)/.exec(back[loadAt]!.ops)?.[1];
  const count = boundFrom(back, loadAt + 1, /^b\.(hi|ls)$/, /^b\.(hi|ls|hs|cs|lo|cc)$/) ??
    a64IndexBound(back, index, loadAt + 1);
  const b = base;
  const targets = readEntries(
    image,
    cache,
    table,
    size,
    signed,
    count,
    (e) => b + e * (1 << shift),
  );
  return targets && { table, targets, bounded: count !== undefined };
}

/**
 * Without a range check, the values the index can take from how it was computed: a loaded
 * byte (256), a byte shifted right by k (2^(8-k)), `and` with 2^k - 1, `ubfx` of k bits.
 * `index` is the register number (`x13` and `w13` are both 13).
 */
function a64IndexBound(
  back: readonly Text[],
  index: string | undefined,
  from: number,
  depth = 0,
): number | undefined {
  if (index === undefined || depth > 4) return undefined;
  for (let j = from; j < back.length; j++) {
    const t = back[j]!;
    if (t.insn.flow === "call") return undefined;
    const ops = operands(t.ops);
    if (/^[wx](\d+)$/.exec(ops[0] ?? "")?.[1] !== index) continue;
    const src = /^[wx](\d+)$/.exec(ops[1] ?? "")?.[1];
    const imm = (k: number) => {
      const m = /^#(0x[0-9a-f]+|\d+)$/.exec(ops[k] ?? "");
      return m === null ? undefined : num(m[1]!);
    };
    if (t.mnemonic === "ldrb" || t.mnemonic === "uxtb") return 256;
    if (t.mnemonic === "and") {
      const m = imm(2);
      return m !== undefined && m > 0 && (m & (m + 1)) === 0 && m < MAX_CASES ? m + 1 : undefined;
    }
    if (t.mnemonic === "ubfx") {
      const w = imm(3);
      return w !== undefined && w <= 12 ? 2 ** w : undefined;
    }
    if (t.mnemonic === "lsr") {
      const k = imm(2);
      const whole = a64IndexBound(back, src, j + 1, depth + 1);
      return k === undefined || whole === undefined
        ? undefined
        : Math.max(1, Math.ceil(whole / 2 ** k));
    }
    if (t.mnemonic === "mov" && src !== undefined) {
      return a64IndexBound(back, src, j + 1, depth + 1);
    }
    return undefined;
  }
  return undefined;
}
