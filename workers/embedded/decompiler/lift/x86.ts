/**
 * x86 and x86-64 instructions → IR, one lifter for both modes over iced-x86's decoded operands.
 * Flags are lazy ({@link FlagState}); vector and floating-point instructions become typed
 * intrinsics (`xmm0 = __addsd(xmm0, xmm1)`); anything else becomes an `__asm_<mnemonic>`
 * statement that reads and writes its operands explicitly, so lifting never fails.
 */

import type { Insn, Operand } from "../../arch/types.ts";
import {
  type BinOp,
  constant,
  type Expr,
  joinHalves,
  type Reg,
  reg,
  type Stmt,
  type Tmp,
} from "../ir.ts";
import { carry, condition, conditionName, type FlagState } from "./flags.ts";
import { regSlice } from "./x86_regs.ts";
import { type Control, type LiftedInsn, Unmodelled } from "./lifted.ts";

// Instructions with no effect the IR models.
const NO_EFFECT = new Set([
  "nop",
  "endbr64",
  "endbr32",
  "pause",
  "lfence",
  "mfence",
  "sfence",
  "prefetcht0",
  "prefetcht1",
  "prefetcht2",
  "prefetchnta",
  "prefetchw",
  "fnop",
  "vzeroupper",
  "emms",
]);

// Implicit register effects of instructions the lifter keeps as intrinsics.
const IMPLICIT: Record<string, { name: string; reads: string[]; writes: string[] }> = {
  cpuid: { name: "__cpuid", reads: ["eax", "ecx"], writes: ["eax", "ebx", "ecx", "edx"] },
  rdtsc: { name: "__rdtsc", reads: [], writes: ["eax", "edx"] },
  rdtscp: { name: "__rdtscp", reads: [], writes: ["eax", "edx", "ecx"] },
  xgetbv: { name: "__xgetbv", reads: ["ecx"], writes: ["eax", "edx"] },
  syscall: {
    name: "__syscall",
    reads: ["rax", "rdi", "rsi", "rdx", "r10", "r8", "r9"],
    writes: ["rax", "rcx", "r11"],
  },
};

const STRING_OPS = /^(rep |repe |repne )?(movs|stos|lods|scas|cmps)([bwdq])$/;
const XMM = /^xmm\d+$/;
const X87 =
  /^f(i?ld|ldz|ld1|i?stp?|isttp|i?(add|sub|subr|mul|div|divr)p?|chs|abs|sqrt|xch|u?comip?|u?comp{0,2}|tst|nstsw|nstcw|ldcw|wait|rndint|cmovn?(b|e|be|u))$/;
const X87_OPS: Record<string, string> = {
  add: "__fadd",
  sub: "__fsub",
  subr: "__fsub",
  mul: "__fmul",
  div: "__fdiv",
  divr: "__fdiv",
};
/** 1.0 as an x87 extended value. */
const X87_ONE = 0x3fff8000000000000000n;

/** The 16-byte value with halves `lo` and `hi` (8 bytes each). */
function concat(lo: Expr, hi: Expr): Expr {
  return joinHalves(hi, lo);
}

/** `[lo, hi]` of a 16-byte constant or {@link concat}, else undefined. */
function halvesOf(e: Expr): [Expr, Expr] | undefined {
  if (e.k === "const" && e.size === 16) {
    return [constant(e.value, 8), constant(e.value >> 64n, 8)];
  }
  if (
    e.k === "bin" && e.op === "or" && e.size === 16 && e.a.k === "bin" && e.a.op === "shl" &&
    e.a.a.k === "ext" && e.a.a.a.size === 8 && e.a.b.k === "const" && e.a.b.value === 64n &&
    e.b.k === "ext" && e.b.a.size === 8
  ) return [e.b.a, e.a.a.a];
  return undefined;
}
/**
 * The double-width operation of `sbb`/`adc` on high halves `a`, `b` (result `r`) after the flags
 * `low` of a `sub`/`cmp` (`add`) of the low halves: the concatenated operands, for conditions
 * read as one comparison of the whole values.
 */
function wideOperation(
  m: "adc" | "sbb",
  low: FlagState | undefined,
  a: Expr,
  b: Expr,
  r: Expr,
): { wide: { a: Expr; b: Expr; res: Expr } } | Record<never, never> {
  if (!low || low.size !== a.size || low.op !== (m === "sbb" ? "sub" : "add")) return {};
  return {
    wide: { a: joinHalves(a, low.a), b: joinHalves(b, low.b), res: joinHalves(r, low.res) },
  };
}

const VECTOR_REG = /^([xyz]mm|mm|st|k)\d*/;

/** Lifts instructions of one function; keeps the temporaries' counter and the flag state. */
export class X86Lifter {
  readonly bits: 32 | 64;
  readonly ptr: number;
  /** The flag state at the current point; undefined = set before this block. */
  flags: FlagState | undefined;
  /** Set when a condition was read before any instruction of this block set the flags. */
  usedEntryFlags = false;
  /**
   * x87 stack depth relative to the function's entry (or the last call), known statically:
   * `st(i)` is the register `fp<depth-1-i>`; index -1 is `st0`, the value a call returns.
   */
  x87 = 0;
  /**
   * The x87 control word's save slot (the operand of the last `fnstcw`) and whether the mode
   * loaded since then truncates. Compilers change the rounding mode only around a C conversion
   * (`fnstcw S; ...; fldcw T; fistp; fldcw S`): loading any word other than the saved one means
   * "round toward zero", loading the saved one puts the caller's mode back.
   */
  #cwSaved: string | undefined;
  #cwTruncates = false;
  #nextTmp = 1;
  #out: Stmt[] = [];
  #at = 0;

  readonly #bytesAt: ((address: number, length: number) => Uint8Array | undefined) | undefined;

  /** `bytesAt` reads the code (for 64-bit immediates a JS number cannot hold exactly). */
  constructor(
    bits: 32 | 64,
    bytesAt?: (address: number, length: number) => Uint8Array | undefined,
  ) {
    this.bits = bits;
    this.ptr = bits / 8;
    this.#bytesAt = bytesAt;
  }

  /** The stack pointer's full name. */
  get sp(): string {
    return this.bits === 64 ? "rsp" : "esp";
  }

  /** Lifts one instruction (decoded with `detail` and `text`). */
  lift(insn: Insn): LiftedInsn {
    this.#out = [];
    this.#at = insn.address;
    const mnemonic = (insn.mnemonic ?? "").replace(/^(lock|notrack|bnd|xacquire|xrelease) /, "");
    if (insn.flow === "invalid") {
      return { stmts: [], control: { k: "stop", why: "undecodable bytes" }, lifted: false };
    }
    let control: Control | undefined;
    let lifted = true;
    try {
      const result = this.#dispatch(mnemonic, insn);
      if (result === false) {
        this.#out = [];
        this.#asm(mnemonic, insn);
        lifted = IMPLICIT[mnemonic] !== undefined;
      } else control = result;
    } catch (err) {
      if (!(err instanceof Unmodelled)) throw err;
      this.#out = [];
      this.#asm(mnemonic, insn);
      lifted = false;
    }
    return { stmts: this.#out, ...(control ? { control } : {}), lifted };
  }

  // ---- operands ----------------------------------------------------------------------------

  /** A new temporary of `size` bytes holding `value`. */
  #tmp(value: Expr): Tmp {
    const t: Tmp = { k: "tmp", id: this.#nextTmp++, size: value.size };
    this.#out.push({ k: "set", dst: t, src: value, at: this.#at });
    return t;
  }

  /** The value of register `name` (a sub-register reads part of its full register). */
  readReg(name: string, size: number): Expr {
    if (XMM.test(name)) {
      const lo: Reg = { k: "reg", name, size: 8 };
      if (size <= 8) return size === 8 ? lo : { k: "trunc", a: lo, size };
      return concat(lo, { k: "reg", name: `${name}_hi`, size: 8 });
    }
    const s = regSlice(this.bits, name, size);
    const full: Reg = { k: "reg", name: s.full, size: s.fullSize };
    if (s.size === s.fullSize) return full;
    const shifted: Expr = s.shift === 0
      ? full
      : { k: "bin", op: "shr", a: full, b: constant(s.shift, 1), size: s.fullSize };
    return { k: "trunc", a: shifted, size: s.size };
  }

  /** Writes `value` to register `name`: 32-bit writes zero the upper half in 64-bit code. */
  writeReg(name: string, value: Expr): void {
    if (XMM.test(name)) return this.#writeXmm(name, value);
    const s = regSlice(this.bits, name, value.size);
    const full: Reg = { k: "reg", name: s.full, size: s.fullSize };
    let src: Expr;
    if (s.size >= s.fullSize) {
      src = value.size === s.fullSize ? value : { k: "trunc", a: value, size: s.fullSize };
    } else if (s.size === 4 && s.fullSize === 8 && !VECTOR_REG.test(s.full)) {
      src = { k: "ext", signed: false, a: value, size: 8 };
    } else {
      const mask = ((1n << BigInt(s.size * 8)) - 1n) << BigInt(s.shift);
      const kept: Expr = {
        k: "bin",
        op: "and",
        a: full,
        b: constant(~mask, s.fullSize),
        size: s.fullSize,
      };
      let part: Expr = { k: "ext", signed: false, a: value, size: s.fullSize };
      if (s.shift > 0) {
        part = { k: "bin", op: "shl", a: part, b: constant(s.shift, 1), size: s.fullSize };
      }
      src = { k: "bin", op: "or", a: kept, b: part, size: s.fullSize };
    }
    this.#out.push({ k: "set", dst: full, src, at: this.#at });
  }

  /**
   * An xmm register is two 8-byte registers, `xmmN` (the low half, where scalar doubles and
   * floats live) and `xmmN_hi`: scalar code then reads and writes plain 8-byte values, and a
   * 16-byte write sets both halves.
   */
  #writeXmm(name: string, value: Expr, exact = true): void {
    const lo: Reg = { k: "reg", name, size: 8 };
    const set = (dst: Reg, src: Expr): void => {
      this.#out.push({ k: "set", dst, src, at: this.#at });
    };
    if (value.size === 8) return set(lo, value);
    if (value.size < 8 && !exact) return set(lo, { k: "ext", signed: false, a: value, size: 8 });
    if (value.size < 8) {
      const mask = (1n << BigInt(value.size * 8)) - 1n;
      return set(lo, {
        k: "bin",
        op: "or",
        a: { k: "bin", op: "and", a: lo, b: constant(~mask, 8), size: 8 },
        b: { k: "ext", signed: false, a: value, size: 8 },
        size: 8,
      });
    }
    const hi: Reg = { k: "reg", name: `${name}_hi`, size: 8 };
    const parts = halvesOf(value);
    if (parts) {
      // Both halves are read before either is written (movaps xmm1, xmm0 style swaps).
      const l = parts[0].k === "const" ? parts[0] : this.#tmp(parts[0]);
      const h = parts[1].k === "const" ? parts[1] : this.#tmp(parts[1]);
      set(lo, l);
      set(hi, h);
      return;
    }
    const t = this.#tmp(value.size === 16 ? value : { k: "trunc", a: value, size: 16 });
    set(lo, { k: "trunc", a: t, size: 8 });
    set(hi, {
      k: "trunc",
      a: { k: "bin", op: "shr", a: t, b: constant(64, 1), size: 16 },
      size: 8,
    });
  }

  /** The address a memory operand designates. */
  address(op: Operand, insn: Insn): Expr {
    const p = this.ptr;
    if (op.base === "rip" || op.base === "eip") {
      return constant(insn.address + insn.size + (op.disp ?? 0), p);
    }
    let e: Expr | undefined;
    const add = (x: Expr) => {
      e = e === undefined ? x : { k: "bin", op: "add", a: e, b: x, size: p };
    };
    const seg = /\b([fg]s):/.exec(insn.opStr ?? "");
    if (seg) add({ k: "reg", name: `${seg[1]}_base`, size: p });
    if (op.base) add(this.#addrReg(op.base));
    if (op.index) {
      const idx = this.#addrReg(op.index);
      const scale = op.scale ?? 1;
      add(scale === 1 ? idx : { k: "bin", op: "mul", a: idx, b: constant(scale, p), size: p });
    }
    const disp = op.disp ?? 0;
    if (disp !== 0 || e === undefined) add(constant(disp, p));
    return e!;
  }

  #addrReg(name: string): Expr {
    const v = this.readReg(name, regSlice(this.bits, name, this.ptr).size);
    return v.size === this.ptr ? v : { k: "ext", signed: false, a: v, size: this.ptr };
  }

  /** The value of operand `op`; immediates take `size` (the other operand's). */
  read(op: Operand, insn: Insn, size: number): Expr {
    switch (op.kind) {
      case "reg":
        return this.readReg(op.reg!, op.size ?? size);
      case "imm": {
        const imm = op.imm ?? 0;
        // A 64-bit immediate (movabs) past 2^53 lost bits as a JS number: read it exactly.
        if (!Number.isSafeInteger(imm) && size === 8 && this.#bytesAt) {
          const b = this.#bytesAt(insn.address + insn.size - 8, 8);
          if (b && b.length === 8) {
            const exact = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
            return constant(exact, size);
          }
        }
        return constant(BigInt(Math.trunc(imm)), size);
      }
      case "mem":
        return { k: "load", addr: this.address(op, insn), size: op.size || size };
    }
  }

  /** Writes `value` to operand `op`. */
  write(op: Operand, insn: Insn, value: Expr): void {
    if (op.kind === "reg") this.writeReg(op.reg!, value);
    else if (op.kind === "mem") {
      this.#out.push({
        k: "store",
        addr: this.address(op, insn),
        value,
        size: value.size,
        at: this.#at,
      });
    } else throw new Unmodelled();
  }

  #setFlags(op: FlagState["op"], a: Expr, b: Expr, res: Expr, cf?: Expr): void {
    this.flags = { op, a, b, res, size: res.size, at: this.#at, ...(cf ? { cf } : {}) };
  }

  /** Condition `cc` (canonical) over the current flags. */
  cond(cc: string): Expr {
    if (this.flags === undefined) {
      this.usedEntryFlags = true;
      return { k: "intr", name: `__flags_${cc}`, args: [], size: 1 };
    }
    return condition(this.flags, cc);
  }

  #carryIn(): Expr {
    if (this.flags === undefined) {
      this.usedEntryFlags = true;
      return { k: "intr", name: "__flags_b", args: [], size: 1 };
    }
    return carry(this.flags);
  }

  // ---- instructions ------------------------------------------------------------------------

  #dispatch(m: string, insn: Insn): Control | undefined | false {
    const ops = insn.operands;
    const o0 = ops[0];
    const o1 = ops[1];
    const size0 = o0?.size ?? this.ptr;
    const bin = (op: BinOp, a: Expr, b: Expr, size = a.size): Expr => ({
      k: "bin",
      op,
      a,
      b,
      size,
    });

    if (NO_EFFECT.has(m) || m.startsWith("prefetch")) return undefined;
    if (m.startsWith("f") && X87.test(m)) return this.#x87(m, insn);
    // `movsd xmm0, [mem]` and `cmpsd xmm0, xmm1, 1` are SSE, not the string instructions.
    const sse = ops.some((o) => o.kind === "reg" && /^[xyz]mm/.test(o.reg ?? ""));
    const str = sse ? null : STRING_OPS.exec(m);
    if (str) return this.#string(str[1]?.trim(), str[2]!, str[3]!);
    const jcc = /^j(.+)$/.exec(m);
    if (jcc && insn.flow === "cjump") {
      const cc = conditionName(jcc[1]!);
      const target = insn.target ?? 0;
      if (cc) return { k: "cjump", cond: this.cond(cc), target };
      if (m === "jrcxz" || m === "jecxz" || m === "jcxz") {
        const r = m === "jrcxz" ? "rcx" : m === "jecxz" ? "ecx" : "cx";
        const size = r === "rcx" ? 8 : r === "ecx" ? 4 : 2;
        return {
          k: "cjump",
          cond: bin("eq", this.readReg(r, size), constant(0, size), 1),
          target,
        };
      }
      return false;
    }
    if (m === "loop" || m === "loope" || m === "loopne") {
      const c = this.readReg(this.bits === 64 ? "rcx" : "ecx", this.ptr);
      const dec = this.#tmp(bin("sub", c, constant(1, this.ptr)));
      this.writeReg(this.bits === 64 ? "rcx" : "ecx", dec);
      let cond = bin("ne", dec, constant(0, this.ptr), 1);
      if (m !== "loop") cond = bin("land", cond, this.cond(m === "loope" ? "e" : "ne"), 1);
      return { k: "cjump", cond, target: insn.target ?? 0 };
    }
    const setcc = /^set(.+)$/.exec(m);
    if (setcc) {
      const cc = conditionName(setcc[1]!);
      if (!cc || !o0) return false;
      this.write(o0, insn, this.cond(cc));
      return undefined;
    }
    const cmov = /^cmov(.+)$/.exec(m);
    if (cmov) {
      const cc = conditionName(cmov[1]!);
      if (!cc || !o0 || !o1) return false;
      const src = this.read(o1, insn, size0);
      const old = this.read(o0, insn, size0);
      this.write(o0, insn, { k: "select", c: this.cond(cc), t: src, f: old, size: size0 });
      return undefined;
    }

    switch (m) {
      case "mov":
      case "movabs": {
        if (!o0 || !o1) return false;
        this.write(o0, insn, this.read(o1, insn, size0));
        return undefined;
      }
      case "movzx":
      case "movsx":
      case "movsxd": {
        if (!o0 || !o1) return false;
        const v = this.read(o1, insn, o1.size ?? size0);
        this.write(
          o0,
          insn,
          v.size === size0 ? v : { k: "ext", signed: m !== "movzx", a: v, size: size0 },
        );
        return undefined;
      }
      case "lea": {
        if (!o0 || !o1 || o1.kind !== "mem") return false;
        let a = this.address(o1, insn);
        if (a.size > size0) a = { k: "trunc", a, size: size0 };
        else if (a.size < size0) a = { k: "ext", signed: false, a, size: size0 };
        this.write(o0, insn, a);
        return undefined;
      }
      case "xchg": {
        if (!o0 || !o1) return false;
        const a = this.#tmp(this.read(o0, insn, size0));
        const b = this.#tmp(this.read(o1, insn, size0));
        this.write(o0, insn, b);
        this.write(o1, insn, a);
        return undefined;
      }
      case "add":
      case "sub":
      case "and":
      case "or":
      case "xor":
      case "adc":
      case "sbb":
      case "cmp":
      case "test": {
        if (!o0 || !o1) return false;
        const same = o0.kind === "reg" && o1.kind === "reg" && o0.reg === o1.reg;
        if (same && (m === "xor" || m === "sub")) {
          const zero = constant(0, size0);
          this.write(o0, insn, zero);
          this.#setFlags(m === "xor" ? "logic" : "sub", zero, zero, zero);
          return undefined;
        }
        if (
          m === "and" && o0.kind === "reg" && o0.reg === this.sp && o1.kind === "imm" &&
          (o1.imm ?? 0) < 0 && ((-(o1.imm ?? 0)) & (-(o1.imm ?? 0) - 1)) === 0
        ) {
          // Stack realignment (`and rsp, -16` in main): only padding below the frame. Kept as
          // a no-op so offsets from the entry stack pointer still name the locals; C has no
          // alignment padding to show.
          const sp = this.#tmp(this.readReg(this.sp, this.ptr));
          this.#setFlags("logic", sp, sp, sp);
          return undefined;
        }
        const a = this.#tmp(this.read(o0, insn, size0));
        const b = same ? a : this.#tmp(this.read(o1, insn, size0));
        if (same && m === "sbb") {
          const cin = this.#tmp(this.#carryIn());
          const c = this.#tmp({ k: "ext", signed: false, a: cin, size: size0 });
          const res = this.#tmp({ k: "un", op: "neg", a: c, size: size0 });
          this.write(o0, insn, res);
          this.flags = { op: "sbb", a, b, res, size: size0, cin, at: this.#at };
          return undefined;
        }
        const op: BinOp = m === "cmp" || m === "sbb"
          ? "sub"
          : m === "test"
          ? "and"
          : m === "adc"
          ? "add"
          : m as BinOp;
        let res: Expr = bin(op, a, b);
        let cin: Expr | undefined;
        const low = this.flags;
        if (m === "adc" || m === "sbb") {
          cin = this.#tmp(this.#carryIn());
          res = bin(op, res, { k: "ext", signed: false, a: cin, size: size0 });
        }
        if (m === "cmp" || m === "test") {
          this.#setFlags(m === "cmp" ? "sub" : "logic", a, b, res);
          return undefined;
        }
        const r = this.#tmp(res);
        this.write(o0, insn, r);
        if (cin && (m === "adc" || m === "sbb")) {
          this.flags = {
            op: m,
            a,
            b,
            res: r,
            size: size0,
            cin,
            at: this.#at,
            ...wideOperation(m, low, a, b, r),
          };
          return undefined;
        }
        this.#setFlags(m === "add" ? "add" : m === "sub" ? "sub" : "logic", a, b, r);
        return undefined;
      }
      case "inc":
      case "dec": {
        if (!o0) return false;
        const cf = this.flags ? this.#tmp(carry(this.flags)) : undefined;
        const a = this.#tmp(this.read(o0, insn, size0));
        const one = constant(1, size0);
        const r = this.#tmp(bin(m === "inc" ? "add" : "sub", a, one));
        this.write(o0, insn, r);
        this.#setFlags(m, a, one, r, cf);
        return undefined;
      }
      case "neg":
      case "not": {
        if (!o0) return false;
        const a = this.#tmp(this.read(o0, insn, size0));
        const r = this.#tmp({ k: "un", op: m, a, size: size0 });
        this.write(o0, insn, r);
        if (m === "neg") this.#setFlags("neg", a, constant(0, size0), r);
        return undefined;
      }
      case "shl":
      case "sal":
      case "shr":
      case "sar":
      case "rol":
      case "ror": {
        if (!o0) return false;
        const a = this.#tmp(this.read(o0, insn, size0));
        const rawCount = o1 ? this.read(o1, insn, 1) : constant(1, 1);
        const count = rawCount.k === "const"
          ? constant(rawCount.value & (size0 === 8 ? 63n : 31n), 1)
          : bin(
            "and",
            rawCount.size === 1 ? rawCount : { k: "trunc", a: rawCount, size: 1 },
            constant(size0 === 8 ? 63 : 31, 1),
          );
        let res: Expr;
        if (m === "rol" || m === "ror") {
          const back = bin("sub", constant(size0 * 8, 1), count);
          res = bin(
            "or",
            bin(m === "rol" ? "shl" : "shr", a, count),
            bin(m === "rol" ? "shr" : "shl", a, back),
          );
        } else res = bin(m === "sal" ? "shl" : m as BinOp, a, count);
        const r = this.#tmp(res);
        this.write(o0, insn, r);
        if (m !== "rol" && m !== "ror") {
          this.#setFlags("bits", a, count, r, {
            k: "intr",
            name: `__cf_${m}`,
            args: [a, count],
            size: 1,
          });
        }
        return undefined;
      }
      case "shld":
      case "shrd": {
        // Double-precision shifts: bits shifted in come from the second operand.
        const o2 = ops[2];
        if (!o0 || !o1 || !o2) return false;
        const a = this.#tmp(this.read(o0, insn, size0));
        const b = this.#tmp(this.read(o1, insn, size0));
        const raw = this.read(o2, insn, 1);
        const mask = size0 === 8 ? 63n : 31n;
        const count = raw.k === "const" ? constant(raw.value & mask, 1) : this.#tmp(
          bin("and", raw.size === 1 ? raw : { k: "trunc", a: raw, size: 1 }, constant(mask, 1)),
        );
        const back = bin("sub", constant(size0 * 8, 1), count);
        const left = m === "shld";
        const res = bin(
          "or",
          bin(left ? "shl" : "shr", a, count),
          bin(left ? "shr" : "shl", b, back),
        );
        const r = this.#tmp({
          k: "select",
          c: bin("eq", count, constant(0, 1), 1),
          t: a,
          f: res,
          size: size0,
        });
        this.write(o0, insn, r);
        this.#setFlags("bits", a, count, r, {
          k: "intr",
          name: `__cf_${m}`,
          args: [a, b, count],
          size: 1,
        });
        return undefined;
      }
      case "imul":
      case "mul": {
        if (!o0) return false;
        if (o1 && m === "imul") {
          const a = this.#tmp(this.read(ops.length === 3 ? o1 : o0, insn, size0));
          const b = this.#tmp(this.read(ops.length === 3 ? ops[2]! : o1, insn, size0));
          const r = this.#tmp(bin("mul", a, b));
          this.write(o0, insn, r);
          this.#setFlags("unknown", a, b, r);
          return undefined;
        }
        return this.#wideMul(m === "imul", o0, insn);
      }
      case "div":
      case "idiv": {
        if (!o0) return false;
        return this.#divide(m === "idiv", o0, insn);
      }
      case "cbw":
      case "cwde":
      case "cdqe": {
        const from = m === "cbw" ? "al" : m === "cwde" ? "ax" : "eax";
        const to = m === "cbw" ? "ax" : m === "cwde" ? "eax" : "rax";
        const fs = m === "cbw" ? 1 : m === "cwde" ? 2 : 4;
        this.writeReg(to, { k: "ext", signed: true, a: this.readReg(from, fs), size: fs * 2 });
        return undefined;
      }
      case "cwd":
      case "cdq":
      case "cqo": {
        const size = m === "cwd" ? 2 : m === "cdq" ? 4 : 8;
        const names = { 2: ["ax", "dx"], 4: ["eax", "edx"], 8: ["rax", "rdx"] }[size]!;
        const v = this.readReg(names[0]!, size);
        this.writeReg(names[1]!, bin("sar", v, constant(size * 8 - 1, 1)));
        return undefined;
      }
      case "push": {
        if (!o0) return false;
        const size = o0.kind === "imm" ? this.ptr : size0;
        const v = this.#tmp(this.read(o0, insn, size));
        const sp = this.#tmp(bin("sub", this.readReg(this.sp, this.ptr), constant(size, this.ptr)));
        this.writeReg(this.sp, sp);
        this.#out.push({ k: "store", addr: sp, value: v, size, at: this.#at });
        return undefined;
      }
      case "pop": {
        if (!o0) return false;
        const sp = this.readReg(this.sp, this.ptr);
        const v = this.#tmp({ k: "load", addr: sp, size: size0 });
        this.writeReg(this.sp, bin("add", sp, constant(size0, this.ptr)));
        this.write(o0, insn, v);
        return undefined;
      }
      case "leave": {
        const fp = this.bits === 64 ? "rbp" : "ebp";
        const frame = this.readReg(fp, this.ptr);
        const saved = this.#tmp({ k: "load", addr: frame, size: this.ptr });
        this.writeReg(this.sp, bin("add", frame, constant(this.ptr, this.ptr)));
        this.writeReg(fp, saved);
        return undefined;
      }
      case "call": {
        if (!o0) return false;
        const target = insn.target !== undefined
          ? constant(insn.target, this.ptr)
          : this.read(o0, insn, this.ptr);
        this.#out.push({ k: "call", target, args: [], defs: [], at: this.#at });
        this.flags = { op: "unknown", a: target, b: target, res: target, size: 1, at: this.#at };
        // The x87 stack is empty at a call; a float result comes back as `st0` (index -1).
        this.x87 = 0;
        return { k: "call", target };
      }
      case "jmp": {
        if (!o0) return false;
        const target = insn.target !== undefined
          ? constant(insn.target, this.ptr)
          : this.read(o0, insn, this.ptr);
        return { k: "jump", target };
      }
      case "ret":
      case "retf":
        // The x87 top of stack is the float return register (cdecl's `st0`).
        if (this.x87 > 0) {
          this.#out.push({ k: "set", dst: reg("st0", 10), src: this.#st(0), at: this.#at });
        }
        return { k: "ret" };
      case "hlt":
      case "ud2":
      case "ud0":
      case "ud1":
      case "int3":
      case "int1":
        return { k: "stop", why: m };
      case "bt":
      case "bts":
      case "btr":
      case "btc": {
        if (!o0 || !o1) return false;
        if (o0.kind === "mem" && o1.kind !== "imm") return false; // a bit string, not modelled
        const a = this.#tmp(this.read(o0, insn, size0));
        const raw = this.read(o1, insn, size0);
        const n = raw.k === "const"
          ? constant(raw.value & BigInt(size0 * 8 - 1), size0)
          : bin("and", raw, constant(size0 * 8 - 1, size0));
        const bit = bin(
          "ne",
          bin("and", bin("shr", a, n), constant(1, size0)),
          constant(0, size0),
          1,
        );
        const cf = this.#tmp(bit);
        if (m !== "bt") {
          const mask = bin("shl", constant(1, size0), n);
          const v = m === "bts"
            ? bin("or", a, mask)
            : m === "btr"
            ? bin("and", a, { k: "un", op: "not", a: mask, size: size0 })
            : bin("xor", a, mask);
          this.write(o0, insn, this.#tmp(v));
        }
        this.#setFlags("bits", a, n, a, cf);
        return undefined;
      }
      case "bswap":
      case "bsf":
      case "bsr":
      case "tzcnt":
      case "lzcnt":
      case "popcnt": {
        if (!o0) return false;
        const src = this.#tmp(this.read(o1 ?? o0, insn, size0));
        const r = this.#tmp({ k: "intr", name: `__${m}`, args: [src], size: size0 });
        this.write(o0, insn, r);
        if (m !== "bswap") this.#setFlags("logic", src, src, src);
        return undefined;
      }
      case "xadd": {
        if (!o0 || !o1) return false;
        const a = this.#tmp(this.read(o0, insn, size0));
        const b = this.#tmp(this.read(o1, insn, size0));
        const r = this.#tmp(bin("add", a, b));
        this.write(o1, insn, a);
        this.write(o0, insn, r);
        this.#setFlags("add", a, b, r);
        return undefined;
      }
      case "ucomiss":
      case "ucomisd":
      case "comiss":
      case "comisd":
      case "vucomiss":
      case "vucomisd":
      case "vcomiss":
      case "vcomisd": {
        if (!o0 || !o1) return false;
        const size = m.endsWith("d") ? 8 : 4;
        const a = this.#tmp(this.#fpRead(o0, insn, size));
        const b = this.#tmp(this.#fpRead(o1, insn, size));
        this.#setFlags("fcmp", a, b, a);
        return undefined;
      }
    }
    const scalar = this.#sse(m, insn);
    if (scalar !== false) return scalar;
    if (this.#isVector(m, ops)) return this.#vector(m, insn);
    return false;
  }

  /**
   * String instructions with the direction flag clear (the ABIs' state on entry and across
   * calls). One element: its load/store and pointer steps. `rep stos`/`rep movs`: a typed
   * intrinsic for the block operation, then the pointers advanced and the count zeroed.
   * `rep scas`/`rep cmps` stop on a comparison: left to the `__asm_` form.
   */
  #string(prefix: string | undefined, op: string, unitChar: string): undefined | false {
    const unit = { b: 1, w: 2, d: 4, q: 8 }[unitChar as "b" | "w" | "d" | "q"];
    const p = this.ptr;
    const r = (n64: string) => this.bits === 64 ? n64 : n64.replace(/^r/, "e");
    const acc = { 1: "al", 2: "ax", 4: "eax", 8: "rax" }[unit]!;
    const di = this.readReg(r("rdi"), p);
    const si = this.readReg(r("rsi"), p);
    const step = (reg: string, value: Expr, by: Expr) =>
      this.writeReg(reg, { k: "bin", op: "add", a: value, b: by, size: p });
    if (prefix === undefined) {
      const one = constant(unit, p);
      switch (op) {
        case "stos":
          this.#out.push({
            k: "store",
            addr: di,
            value: this.readReg(acc, unit),
            size: unit,
            at: this.#at,
          });
          step(r("rdi"), di, one);
          return undefined;
        case "lods":
          this.writeReg(acc, this.#tmp({ k: "load", addr: si, size: unit }));
          step(r("rsi"), si, one);
          return undefined;
        case "movs": {
          const v = this.#tmp({ k: "load", addr: si, size: unit });
          this.#out.push({ k: "store", addr: di, value: v, size: unit, at: this.#at });
          step(r("rdi"), di, one);
          step(r("rsi"), si, one);
          return undefined;
        }
        default:
          return false;
      }
    }
    if (prefix !== "rep" || (op !== "stos" && op !== "movs")) return false;
    const count = this.#tmp(this.readReg(r("rcx"), p));
    const bytes = this.#tmp({ k: "bin", op: "mul", a: count, b: constant(unit, p), size: p });
    const args = op === "stos" ? [di, this.readReg(acc, unit), count] : [di, si, count];
    this.#out.push({ k: "asm", name: `__rep_${op}${unitChar}`, args, outs: [], at: this.#at });
    step(r("rdi"), di, bytes);
    if (op === "movs") step(r("rsi"), si, bytes);
    this.writeReg(r("rcx"), constant(0, p));
    return undefined;
  }

  /** `st(i)` at the current depth. */
  #st(i: number): Reg {
    const k = this.x87 - 1 - i;
    return reg(k >= 0 ? `fp${k}` : k === -1 ? "st0" : `fpm${-k}`, 10);
  }

  /**
   * x87 instructions over a stack whose depth is known at each instruction (the block builder
   * carries it across edges): `st(i)` names a fixed register, pushes and pops move the depth.
   * Arithmetic is the typed float operations at 10 bytes (`long double`); loads and stores of
   * other sizes convert.
   */
  #x87(m: string, insn: Insn): undefined | false {
    const ops = insn.operands;
    const stIndex = (o: Operand | undefined) => {
      const r = o?.kind === "reg" ? /^st\(?(\d)\)?$/.exec(o.reg ?? "") : null;
      return r ? Number(r[1]) : undefined;
    };
    const set = (i: number, v: Expr) =>
      this.#out.push({ k: "set", dst: this.#st(i), src: v, at: this.#at });
    const push = (v: Expr) => {
      const t = v.k === "const" ? v : this.#tmp(v);
      this.x87++;
      set(0, t);
    };
    const widen = (v: Expr): Expr =>
      v.size === 10 ? v : { k: "intr", name: "__fconv", args: [v], size: 10 };
    const mem = (o: Operand): Expr => ({
      k: "load",
      addr: this.address(o, insn),
      size: o.size ?? 8,
    });
    const o0 = ops[0];
    const i0 = stIndex(o0);
    const fcmov = /^fcmov(n?)(b|e|be|u)$/.exec(m);
    if (fcmov) {
      // `fcmovCC st(0), st(i)`: the unsigned conditions of fcomi/fucomi, `u` for unordered.
      const cc = conditionName(fcmov[1]! + (fcmov[2] === "u" ? "p" : fcmov[2]!));
      const i = stIndex(ops[1]);
      if (!cc || i === undefined) return false;
      const c = this.cond(cc);
      set(0, this.#tmp({ k: "select", c, t: this.#st(i), f: this.#st(0), size: 10 }));
      return undefined;
    }
    switch (m) {
      case "fld":
        if (i0 !== undefined) push(this.#st(i0));
        else if (o0?.kind === "mem") push(widen(mem(o0)));
        else return false;
        return undefined;
      case "fild":
        if (o0?.kind !== "mem") return false;
        push({ k: "intr", name: "__itof", args: [mem(o0)], size: 10 });
        return undefined;
      case "fldz":
      case "fld1":
        push(constant(m === "fldz" ? 0n : X87_ONE, 10));
        return undefined;
      case "fst":
      case "fstp":
      case "fist":
      case "fistp":
      case "fisttp": {
        if (!o0) return false;
        if (i0 !== undefined) set(i0, this.#st(0));
        else if (o0.kind === "mem") {
          const size = o0.size ?? 8;
          const v: Expr = m.startsWith("fi")
            ? {
              k: "intr",
              name: m === "fisttp" || this.#cwTruncates ? "__ftoi" : "__ftoi_rint",
              args: [this.#st(0)],
              size,
            }
            : size === 10
            ? this.#st(0)
            : { k: "intr", name: "__fconv", args: [this.#st(0)], size };
          this.write(o0, insn, this.#tmp(v));
        } else return false;
        if (m.endsWith("p")) this.x87--;
        return undefined;
      }
      case "fchs":
      case "fabs":
      case "fsqrt":
      case "frndint": {
        const name = { fchs: "__fneg", fabs: "__fabs", fsqrt: "__fsqrt", frndint: "__frint" }[m]!;
        set(0, this.#tmp({ k: "intr", name, args: [this.#st(0)], size: 10 }));
        return undefined;
      }
      case "fxch": {
        const i = ops.map(stIndex).find((x) => x !== undefined && x !== 0) ?? 1;
        const a = this.#tmp(this.#st(0));
        const b = this.#tmp(this.#st(i));
        set(0, b);
        set(i, a);
        return undefined;
      }
      case "fucomi":
      case "fcomi":
      case "fucomip":
      case "fcomip": {
        const i = stIndex(ops[1]) ?? 1;
        const a = this.#tmp(this.#st(0));
        const b = this.#tmp(this.#st(i));
        this.#setFlags("fcmp", a, b, a);
        if (m.endsWith("p")) this.x87--;
        return undefined;
      }
      case "fnstcw":
      case "fnstsw":
      case "fldcw": {
        if (!o0) return false;
        const r = reg(m === "fnstsw" ? "x87sw" : "x87cw", 2);
        const slot = o0.kind === "mem"
          ? `${o0.base ?? ""}+${o0.index ?? ""}*${o0.scale ?? 0}+${o0.disp ?? 0}`
          : undefined;
        if (m === "fnstcw") this.#cwSaved = slot;
        if (m === "fldcw") this.#cwTruncates = slot === undefined || slot !== this.#cwSaved;
        if (m === "fldcw") {
          this.#out.push({ k: "set", dst: r, src: this.read(o0, insn, 2), at: this.#at });
        } else this.write(o0, insn, r);
        return undefined;
      }
      case "fwait":
        return undefined;
    }
    const cmp = /^f(u?com|tst)(p{0,2})$/.exec(m);
    if (cmp) {
      // The old compares set the status word's C0/C2/C3, read back through fnstsw.
      const other = cmp[1] === "tst"
        ? constant(0, 10)
        : o0?.kind === "mem"
        ? widen(mem(o0))
        : this.#st(stIndex(ops[1]) ?? i0 ?? 1);
      const sw = this.#tmp({ k: "intr", name: "__fcom_sw", args: [this.#st(0), other], size: 2 });
      this.#out.push({ k: "set", dst: reg("x87sw", 2), src: sw, at: this.#at });
      this.x87 -= cmp[2]!.length;
      return undefined;
    }
    const arith = /^f(i?)(add|subr|sub|mul|divr|div)(p?)$/.exec(m);
    if (!arith) return false;
    let dst = 0;
    let src: Expr;
    if (ops.length === 0) {
      dst = 1;
      src = this.#st(0);
    } else if (o0?.kind === "mem") {
      src = arith[1] ? { k: "intr", name: "__itof", args: [mem(o0)], size: 10 } : widen(mem(o0));
    } else if (ops.length === 2 && i0 !== undefined && stIndex(ops[1]) !== undefined) {
      dst = i0;
      src = this.#st(stIndex(ops[1])!);
    } else if (i0 !== undefined) {
      src = this.#st(i0);
    } else return false;
    const a = this.#tmp(this.#st(dst));
    const b = this.#tmp(src);
    const reverse = arith[2]!.endsWith("r");
    const name = X87_OPS[arith[2]!]!;
    set(dst, this.#tmp({ k: "intr", name, args: reverse ? [b, a] : [a, b], size: 10 }));
    if (arith[3]) this.x87--;
    return undefined;
  }

  /** A scalar float operand: the low `size` bytes of an xmm register, or memory. */
  #fpRead(op: Operand, insn: Insn, size: number): Expr {
    if (op.kind === "reg") return this.readReg(op.reg!, size);
    if (op.kind === "mem") return { k: "load", addr: this.address(op, insn), size };
    throw new Unmodelled();
  }

  /** The two 8-byte halves of a 16-byte operand (memory: two loads). */
  #halves(op: Operand, insn: Insn): [Expr, Expr] {
    if (op.kind === "reg" && XMM.test(op.reg ?? "")) {
      return [{ k: "reg", name: op.reg!, size: 8 }, { k: "reg", name: `${op.reg}_hi`, size: 8 }];
    }
    if (op.kind !== "mem" || (op.size !== undefined && op.size !== 16)) throw new Unmodelled();
    const a = this.address(op, insn);
    const hiAddr: Expr = { k: "bin", op: "add", a, b: constant(8, this.ptr), size: this.ptr };
    return [{ k: "load", addr: a, size: 8 }, { k: "load", addr: hiAddr, size: 8 }];
  }

  /** Writes 8-byte halves to a 16-byte operand, both computed before either is written. */
  #writeHalves(op: Operand, insn: Insn, lo: Expr, hi: Expr): void {
    const l = lo.k === "const" ? lo : this.#tmp(lo);
    const h = hi.k === "const" ? hi : this.#tmp(hi);
    if (op.kind === "reg" && XMM.test(op.reg ?? "")) {
      this.#out.push({ k: "set", dst: { k: "reg", name: op.reg!, size: 8 }, src: l, at: this.#at });
      this.#out.push({
        k: "set",
        dst: { k: "reg", name: `${op.reg}_hi`, size: 8 },
        src: h,
        at: this.#at,
      });
      return;
    }
    if (op.kind !== "mem") throw new Unmodelled();
    const a = this.address(op, insn);
    const hiAddr: Expr = { k: "bin", op: "add", a, b: constant(8, this.ptr), size: this.ptr };
    this.#out.push({ k: "store", addr: a, value: l, size: 8, at: this.#at });
    this.#out.push({ k: "store", addr: hiAddr, value: h, size: 8, at: this.#at });
  }

  /** The 8 bytes at a constant address (a mask in .rodata), when the image has them. */
  #constantHalf(e: Expr): bigint | undefined {
    if (e.k === "const") return e.value;
    if (e.k !== "load" || e.addr.k !== "const" || !this.#bytesAt) return undefined;
    const b = this.#bytesAt(Number(e.addr.value), 8);
    if (!b || b.length !== 8) return undefined;
    return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  }

  /**
   * Scalar SSE floating point as typed operations on the low half of xmm registers
   * (`__fadd`, `__fsqrt`, `__itof`, … of 4 or 8 bytes; see float.ts), moves and 128-bit logic
   * as operations on the two halves, the sign-mask idioms as `__fabs`/`__fneg`. False: not
   * one of these.
   */
  #sse(m: string, insn: Insn): undefined | false {
    const ops = insn.operands;
    const xmm = (o: Operand | undefined) => o?.kind === "reg" && XMM.test(o.reg ?? "");
    if (!ops.every((o) => o.kind !== "reg" || !/^[yz]mm/.test(o.reg ?? ""))) return false;
    const base = m.replace(/^v/, "");
    const avx = m !== base;
    const o0 = ops[0];
    if (!o0) return false;
    // Three-operand AVX forms take the upper part from the first source.
    const src = avx && ops.length >= 3 ? ops.slice(1) : ops;
    const keepUpper = () => {
      if (avx && ops.length >= 3 && xmm(ops[1]) && ops[1]!.reg !== o0.reg) {
        this.writeReg(o0.reg!, this.readReg(ops[1]!.reg!, 16));
      }
    };
    // A scalar result: a float's 4 bytes zero-extend into the low half. The hardware keeps
    // bits 32..63 there, which code that computes scalar floats never reads back; modelling
    // them would put a mask in every float expression and keep float parameters 8 bytes wide.
    const result = (r: Expr) => {
      keepUpper();
      this.#writeXmm(o0.reg!, r, false);
    };
    const arith = /^(add|sub|mul|div|min|max|sqrt)s([sd])$/.exec(base);
    if (arith && xmm(o0)) {
      const size = arith[2] === "d" ? 8 : 4;
      const args = arith[1] === "sqrt"
        ? [this.#fpRead(src[src.length - 1]!, insn, size)]
        : [this.#fpRead(src[0]!, insn, size), this.#fpRead(src[1]!, insn, size)];
      const r = this.#tmp({ k: "intr", name: `__f${arith[1]}`, args, size });
      result(r);
      return undefined;
    }
    const toFloat = /^cvtsi2s([sd])$/.exec(base);
    if (toFloat && xmm(o0)) {
      const size = toFloat[1] === "d" ? 8 : 4;
      const from = src[src.length - 1]!;
      const v = this.read(from, insn, from.size ?? this.ptr);
      const r = this.#tmp({ k: "intr", name: "__itof", args: [v], size });
      result(r);
      return undefined;
    }
    const toInt = /^cvt(t?)s([sd])2si$/.exec(base);
    if (toInt && o0.kind === "reg" && src[1]) {
      const size = toInt[2] === "d" ? 8 : 4;
      const v = this.#fpRead(src[1], insn, size);
      const name = toInt[1] ? "__ftoi" : "__ftoi_rint";
      this.writeReg(o0.reg!, this.#tmp({ k: "intr", name, args: [v], size: o0.size ?? this.ptr }));
      return undefined;
    }
    const conv = /^cvts([sd])2s([sd])$/.exec(base);
    if (conv && xmm(o0) && conv[1] !== conv[2]) {
      const from = conv[1] === "d" ? 8 : 4;
      const v = this.#fpRead(src[src.length - 1]!, insn, from);
      const r = this.#tmp({ k: "intr", name: "__fconv", args: [v], size: 12 - from });
      result(r);
      return undefined;
    }
    const fcmp = /^cmp(eq|lt|le|unord|neq|nlt|nle|ord)(sd|ss|pd)$/.exec(base);
    if (fcmp && xmm(o0)) {
      // A compare to a mask: all ones where the predicate holds (per lane for the packed form).
      const size = fcmp[2] === "ss" ? 4 : 8;
      const pred = (a: Expr, b: Expr): Expr => {
        const f = (name: string): Expr => ({ k: "intr", name, args: [a, b], size: 1 });
        const not = (x: Expr): Expr => ({ k: "un", op: "lnot", a: x, size: 1 });
        const and = (x: Expr, y: Expr): Expr => ({ k: "bin", op: "land", a: x, b: y, size: 1 });
        const ordered = not(f("__funordered"));
        const base = fcmp[1]!.replace(/^n(?!e)/, "");
        const p = base === "eq" || base === "neq"
          ? and(ordered, f("__feq"))
          : base === "lt"
          ? and(ordered, f("__flt"))
          : base === "le"
          ? and(ordered, f("__fle"))
          : base === "unord"
          ? f("__funordered")
          : ordered;
        return fcmp[1]!.startsWith("n") ? not(p) : p;
      };
      const mask = (a: Expr, b: Expr): Expr => ({
        k: "select",
        c: pred(a, b),
        t: constant(-1, size),
        f: constant(0, size),
        size,
      });
      if (fcmp[2] === "pd") {
        const [al, ah] = this.#halves(src[0]!, insn);
        const [bl, bh] = this.#halves(src[1]!, insn);
        this.#writeHalves(o0, insn, mask(al, bl), mask(ah, bh));
        return undefined;
      }
      const a = this.#tmp(this.#fpRead(src[0]!, insn, size));
      const b = this.#tmp(this.#fpRead(src[1]!, insn, size));
      keepUpper();
      this.writeReg(o0.reg!, this.#tmp(mask(a, b)));
      return undefined;
    }
    if ((base === "movsd" || base === "movss") && (ops.length === 2 || ops.length === 3)) {
      const size = base === "movsd" ? 8 : 4;
      const o1 = ops[ops.length - 1]!;
      if (o0.kind === "mem" && xmm(o1)) {
        this.write(o0, insn, this.readReg(o1.reg!, size));
        return undefined;
      }
      if (!xmm(o0)) return false;
      if (o1.kind === "mem") {
        const v = this.#tmp(this.#fpRead(o1, insn, size));
        this.writeReg(o0.reg!, size === 8 ? v : { k: "ext", signed: false, a: v, size: 8 });
        this.writeReg(`${o0.reg}_hi`, constant(0, 8));
        return undefined;
      }
      if (!xmm(o1)) return false;
      const v = this.#tmp(this.readReg(o1.reg!, size));
      keepUpper();
      this.writeReg(o0.reg!, v);
      return undefined;
    }
    if ((base === "movq" || base === "movd") && ops.length === 2) {
      const o1 = ops[1]!;
      const size = base === "movq" ? 8 : 4;
      if (xmm(o0)) {
        if (o1.kind === "reg" && !xmm(o1) && !/^r|^e/.test(o1.reg ?? "")) return false;
        const v = this.#tmp(xmm(o1) ? this.readReg(o1.reg!, size) : this.read(o1, insn, size));
        this.writeReg(o0.reg!, size === 8 ? v : { k: "ext", signed: false, a: v, size: 8 });
        this.writeReg(`${o0.reg}_hi`, constant(0, 8));
        return undefined;
      }
      if (xmm(o1)) {
        this.write(o0, insn, this.readReg(o1.reg!, size));
        return undefined;
      }
      return false;
    }
    if (
      /^(movaps|movapd|movups|movupd|movdqa|movdqu|lddqu)$/.test(base) && ops.length === 2 &&
      (xmm(o0) || xmm(ops[1]))
    ) {
      const [lo, hi] = this.#halves(ops[1]!, insn);
      this.#writeHalves(o0, insn, lo, hi);
      return undefined;
    }
    const logic = /^(p?and|p?andn|p?or|p?xor)(ps|pd)?$/.exec(base);
    if (logic && xmm(o0) && (base.startsWith("p") ? !logic[2] : !!logic[2])) {
      const op = logic[1]!.replace(/^p/, "");
      const [a, b] = src.length >= 2 ? [src[0]!, src[1]!] : [o0, o0];
      if (op === "xor" && a.kind === "reg" && b.kind === "reg" && a.reg === b.reg) {
        this.#writeHalves(o0, insn, constant(0, 8), constant(0, 8));
        return undefined;
      }
      const [al, ah] = this.#halves(a, insn);
      const [bl, bh] = this.#halves(b, insn);
      const half = (x: Expr, y: Expr): Expr =>
        op === "andn"
          ? { k: "bin", op: "and", a: { k: "un", op: "not", a: x, size: 8 }, b: y, size: 8 }
          : { k: "bin", op: op as BinOp, a: x, b: y, size: 8 };
      let lo = half(al, bl);
      // The sign-bit masks compilers use for fabs and negation of a double.
      const mask = this.#constantHalf(bl);
      if (op === "and" && mask === 0x7fffffffffffffffn && logic[2] !== "ps") {
        lo = { k: "intr", name: "__fabs", args: [al], size: 8 };
      } else if (op === "xor" && mask === 0x8000000000000000n && logic[2] !== "ps") {
        lo = { k: "intr", name: "__fneg", args: [al], size: 8 };
      } else if (op === "xor" && mask === 0x80000000n && logic[2] !== "pd") {
        lo = {
          k: "bin",
          op: "or",
          a: { k: "bin", op: "and", a: al, b: constant(0xffffffff00000000n, 8), size: 8 },
          b: {
            k: "ext",
            signed: false,
            a: {
              k: "intr",
              name: "__fneg",
              args: [{ k: "trunc", a: al, size: 4 }],
              size: 4,
            },
            size: 8,
          },
          size: 8,
        };
      }
      this.#writeHalves(o0, insn, lo, half(ah, bh));
      return undefined;
    }
    return false;
  }

  /** One-operand mul/imul: rdx:rax = rax * src (al/ax for the narrow forms). */
  #wideMul(signed: boolean, src: Operand, insn: Insn): undefined {
    const s = src.size ?? this.ptr;
    const names = { 1: ["al", "ah"], 2: ["ax", "dx"], 4: ["eax", "edx"], 8: ["rax", "rdx"] }[s];
    if (!names) throw new Unmodelled();
    const wide = (e: Expr): Expr => ({ k: "ext", signed, a: e, size: s * 2 });
    const a = this.#tmp(this.readReg(names[0]!, s));
    const b = this.#tmp(this.read(src, insn, s));
    const p = this.#tmp({ k: "bin", op: "mul", a: wide(a), b: wide(b), size: s * 2 });
    if (s === 1) {
      this.writeReg("ax", p);
    } else {
      this.writeReg(names[0]!, { k: "trunc", a: p, size: s });
      this.writeReg(names[1]!, {
        k: "trunc",
        a: { k: "bin", op: "shr", a: p, b: constant(s * 8, 1), size: s * 2 },
        size: s,
      });
    }
    this.#setFlags("unknown", a, b, p);
    return undefined;
  }

  /** div/idiv: quotient and remainder of rdx:rax by the operand. */
  #divide(signed: boolean, src: Operand, insn: Insn): undefined {
    const s = src.size ?? this.ptr;
    const names = { 1: ["al", "ah"], 2: ["ax", "dx"], 4: ["eax", "edx"], 8: ["rax", "rdx"] }[s];
    if (!names) throw new Unmodelled();
    const w = s * 2;
    let dividend: Expr;
    if (s === 1) dividend = this.readReg("ax", 2);
    else {
      const hi = this.readReg(names[1]!, s);
      const lo = this.readReg(names[0]!, s);
      dividend = {
        k: "bin",
        op: "or",
        a: {
          k: "bin",
          op: "shl",
          a: { k: "ext", signed: false, a: hi, size: w },
          b: constant(s * 8, 1),
          size: w,
        },
        b: { k: "ext", signed: false, a: lo, size: w },
        size: w,
      };
    }
    const n = this.#tmp(dividend);
    const d = this.#tmp({ k: "ext", signed, a: this.read(src, insn, s), size: w });
    const q = this.#tmp({
      k: "trunc",
      a: { k: "bin", op: signed ? "sdiv" : "udiv", a: n, b: d, size: w },
      size: s,
    });
    const r = this.#tmp({
      k: "trunc",
      a: { k: "bin", op: signed ? "srem" : "urem", a: n, b: d, size: w },
      size: s,
    });
    this.writeReg(names[0]!, q);
    this.writeReg(names[1]!, r);
    this.flags = { op: "unknown", a: n, b: d, res: q, size: s, at: this.#at };
    return undefined;
  }

  #isVector(m: string, ops: Operand[]): boolean {
    if (/^v/.test(m) && m !== "verr" && m !== "verw") return true;
    return ops.some((o) => o.kind === "reg" && VECTOR_REG.test(o.reg ?? "")) ||
      /^(f|cvt|movs[sd]$|movap|movup|movdq|movq|movd|pxor|xorp|andp|orp)/.test(m);
  }

  /**
   * SSE/AVX/x87 as typed intrinsics: moves are copies (of the low part where they are scalar),
   * zeroing idioms are zero, anything else `dst = __mnemonic(sources)` of the destination's
   * size. Flags are left alone (these instructions do not set them, comis* aside).
   */
  #vector(m: string, insn: Insn): undefined | false {
    const ops = insn.operands;
    const o0 = ops[0];
    const o1 = ops[1];
    if (!o0) return false;
    if (m.startsWith("f")) return false; // x87: its register stack is not modelled
    const size0 = o0.size ?? 16;
    const base = m.replace(/^v/, "");
    const same = ops.length >= 2 &&
      ops.slice(1).every((o) => o.kind === "reg" && o.reg === ops[1]?.reg);
    if (
      /^(pxor|xorps|xorpd|psubb|psubd|psubq)$/.test(base) && o0.kind === "reg" && same &&
      (ops.length === 2 ? o1?.reg === o0.reg : true)
    ) {
      this.write(o0, insn, constant(0, size0));
      return undefined;
    }
    if (
      /^(movaps|movapd|movups|movupd|movdqa|movdqu|movdqa64|movdqu8|movdqu64|lddqu|movss|movsd|movd|movq)$/
        .test(base) && ops.length === 2 && o1
    ) {
      const src = this.read(o1, insn, o1.size ?? size0);
      if (o0.kind === "mem") {
        this.write(o0, insn, src.size > size0 ? { k: "trunc", a: src, size: size0 } : src);
        return undefined;
      }
      const scalar = base === "movss" || base === "movsd";
      const width = base === "movss" ? 4 : base === "movsd" ? 8 : src.size;
      const low = src.size > width ? { k: "trunc", a: src, size: width } as Expr : src;
      if (low.size >= size0) this.write(o0, insn, low);
      else if (scalar && o1.kind === "reg" && o0.kind === "reg") {
        // movss/movsd between registers keep the destination's upper part.
        const old = this.readReg(o0.reg!, size0);
        const mask = (1n << BigInt(width * 8)) - 1n;
        this.write(o0, insn, {
          k: "bin",
          op: "or",
          a: { k: "bin", op: "and", a: old, b: constant(~mask, size0), size: size0 },
          b: { k: "ext", signed: false, a: low, size: size0 },
          size: size0,
        });
      } else this.write(o0, insn, { k: "ext", signed: false, a: low, size: size0 });
      return undefined;
    }
    const writes = ops.filter((o) => o.access === "w" || o.access === "rw");
    if (writes.length !== 1 || writes[0] !== o0) return false;
    const args = ops.filter((o) => o.access !== "w").map((o) =>
      this.read(o, insn, o.size ?? size0)
    );
    const r = this.#tmp({ k: "intr", name: `__${m}`, args, size: size0 });
    this.write(o0, insn, r);
    return undefined;
  }

  /**
   * The fallback: `__asm_<mnemonic>(reads)` writing every written operand (and the known
   * implicit registers). The flags become unknown.
   */
  #asm(m: string, insn: Insn): void {
    const implicit = IMPLICIT[m];
    const stringOp = STRING_OPS.exec(m);
    const args: Expr[] = [];
    const outs: { op?: Operand; reg?: string; tmp: Tmp }[] = [];
    const newTmp = (size: number): Tmp => ({ k: "tmp", id: this.#nextTmp++, size });
    const p = this.ptr;
    const r = (n64: string) => this.bits === 64 ? n64 : n64.replace(/^r/, "e");
    if (implicit) {
      for (const name of implicit.reads) {
        if (this.bits === 32 && name.startsWith("r") && !/^r[a-ds]/.test(name)) continue;
        const n = this.bits === 64 ? name : name.replace(/^r/, "e");
        args.push(this.readReg(n, regSlice(this.bits, n, p).size));
      }
      for (const name of implicit.writes) {
        const n = this.bits === 64 ? name : name.replace(/^r/, "e");
        outs.push({ reg: n, tmp: newTmp(regSlice(this.bits, n, p).size) });
      }
    } else if (stringOp) {
      const rep = stringOp[1] !== undefined;
      const unit = { b: 1, w: 2, d: 4, q: 8 }[stringOp[3] as "b" | "w" | "d" | "q"];
      const acc = { 1: "al", 2: "ax", 4: "eax", 8: "rax" }[unit]!;
      for (const n of [r("rdi"), r("rsi"), ...(rep ? [r("rcx")] : [])]) {
        args.push(this.readReg(n, p));
      }
      args.push(this.readReg(acc, unit));
      for (const n of [r("rdi"), r("rsi"), ...(rep ? [r("rcx")] : [])]) {
        outs.push({ reg: n, tmp: newTmp(p) });
      }
      if (stringOp[2] === "lods") outs.push({ reg: acc, tmp: newTmp(unit) });
    } else {
      for (const op of insn.operands) {
        const size = op.size ?? p;
        if (op.access !== "w") {
          try {
            args.push(this.read(op, insn, size));
          } catch {
            // An operand the lifter cannot read is left out of the arguments.
          }
        }
        if ((op.access === "w" || op.access === "rw") && op.kind !== "imm") {
          outs.push({ op, tmp: newTmp(size || p) });
        }
      }
    }
    const name = implicit?.name ?? `__asm_${m.replace(/[^A-Za-z0-9]+/g, "_")}`;
    this.#out.push({ k: "asm", name, args, outs: outs.map((o) => o.tmp), at: this.#at });
    for (const o of outs) {
      if (o.reg) this.writeReg(o.reg, o.tmp);
      else if (o.op) {
        try {
          this.write(o.op, insn, o.tmp);
        } catch {
          // Nothing more to say about an output we cannot place.
        }
      }
    }
    this.flags = {
      op: "unknown",
      a: constant(0, 1),
      b: constant(0, 1),
      res: constant(0, 1),
      size: 1,
      at: this.#at,
    };
    if (outs[0]) this.flags.res = outs[0].tmp;
  }
}
