/**
 * Jump tables on the load/store ISAs (32-bit ARM and Thumb, MIPS, RISC-V, PowerPC64), read off a
 * small backward slice of Capstone's text before the indirect jump.
 *
 * The slice evaluates a register to an affine form: a constant base (an address from `adr`,
 * `auipc`, `lui`/`addiu`, `movw`/`movt`, the MIPS `$gp` or the PowerPC TOC pointer, or a
 * pointer read from the GOT), plus an unknown index times a scale, plus at most one loaded
 * value. A jump to `B + load(T + index * size)` is a table of offsets from B (B = 0: absolute
 * entries). Thumb `tbb`/`tbh` and A32 `add pc, pc, r, lsl #2` / `ldr pc, [pc, r, lsl #2]` are
 * matched as whole instructions. The case count comes from the bounds check before the table.
 */

import type { Insn } from "../arch/types.ts";
import type { BinaryImage } from "../formats/image.ts";
import type { CodeCache } from "./_code_cache.ts";
import type { SwitchTable } from "./_explore.ts";
import { splitOperands } from "../arch/operands.ts";
import {
  calleeSaved,
  type FrameRef,
  frameRef,
  isFrameBase,
  movesBase,
  spillsOf,
} from "./_risc_frame.ts";

/** Text of one instruction of the slice. */
export interface RiscText {
  address: number;
  size: number;
  flow: string;
  memRef?: number | undefined;
  mnemonic: string;
  ops: string;
}

/** Read table entries; undefined when the bounded table does not hold code addresses. */
export type ReadEntries = (
  table: number,
  size: 1 | 2 | 4 | 8,
  signed: boolean,
  count: number | undefined,
  toTarget: (entry: number) => number,
) => number[] | undefined;

/** What a register holds: `c` (+ `idx` × an unknown index) (+ `mul` × a loaded value). */
interface Affine {
  c: number;
  /** Whether `c` is an address or constant (true) rather than an offset folded into an index. */
  base: boolean;
  idx?: number;
  load?: { addr: Affine; size: 1 | 2 | 4 | 8; signed: boolean; mul: number };
  /** How many values the index can take (`and r3, r4, #127`: 128), when its width says so. */
  cap?: number;
  bad?: true;
}

const BAD: Affine = { c: 0, base: false, bad: true };
const INDEX: Affine = { c: 0, base: false, idx: 1 };
const konst = (v: number): Affine => ({ c: v, base: true });

/** Registers whose value is the same everywhere in a function (MIPS `$gp`, the TOC pointer). */
interface Fixed {
  [reg: string]: number;
}

const STORE = /^(c\.)?(s[bhwd]|s[wd]sp|fs[wd]|st[a-z]*|push|stm[a-z]*|vst.*|vpush)$/;
const COMPARE = /^(cmp[a-z]*|cmn|tst|teq|fcmp.*)$/;

function num(s: string): number | undefined {
  const m = /^#?(-?)(0x[0-9a-f]+|\d+)$/.exec(s.trim());
  if (m === null) return undefined;
  const v = Number.parseInt(m[2]!, m[2]!.startsWith("0x") ? 16 : 10);
  return m[1] === "-" ? -v : v;
}

/** The mnemonic without RISC-V's compressed prefix (`c.add`) or Thumb's width suffix (`ldr.w`). */
function bare(mnemonic: string): string {
  return mnemonic.startsWith("c.") ? mnemonic.slice(2) : mnemonic.replace(
    /^((?:ldr|str|add|and|orr|ubfx|uxt|b|tb|mov|lsl|lsr|sub|cmp)[a-z]*)\.[nw]$/,
    "$1",
  );
}

const operands = splitOperands;

/** A register operand's name, without MIPS's `$`; AArch64's `w3` is `x3` (its low half). */
const reg = (s: string | undefined): string | undefined =>
  s === undefined
    ? undefined
    : /^\$?[a-z][a-z0-9.]*$/.test(s) && num(s) === undefined
    ? s.replace(/^\$/, "").replace(/^w(\d+|zr)$/, "x$1")
    : undefined;

function add(a: Affine, b: Affine): Affine {
  if (a.bad || b.bad) return BAD;
  const unknown = (v: Affine) => !v.base && v.load === undefined;
  // Two unknowns make an unknown (`add r3, r0` of a byte and a pointer: an index).
  if (unknown(a) && unknown(b) && (a.idx !== undefined || b.idx !== undefined)) return INDEX;
  if ((a.idx !== undefined && b.idx !== undefined) || (a.load && b.load)) return BAD;
  const out: Affine = { c: a.c + b.c, base: a.base || b.base };
  const idx = a.idx ?? b.idx;
  if (idx !== undefined) out.idx = idx;
  const cap = a.idx !== undefined ? a.cap : b.cap;
  if (cap !== undefined) out.cap = cap;
  const load = a.load ?? b.load;
  if (load !== undefined) out.load = load;
  return out;
}

/** `v + imm`: an immediate added to a bare index adjusts the index (`c - '1'`), not the base. */
function addImm(v: Affine, imm: number): Affine {
  if (v.bad) return BAD;
  if (!v.base && (v.idx !== undefined || v.load !== undefined)) return v;
  return { ...v, c: v.c + imm, base: true };
}

function shift(v: Affine, by: number): Affine {
  if (v.bad) return BAD;
  const f = by >= 0 ? 2 ** by : 1 / 2 ** -by;
  if (v.base && v.c !== 0) return BAD;
  const out: Affine = { c: 0, base: false };
  if (v.idx !== undefined) out.idx = v.idx * f;
  if (v.idx !== undefined && v.cap !== undefined && by >= 0) out.cap = v.cap;
  if (v.load !== undefined) out.load = { ...v.load, mul: v.load.mul * f };
  if (v.idx === undefined && v.load === undefined) return INDEX;
  return out;
}

const LOADS: Record<string, [1 | 2 | 4 | 8, boolean]> = {
  lb: [1, true],
  lbu: [1, false],
  lh: [2, true],
  lhu: [2, false],
  lw: [4, true],
  lwu: [4, false],
  ld: [8, false],
  lbz: [1, false],
  lbzx: [1, false],
  lhz: [2, false],
  lhzx: [2, false],
  lha: [2, true],
  lhax: [2, true],
  lwz: [4, false],
  lwzx: [4, false],
  lwa: [4, true],
  lwax: [4, true],
  ldx: [8, false],
  ldr: [4, false],
  ldrb: [1, false],
  ldrh: [2, false],
  ldrsb: [1, true],
  ldrsh: [2, true],
};

/** Evaluates registers along a slice that runs backwards from the jump. */
class Slice {
  constructor(
    readonly image: BinaryImage,
    readonly cache: CodeCache,
    readonly back: readonly RiscText[],
    readonly fixed: Fixed,
    /** A word loaded from the stack frame is the `$gp` saved there (MIPS long branches). */
    readonly savedGp = false,
  ) {}

  /** The value of `r` before `back[from]`. */
  value(r: string, from: number, depth = 0): Affine {
    if (this.fixed[r] !== undefined) return konst(this.fixed[r]!);
    // RISC-V's x0 reads as zero; AArch64's x0 is an ordinary register (`xzr` is its zero).
    if (r === "zero" || r === "xzr" || (r === "x0" && this.image.arch.startsWith("riscv"))) {
      return konst(0);
    }
    if (depth > 12) return BAD;
    for (let j = from; j < this.back.length; j++) {
      const t = this.back[j]!;
      if ((t.flow === "call" || t.flow === "icall") && !calleeSaved(this.image.arch, r)) {
        return INDEX;
      }
      const mn = bare(t.mnemonic);
      if (STORE.test(mn) || COMPARE.test(mn) || t.flow !== "seq") continue;
      const ops = operands(t.ops);
      if (reg(ops[0]) !== r) continue;
      return this.#define(mn, ops, t, j, depth);
    }
    return INDEX;
  }

  #define(mn: string, ops: string[], t: RiscText, j: number, depth: number): Affine {
    const at = (s: string | undefined): Affine => {
      if (s === "pc" && this.image.arch === "arm") return konst(this.#pc(t));
      const r = reg(s);
      if (r !== undefined) return this.value(r, j + 1, depth + 1);
      const n = s === undefined ? undefined : num(s);
      return n === undefined ? BAD : konst(n);
    };
    const [, a, b, c] = ops;
    // Two-operand forms (`c.add a5, a4`, Thumb `add r2, r3`) read the destination too.
    const lhs = b === undefined ? ops[0] : a;
    const rhs = b === undefined ? a : b;
    // ARM `add r1, pc, #8` is `adr`: the decoder resolved the address.
    if (t.memRef !== undefined && ops[1] === "pc" && /^(add|sub)w?$/.test(mn)) {
      return konst(t.memRef);
    }
    switch (mn) {
      case "auipc":
      case "adr":
      case "adrp":
        return t.memRef === undefined ? BAD : konst(t.memRef);
      case "lui":
        return konst(num(a ?? "")! * (this.image.arch.startsWith("mips") ? 0x10000 : 0x1000));
      case "lis":
        return konst(num(a ?? "")! * 0x10000);
      case "li":
      case "movw":
        return num(a ?? "") === undefined ? BAD : konst(num(a!)!);
      case "movt": {
        const lo = this.value(reg(ops[0])!, j + 1, depth + 1);
        return lo.bad || !lo.base ? BAD : konst((lo.c & 0xffff) + num(a ?? "")! * 0x10000);
      }
      case "mov":
      case "mv":
      case "move":
      case "mr":
      case "sext.w":
      case "extsw":
      case "uxtb":
      case "uxth":
      case "zext.w": {
        const v = num(a ?? "") !== undefined ? konst(num(a!)!) : at(a);
        // A zero-extended byte index takes 256 values at most.
        return mn === "uxtb" && v.idx !== undefined && !v.base ? { ...v, cap: v.cap ?? 256 } : v;
      }
      case "add":
      case "addu":
      case "daddu":
      case "addw":
      case "addi":
      case "addiu":
      case "daddiu":
      case "addiw":
      case "addis": {
        const right = at(rhs);
        const left = at(lhs);
        const imm = num(rhs ?? "");
        if (imm !== undefined) {
          if (mn === "addis") {
            return lhs === "r0" ? konst(imm * 0x10000) : addImm(left, imm * 0x10000);
          }
          return addImm(left, imm);
        }
        const sh = /^lsl #(\d+)$/.exec(c ?? "");
        return add(left, sh === null ? right : shift(right, Number(sh[1])));
      }
      case "sub":
      case "subs":
      case "subu":
      case "addiu.neg":
        return num(rhs ?? "") !== undefined ? addImm(at(lhs), -num(rhs!)!) : INDEX;
      case "sll":
      case "slli":
      case "sld":
      case "sldi":
      case "slwi":
      case "lsl":
      case "lsls":
      case "dsll":
        return num(rhs ?? "") === undefined ? BAD : shift(at(lhs), num(rhs!)!);
      case "srli":
      case "srl":
      case "dsrl":
        return num(rhs ?? "") === undefined ? BAD : shift(at(lhs), -num(rhs!)!);
      case "and":
      case "ands":
      case "andi": {
        // Masking with 2^k - 1 leaves 2^k values, whatever was masked.
        const m = num(rhs ?? "");
        return m !== undefined && m > 0 && (m & (m + 1)) === 0 && m < 0x10000
          ? { ...INDEX, cap: m + 1 }
          : INDEX;
      }
      case "ubfx": {
        const w = num(ops[3] ?? "");
        return w !== undefined && w <= 16 ? { ...INDEX, cap: 2 ** w } : INDEX;
      }
      case "orr":
        // gcc's Thumb computed goto sets the mode bit of a label's address (`orr r3, r3, #1`).
        return this.image.arch === "arm" && num(rhs ?? "") === 1 ? at(lhs) : INDEX;
      case "rldic":
      case "rldicr":
        // rldic rA, rS, SH, MB: shift left by SH, the mask only drops the index's high bits.
        return num(b ?? "") === undefined ? BAD : shift(at(a), num(b!)!);
      default:
        return this.#load(mn, ops, j, depth);
    }
  }

  /** The value of PC as the ARM instruction `t` reads it (Thumb: 4 bytes on, A32: 8). */
  #pc(t: RiscText): number {
    return t.address + (this.cache.isThumb(t.address) ? 4 : 8);
  }

  /**
   * The value last stored to the frame slot `ref` before `back[from]`: the register a store
   * wrote there, unless the frame base moved or a store of another width overlapped it.
   */
  #slot(ref: FrameRef, size: number, from: number, depth: number): Affine | undefined {
    for (let k = from; k < this.back.length; k++) {
      const t = this.back[k]!;
      const mn = bare(t.mnemonic);
      const spills = spillsOf(mn, t.ops, reg);
      if (spills === undefined) {
        if (movesBase(mn, t.ops, ref.base, reg)) return undefined;
        continue;
      }
      for (const s of spills) {
        if (s.ref.base !== ref.base) continue;
        if (s.ref.writeback || s.postIndex) return undefined;
        if (s.ref.offset >= ref.offset + size || ref.offset >= s.ref.offset + s.size) continue;
        if (s.ref.offset !== ref.offset || s.size !== size) return undefined;
        return this.value(s.reg, k + 1, depth + 1);
      }
    }
    return undefined;
  }

  #load(mn: string, ops: string[], j: number, depth: number): Affine {
    const kind = LOADS[mn];
    if (kind === undefined) return INDEX;
    const [size, signed] = mn === "ldr" && ops[0]?.startsWith("x") ? [8 as const, false] : kind;
    const t = this.back[j]!;
    const ref = frameRef(ops[1]);
    if (ref !== undefined && ops.length === 2) {
      // An ARM literal: the word the decoder found at `[pc, #n]`.
      if (ref.base === "pc" && t.memRef !== undefined && size === 4) {
        const w = this.image.read(t.memRef, 4);
        if (w === undefined) return INDEX;
        const little = this.image.endian === "little";
        return konst(new DataView(w.buffer, w.byteOffset, 4).getUint32(0, little));
      }
      // A reload from the frame: what was spilled there.
      if (isFrameBase(this.image.arch, ref.base) && !ref.writeback) {
        const spilled = this.#slot(ref, size, j + 1, depth);
        if (spilled !== undefined) return spilled;
      }
    }
    let addr: Affine;
    const m = /^(-?(?:0x[0-9a-f]+|\d+))?\((\$?[a-z0-9]+)\)$/.exec(ops[1] ?? "");
    if (
      m !== null && this.savedGp && /^\$?(sp|fp|s8)$/.test(m[2]!) && this.fixed.gp !== undefined
    ) {
      return konst(this.fixed.gp);
    }
    if (m !== null) {
      addr = addImm(this.value(reg(m[2])!, j + 1, depth + 1), m[1] === undefined ? 0 : num(m[1])!);
    } else if (ops[1]?.startsWith("[")) {
      const inner = operands(ops[1].slice(1, ops[1].lastIndexOf("]")));
      const b = reg(inner[0]);
      if (b === undefined) return BAD;
      addr = this.value(b, j + 1, depth + 1);
      const x = inner[1];
      if (x !== undefined && num(x) !== undefined) addr = addImm(addr, num(x)!);
      else if (x !== undefined) {
        const sh = /lsl #(\d+)/.exec(inner[2] ?? "");
        addr = add(addr, shift(this.value(reg(x)!, j + 1, depth + 1), sh ? Number(sh[1]) : 0));
      }
    } else if (ops.length === 3) {
      // PowerPC indexed loads: `lwax rD, rA, rB` reads rA + rB (rA = r0 reads 0).
      const left = ops[1] === "r0" ? konst(0) : this.value(reg(ops[1])!, j + 1, depth + 1);
      addr = add(left, this.value(reg(ops[2])!, j + 1, depth + 1));
    } else return INDEX;
    // What an unknown address holds is unknown: as an index, it is still an index.
    if (addr.bad) return INDEX;
    // A loaded value used as an index: the index itself, whatever it was read from.
    if (addr.load !== undefined && addr.idx === undefined) {
      addr = { c: addr.c, base: addr.base, idx: addr.load.mul };
    }
    if (addr.idx === undefined && addr.base && !this.cache.isCode(addr.c)) {
      // A constant slot: a GOT entry holding an address.
      const bytes = this.image.read(addr.c, size);
      if (bytes === undefined || size < 4) return INDEX;
      const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const little = this.image.endian === "little";
      return konst(size === 8 ? Number(v.getBigUint64(0, little)) : v.getUint32(0, little));
    }
    if (addr.idx === undefined || !addr.base) return INDEX;
    return { c: 0, base: false, load: { addr, size, signed, mul: 1 } };
  }

  /**
   * The case count from the nearest conditional branch before `back[from]`: compare-and-branch
   * with a constant register (RISC-V), `sltiu` + `beqz`/`bnez` (MIPS), or `cmp`/`cmplwi` + an
   * unsigned or signed "above"/"below" branch (ARM, PowerPC).
   */
  bound(from: number): number | undefined {
    for (let i = from; i < this.back.length; i++) {
      const t = this.back[i]!;
      if (t.flow === "call" || t.flow === "icall") return undefined;
      if (t.flow !== "cjump") continue;
      return this.#boundAt(i);
    }
    return undefined;
  }

  #boundAt(i: number): number | undefined {
    const t = this.back[i]!;
    const mn = bare(t.mnemonic);
    const ops = operands(t.ops);
    const constOf = (s: string | undefined) => {
      const r = reg(s);
      if (r === undefined) return undefined;
      const v = this.value(r, i + 1);
      return v.base && v.idx === undefined && v.load === undefined && !v.bad ? v.c : undefined;
    };
    // RISC-V: out of range when `bltu N, i` / `bgeu i, N+…`; in range when `bgeu N, i`.
    if (/^b(ltu|geu|gtu|leu)$/.test(mn) && ops.length === 3) {
      const [x, y] = [constOf(ops[0]), constOf(ops[1])];
      if (mn === "bltu" && x !== undefined) return x + 1;
      if (mn === "bgeu" && y !== undefined) return y;
      if (mn === "bgtu" && y !== undefined) return y + 1;
      if (mn === "bleu" && x !== undefined) return x;
      return undefined;
    }
    // MIPS: `sltiu t, i, N; beqz t, default` (or `bnez t, cases`).
    if ((mn === "beqz" || mn === "bnez") && ops.length === 2) {
      const t0 = reg(ops[0]);
      for (let j = i + 1; j < Math.min(this.back.length, i + 4); j++) {
        const u = this.back[j]!;
        const uo = operands(u.ops);
        if (reg(uo[0]) !== t0) continue;
        if (u.mnemonic === "sltiu" && num(uo[2] ?? "") !== undefined) return num(uo[2]!);
        if (u.mnemonic === "sltu") {
          const n = constOf(uo[1]);
          return n === undefined ? undefined : n + 1;
        }
        return undefined;
      }
      return undefined;
    }
    const above = /^b(hi|gt|ls|le)$/.test(mn);
    const aboveEq = /^b(hs|cs|ge|lo|cc|lt)$/.test(mn);
    if (!above && !aboveEq) return undefined;
    for (let j = i + 1; j < Math.min(this.back.length, i + 4); j++) {
      const u = this.back[j]!;
      if (!/^(cmp|cmpw|cmplw|cmpd|cmpld|cmpwi|cmplwi|cmpdi|cmpldi)$/.test(bare(u.mnemonic))) {
        continue;
      }
      const n = num(operands(u.ops).pop() ?? "");
      if (n === undefined) return undefined;
      return above ? n + 1 : n;
    }
    return undefined;
  }
}

/** Constant registers for `image`: MIPS `$gp` (`.got` + 0x7ff0), PowerPC64 `r2` (`.got` + 0x8000). */
export function fixedRegisters(image: BinaryImage): Fixed {
  const got = image.sections.find((s) => s.name === ".got")?.start;
  if (got === undefined) return {};
  if (image.arch === "mips" || image.arch === "mips64") return { gp: got + 0x7ff0 };
  if (image.arch === "ppc64") return { r2: got + 0x8000 };
  return {};
}

/** Resolve the switch ending at `jump` (`back` runs backwards from the instruction before it). */
export function resolveRisc(
  image: BinaryImage,
  cache: CodeCache,
  jump: RiscText,
  back: readonly RiscText[],
  fixed: Fixed,
  read: ReadEntries,
): SwitchTable | undefined {
  const arm = image.arch === "arm";
  const s = new Slice(image, cache, back, fixed);
  const mn = bare(jump.mnemonic);
  const ops = operands(jump.ops);
  if (arm) {
    const special = armForms(jump, mn, ops, s, read);
    if (special !== null) return special;
  }
  let target: Affine;
  let loadFrom = 0;
  if (mn === "bctr") {
    const i = back.findIndex((t) => t.mnemonic === "mtctr");
    if (i < 0) return undefined;
    target = s.value(reg(operands(back[i]!.ops)[0])!, i + 1);
    loadFrom = i + 1;
  } else if (arm && mn === "add" && ops[0] === "pc" && ops.length === 3) {
    // clang's A32 tables: `adr r2, T; ldr r1, [r2, r1, lsl #2]; add pc, r2, r1` (offsets from T).
    const [x, y] = [reg(ops[1]), reg(ops[2])];
    if (x === undefined || y === undefined || x === "pc" || y === "pc") return undefined;
    target = add(s.value(x, 0), s.value(y, 0));
  } else {
    const r = reg(ops[0]);
    if (r === undefined) return undefined;
    target = s.value(r, 0);
  }
  const load = target.load;
  if (target.bad || load === undefined || target.idx !== undefined) return undefined;
  if (load.addr.idx !== load.size) return undefined;
  const table = load.addr.c;
  const base = target.base ? target.c : 0;
  const mul = load.mul;
  // The slice position of the table load bounds where the range check can be.
  const count = s.bound(loadFrom);
  const toTarget = (e: number) => {
    const to = base + e * mul;
    return arm ? to & ~1 : to;
  };
  // Without a range check, the index's width caps an unbounded read (a computed goto's
  // `and r3, r4, #127`; the table itself may be shorter).
  const cap = count === undefined ? load.addr.cap : undefined;
  const targets = read(table, load.size, load.signed, count, toTarget)?.slice(0, cap);
  if (targets !== undefined) {
    const sw: SwitchTable = { table, targets, bounded: count !== undefined };
    if (cap !== undefined) sw.capped = true;
    return withInline(cache, sw, load.size);
  }
  // The nearest check was not this index's (a computed goto masks its index instead): read the
  // table while its entries are code and keep those inside the function.
  if (count === undefined || cache.isCode(table)) return undefined;
  const loose = read(table, load.size, load.signed, undefined, toTarget);
  return loose && { table, targets: loose, bounded: false };
}

/**
 * The target of a MIPS long branch `jr $at` (`back` runs backwards from the instruction before
 * it): `lui`/`addiu` in fixed-address code, or in PIC code a GOT page entry plus an offset, read
 * through `$gp` or through the copy of `$gp` the function saved in its frame (o32's cprestore
 * slot: gcc -O0 reloads it into `$at` rather than trusting `$gp`). Undefined unless the address
 * is a constant that is code.
 */
export function resolveLongBranch(
  image: BinaryImage,
  cache: CodeCache,
  back: readonly RiscText[],
  fixed: Fixed,
): number | undefined {
  const v = new Slice(image, cache, back, fixed, true).value("at", 0);
  const ok = !v.bad && v.base && v.idx === undefined && v.load === undefined;
  return ok && cache.isCode(v.c) ? v.c : undefined;
}

/**
 * Whether the register `jump` goes through was last set by a load (`ld a5, 0(a5); jr a5`,
 * `ldx r9, r28, r7; mtctr r9; bctr`).
 */
export function loadsJumpRegister(jump: RiscText, back: readonly RiscText[]): boolean {
  let r = reg(operands(jump.ops)[0]);
  let from = 0;
  if (bare(jump.mnemonic) === "bctr") {
    // PowerPC jumps through CTR: the register is the one `mtctr` copied.
    from = back.findIndex((t) => t.mnemonic === "mtctr") + 1;
    r = from > 0 ? reg(operands(back[from - 1]!.ops)[0]) : undefined;
  }
  if (r === undefined) return false;
  for (const t of back.slice(from)) {
    const ops = operands(t.ops);
    const mn = bare(t.mnemonic);
    if (reg(ops[0]) !== r || STORE.test(mn) || COMPARE.test(mn)) continue;
    // Thumb's mode bit set on a loaded label address (`orr r3, r3, #1`) keeps the load.
    if (mn === "orr" && reg(ops.length === 3 ? ops[1] : ops[0]) === r && num(ops.at(-1)!) === 1) {
      continue;
    }
    return LOADS[mn] !== undefined;
  }
  return false;
}

/** A table inside code (PowerPC, ARM) is data: the gap scan must not decode it. */
function withInline(cache: CodeCache, sw: SwitchTable, size: number): SwitchTable {
  if (cache.isCode(sw.table)) sw.inlineBytes = sw.targets.length * size;
  return sw;
}

/** Thumb `tbb`/`tbh [pc, r]`, A32 `add pc, pc, r, lsl #2` and `ldr pc, [pc, r, lsl #2]`. */
function armForms(
  jump: RiscText,
  mn: string,
  ops: string[],
  s: Slice,
  read: ReadEntries,
): SwitchTable | undefined | null {
  const cond = /^(add|ldr)(ls|lo|cc)$/.exec(mn);
  if (mn === "tbb" || mn === "tbh") {
    const inner = operands((ops[0] ?? "").replace(/^\[|\]$/g, ""));
    if (inner[0] !== "pc") return undefined;
    const table = jump.address + 4;
    const count = s.bound(0);
    const size = mn === "tbb" ? 1 : 2;
    const targets = read(table, size, false, count, (e) => table + 2 * e);
    // Without a bound the entries run into the code they point at: no way to stop reading.
    if (targets === undefined || count === undefined) return undefined;
    return { table, targets, bounded: true, inlineBytes: count * size };
  }
  if (cond === null || ops[0] !== "pc") return null;
  // The condition is the range check: `cmp r, #N` then `addls`/`ldrls` (N + 1 cases).
  const cmp = s.back.find((t) => bare(t.mnemonic) === "cmp");
  const n = cmp === undefined ? undefined : num(operands(cmp.ops).pop() ?? "");
  if (n === undefined) return undefined;
  const count = cond[2] === "ls" ? n + 1 : n;
  const pc = jump.address + 8;
  if (cond[1] === "add" && ops[1] === "pc" && /lsl #2$/.test(ops[3] ?? ops[2] ?? "")) {
    const targets = Array.from({ length: count }, (_, i) => pc + 4 * i);
    return { table: pc, targets, bounded: true };
  }
  if (cond[1] === "ldr" && /^\[pc, r\d+, lsl #2\]$/.test(ops[1] ?? "")) {
    const targets = read(pc, 4, false, count, (e) => e & ~1);
    return targets && { table: pc, targets, bounded: true, inlineBytes: count * 4 };
  }
  return undefined;
}

/**
 * MIPS PIC calls go through the GOT: `lw $t9, off($gp); jalr $t9`. Returns the resolver of the
 * slot such an indirect call or jump reads (undefined for other ISAs), so imports and their
 * not-returning (`__assert_fail`) are known at the call.
 */
export function gotSlotResolver(
  image: BinaryImage,
  cache: CodeCache,
): ((insn: Insn, before: () => Iterable<Insn>) => number | undefined) | undefined {
  const gp = fixedRegisters(image).gp;
  if (gp === undefined) return undefined;
  const text = (insn: Insn) => {
    const bytes = image.read(insn.address, insn.size) ?? new Uint8Array(0);
    return cache.decoderFor(insn.address).format(bytes, insn.address, insn);
  };
  return (insn, before) => {
    let target = reg(operands(text(insn).opStr).pop());
    if (target === undefined) return undefined;
    let n = 0;
    for (const b of before()) {
      if (++n > 8 || b.flow === "call" || b.flow === "icall") return undefined;
      const t = text(b);
      const ops = operands(t.opStr);
      if (reg(ops[0]) !== target || STORE.test(t.mnemonic)) continue;
      // gcc -O0 loads the slot into another register first: `lw v0, off($gp); move t9, v0`.
      if (t.mnemonic === "move" && reg(ops[1]) !== undefined) {
        target = reg(ops[1]);
        continue;
      }
      const m = /^(-?(?:0x[0-9a-f]+|\d+))?\(\$gp\)$/.exec(ops[1] ?? "");
      return t.mnemonic === "lw" && m !== null
        ? gp + (m[1] === undefined ? 0 : num(m[1])!)
        : undefined;
    }
    return undefined;
  };
}
