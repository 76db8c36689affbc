/**
 * AArch64 instructions → IR, over Capstone's printed operands ({@link parseOperands}). The IR
 * holds the 64-bit registers `x0`…`x30` and `sp` and the 128-bit `v0`…`v31`: a `w` register
 * reads the low half of its `x` register and a write zero-extends, as the hardware does; `b`,
 * `h`, `s`, `d` and `q` registers are the low parts of `v` registers and a write to one zeroes
 * the rest. Flags are lazy ({@link A64Flags}); floating-point and SIMD instructions with one
 * destination become typed intrinsics (`d0 = __fadd(d1, d2)`); anything else becomes an
 * `__asm_<mnemonic>` statement with its register effects explicit, so lifting never fails.
 */

import type { Insn } from "../../arch/types.ts";
import { type BinOp, type Const, constant, type Expr, type Stmt, type Tmp } from "../ir.ts";
import type { FlagState } from "./flags.ts";
import {
  type A64Flags,
  conditionalFlags,
  fcmpFlags,
  opFlags,
  unknownFlags,
} from "./aarch64_flags.ts";
import { type A64Operand, parseOperands, type Shift } from "./aarch64_operands.ts";
import { type Control, type LiftedInsn, Unmodelled } from "./lifted.ts";

type Mem = A64Operand & { k: "mem" };

// Hints, barriers and pointer authentication: no effect the IR models.
const NO_EFFECT =
  /^(nop|hint|yield|wfe|wfi|sev|sevl|dmb|dsb|isb|ssbb|pssbb|csdb|sb|bti|clrex|prfm|prfum|prfs|pacia|pacib|paciasp|pacibsp|paciaz|pacibz|autia|autib|autiasp|autibsp|autiaz|autibz|xpaclri|esb|psb|tsb)$/;
// Unary bit operations as typed intrinsics, named as C compilers name them.
const BIT_OPS: Record<string, string> = {
  clz: "__clz",
  cls: "__cls",
  rbit: "__rbit",
  rev: "__bswap",
};
// Vector instructions that act on the register's bits as a whole.
const VECTOR_BITWISE = /^(and|orr|eor|bic|orn|mov|mvn|not)$/;
// Vector instructions that read their destination: accumulations, bit inserts, selects, the
// immediate forms of orr and bic, and the narrowing "2" forms that fill the upper half.
const READS_DESTINATION =
  /^(mla|mls|bsl|bit|bif|sli|sri|usra|ssra|ursra|srsra|uaba|saba|[su]mlal2?|[su]mlsl2?|[su]abal2?|[su]adalp|fmla|fmls|tbx|orr|bic|xtn2|sqxtn2|uqxtn2|sqxtun2|[su]?shrn2|rshrn2|fcvtn2|addhn2|subhn2)$/;
const LOAD = /^(ldr|ldur|ldar|ldapr|ldapur|ldlar|ldtr)(b|h|sb|sh|sw)?$/;
const STORE = /^(str|stur|stlr|stlur|sttr|stllr)(b|h)?$/;
const PAIR = /^(ldp|stp|ldnp|stnp|ldpsw|ldiapp|stilp)$/;

/** Lifts AArch64 instructions of one function; keeps the temporaries' counter and the flags. */
export class Aarch64Lifter {
  /** The flags at the current point; undefined = set before this block. */
  flags: A64Flags | undefined;
  /** Set when a condition was read before any instruction of this block set the flags. */
  usedEntryFlags = false;
  /** The stack pointer's name. */
  readonly sp = "sp";
  /** A call pushes nothing: the return address goes to x30. */
  readonly retAddr = 0;
  #nextTmp = 1;
  #out: Stmt[] = [];
  #at = 0;
  /**
   * Constants the current block put in registers (`adrp x0, page`, then `add x0, x0, #lo`):
   * an address built in two instructions is one constant in the IR from the start, so the
   * passes that run before propagation (call arguments, format strings) see it.
   */
  readonly #known = new Map<string, Const>();

  /** Forgets what the previous block left in registers. */
  startBlock(): void {
    this.#known.clear();
  }

  /** Lifts one instruction (decoded with `text`). */
  lift(insn: Insn): LiftedInsn {
    this.#out = [];
    this.#at = insn.address;
    if (insn.flow === "invalid") {
      return { stmts: [], control: { k: "stop", why: "undecodable bytes" }, lifted: false };
    }
    const m = (insn.mnemonic ?? "").toLowerCase();
    const ops = parseOperands(insn.opStr ?? "");
    let control: Control | undefined;
    let lifted = true;
    try {
      const r = this.#dispatch(m, ops, insn);
      if (r === false) throw new Unmodelled();
      control = r;
    } catch (err) {
      if (!(err instanceof Unmodelled)) throw err;
      this.#out = [];
      this.#asm(m, ops);
      lifted = false;
    }
    return { stmts: this.#out, ...(control ? { control } : {}), lifted };
  }

  // ---- registers and operands --------------------------------------------------------------

  #tmp(value: Expr): Tmp {
    const t: Tmp = { k: "tmp", id: this.#nextTmp++, size: value.size };
    this.#out.push({ k: "set", dst: t, src: value, at: this.#at });
    return t;
  }

  /**
   * Where a register name lives: full register, its size, and the part named. A vector
   * register is two 8-byte halves in the IR, `v0` and `v0_hi` (as the x86 lifter splits xmm
   * registers): scalar floating point lives in `v0` alone, and a 16-byte `q0` or `v0.16b` is
   * both.
   */
  static slot(name: string): { full: string; fullSize: number; size: number } | undefined {
    if (name === "sp") return { full: "sp", fullSize: 8, size: 8 };
    if (name === "wsp") return { full: "sp", fullSize: 8, size: 4 };
    const gp = /^([xw])(\d+)$/.exec(name);
    if (gp) return { full: `x${gp[2]}`, fullSize: 8, size: gp[1] === "x" ? 8 : 4 };
    const fp = /^([bhsdq])(\d+)$/.exec(name);
    if (fp) {
      const size = { b: 1, h: 2, s: 4, d: 8, q: 16 }[fp[1] as "b" | "h" | "s" | "d" | "q"];
      return { full: `v${fp[2]}`, fullSize: 8, size };
    }
    const vec = /^v(\d+)(?:\.(\d*)([bhsdq]))?$/.exec(name);
    if (vec) {
      // `v0.8b`, `v0.4h`, `v0.2s` are the low 8 bytes; element forms (`v0.s`) the whole.
      const lanes = Number(vec[2] ?? 0);
      const unit = { b: 1, h: 2, s: 4, d: 8, q: 16 }[(vec[3] ?? "q") as "b"];
      const size = lanes > 0 && lanes * unit === 8 ? 8 : 16;
      return { full: `v${vec[1]}`, fullSize: 8, size };
    }
    return undefined;
  }

  /** Byte size of register `name` (`xzr` 8, `wzr` 4). */
  static size(name: string): number {
    if (name === "xzr") return 8;
    if (name === "wzr") return 4;
    const s = Aarch64Lifter.slot(name);
    if (!s) throw new Unmodelled();
    return s.size;
  }

  readReg(name: string): Expr {
    if (name === "xzr" || name === "wzr") return constant(0, name === "xzr" ? 8 : 4);
    const s = Aarch64Lifter.slot(name);
    if (!s) throw new Unmodelled();
    const full: Expr = { k: "reg", name: s.full, size: s.fullSize };
    if (s.size === 16) {
      const hi: Expr = { k: "reg", name: `${s.full}_hi`, size: 8 };
      return bin("or", ext(full, 16, false), bin("shl", ext(hi, 16, false), constant(64, 1)));
    }
    return s.size === s.fullSize ? full : { k: "trunc", a: full, size: s.size };
  }

  /** Writes `value` to register `name`; narrower writes zero the rest of the register. */
  writeReg(name: string, value: Expr): void {
    if (name === "xzr" || name === "wzr") return;
    const s = Aarch64Lifter.slot(name);
    if (!s) throw new Unmodelled();
    const set = (reg: string, src: Expr) =>
      this.#out.push({ k: "set", dst: { k: "reg", name: reg, size: 8 }, src, at: this.#at });
    if (s.full.startsWith("v")) {
      if (s.size === 16) {
        const v = value.size === 16 ? this.#tmp(value) : this.#tmp(fit(value, 16, false));
        set(s.full, { k: "trunc", a: v, size: 8 });
        set(`${s.full}_hi`, { k: "trunc", a: bin("shr", v, constant(64, 1)), size: 8 });
        return;
      }
      set(s.full, fit(fit(value, s.size, false), 8, false));
      set(`${s.full}_hi`, constant(0, 8));
      return;
    }
    let v = value;
    if (v.size > s.size) v = { k: "trunc", a: v, size: s.size };
    if (v.size < s.fullSize) v = { k: "ext", signed: false, a: v, size: s.fullSize };
    if (value.k === "const" && s.size === 8) this.#known.set(s.full, value);
    else this.#known.delete(s.full);
    set(s.full, v);
  }

  /** `value` (of `size` bytes) with a register operand's shift or extend applied. */
  #shifted(value: Expr, shift: Shift | undefined, size: number): Expr {
    let v = value;
    if (shift === undefined) return fit(v, size, false);
    const ext = /^([us])xt([bhwx])$/.exec(shift.kind);
    if (ext) {
      const from = { b: 1, h: 2, w: 4, x: 8 }[ext[2] as "b" | "h" | "w" | "x"];
      v = fit(fit(v, from, false), size, ext[1] === "s");
      return shift.amount === 0 ? v : bin("shl", v, constant(shift.amount, 1));
    }
    v = fit(v, size, false);
    if (shift.amount === 0) return v;
    const n = constant(shift.amount, 1);
    switch (shift.kind) {
      case "lsl":
        return bin("shl", v, n);
      case "lsr":
        return bin("shr", v, n);
      case "asr":
        return bin("sar", v, n);
      case "ror":
        return rotate(v, shift.amount);
    }
    throw new Unmodelled();
  }

  /** The value of operand `op` at `size` bytes. */
  read(op: A64Operand | undefined, size: number): Expr {
    if (op?.k === "reg") return this.#shifted(this.readReg(op.name), op.shift, size);
    if (op?.k === "imm") {
      if (op.float !== undefined) return floatBits(op.float, size);
      const shift = op.shift?.kind === "lsl" ? BigInt(op.shift.amount) : 0n;
      return constant(op.value << shift, size);
    }
    throw new Unmodelled();
  }

  /** The address a memory operand designates (before any writeback). */
  address(op: Mem): Expr {
    const base = this.#known.get(op.base) ?? this.readReg(op.base === "wsp" ? "sp" : op.base);
    let a: Expr = base;
    if (op.index) {
      const idx = this.#shifted(this.readReg(op.index.name), undefined, 8);
      const sh = op.index.shift;
      const ext = sh && /^([us])xt([bhwx])$/.exec(sh.kind);
      let v: Expr = idx;
      if (ext) {
        const from = { b: 1, h: 2, w: 4, x: 8 }[ext[2] as "b" | "h" | "w" | "x"];
        v = fit(this.readReg(op.index.name), from, false);
        v = fit(v, 8, ext[1] === "s");
      } else if (sh && sh.kind !== "lsl") throw new Unmodelled();
      const amount = sh?.amount ?? 0;
      // A scaled index as a multiplication, as the x86 lifter writes it (switch recovery and
      // array typing look for it).
      if (amount > 0) v = bin("mul", v, constant(1 << amount, 8));
      a = bin("add", a, v);
    }
    if (op.offset !== 0n) a = bin("add", a, constant(op.offset, 8));
    return a;
  }

  /** The operation that set the flags, as a lazy state. */
  #setFlags(op: FlagState["op"], a: Expr, b: Expr, res: Expr): void {
    const state: FlagState = { op, a, b, res, size: res.size, at: this.#at };
    this.flags = opFlags(state);
  }

  /** Condition `cc` over the current flags. */
  cond(cc: string): Expr {
    if (this.flags === undefined) {
      this.usedEntryFlags = true;
      return { k: "intr", name: `__flags_${cc}`, args: [], size: 1 };
    }
    return this.flags.test(cc);
  }

  // ---- instructions ------------------------------------------------------------------------

  #dispatch(m: string, ops: A64Operand[], insn: Insn): Control | undefined | false {
    const [o0, o1, o2, o3] = ops;
    const dst = o0?.k === "reg" ? o0.name : undefined;
    const size = dst !== undefined ? Aarch64Lifter.size(dst) : 8;
    if (NO_EFFECT.test(m)) return undefined;

    // Branches.
    const bcc = /^b\.(\w+)$/.exec(m);
    if (bcc) return { k: "cjump", cond: this.cond(bcc[1]!), target: insn.target ?? 0 };
    switch (m) {
      case "b":
        if (insn.target === undefined) return false;
        return { k: "jump", target: constant(insn.target, 8) };
      case "bl": {
        if (insn.target === undefined) return false;
        return this.#call(constant(insn.target, 8));
      }
      case "blr":
      case "blraaz":
      case "blrabz":
        return this.#call(this.read(o0, 8));
      case "br":
      case "braaz":
      case "brabz":
        return { k: "jump", target: this.read(o0, 8) };
      case "ret":
      case "retaa":
      case "retab":
        return { k: "ret" };
      case "cbz":
      case "cbnz": {
        const v = this.read(o0, size);
        const op: BinOp = m === "cbz" ? "eq" : "ne";
        return { k: "cjump", cond: bin(op, v, constant(0, size), 1), target: insn.target ?? 0 };
      }
      case "tbz":
      case "tbnz": {
        if (o1?.k !== "imm") return false;
        const v = this.read(o0, size);
        const bit = bin("and", bin("shr", v, constant(o1.value, 1)), constant(1, size));
        const cond = bin(m === "tbz" ? "eq" : "ne", bit, constant(0, size), 1);
        return { k: "cjump", cond, target: insn.target ?? 0 };
      }
      case "brk":
      case "udf":
      case "hlt":
        return { k: "stop", why: m };
    }
    // Lanes: `umov w0, v1.s[1]`, `smov`, `mov`/`ins v0.d[1], x2`.
    if ((m === "mov" || m === "umov" || m === "smov" || m === "fmov") && o1?.k === "elem" && dst) {
      this.writeReg(dst, fit(this.#lane(o1), size, m === "smov"));
      return undefined;
    }
    if ((m === "mov" || m === "ins" || m === "fmov") && o0?.k === "elem") {
      const value = o1?.k === "elem" ? this.#lane(o1) : this.read(o1, o0.unit);
      this.#setLane(o0, fit(value, o0.unit, false));
      return undefined;
    }
    const list = /^(ld|st)([1-4])$/.exec(m);
    if (list && o0?.k === "other") return this.#vectorList(list[1] === "ld", Number(list[2]), ops);
    if (dst === undefined && !/^(st|cm|tst|fcm|ccm|fccm|svc)/.test(m)) return false;

    // Lane-wise vector arithmetic (`add v0.4s, v1.4s, v2.4s`) carries nothing across lanes: an
    // intrinsic per arrangement, not a 128-bit integer operation. Bitwise operations and whole
    // moves are the same on the register's bits and stay plain.
    if (ops.some(isArranged) && !(VECTOR_BITWISE.test(m) && !ops.some((o) => o.k === "imm"))) {
      return this.#floatOrVector(m, ops);
    }
    const load = LOAD.exec(m);
    if (load) return this.#load(load[2], ops);
    const store = STORE.exec(m);
    if (store) return this.#store(store[2], ops);
    if (PAIR.test(m)) return this.#pair(m, ops);

    switch (m) {
      case "mov":
      case "movz": {
        this.writeReg(dst!, this.read(o1, size));
        return undefined;
      }
      case "movn": {
        this.writeReg(dst!, un("not", this.read(o1, size)));
        return undefined;
      }
      case "movk": {
        if (o1?.k !== "imm") return false;
        const shift = BigInt(o1.shift?.amount ?? 0);
        const mask = 0xffffn << shift;
        const kept = bin("and", this.readReg(dst!), constant(~mask, size));
        this.writeReg(dst!, bin("or", kept, constant((o1.value << shift) & mask, size)));
        return undefined;
      }
      case "adr":
      case "adrp": {
        if (o1?.k !== "imm") return false;
        this.writeReg(dst!, constant(o1.value, 8));
        return undefined;
      }
      case "add":
      case "sub":
      case "adds":
      case "subs":
      case "cmp":
      case "cmn": {
        const compare = m === "cmp" || m === "cmn";
        const [x, y] = compare ? [o0, o1] : [o1, o2];
        const page = x?.k === "reg" ? this.#known.get(x.name) : undefined;
        if (m === "add" && page && y?.k === "imm" && y.shift === undefined) {
          this.writeReg(dst!, constant(page.value + y.value, 8));
          return undefined;
        }
        const a = this.#tmp(this.read(x, size));
        const b = this.#tmp(this.read(y, size));
        const op: BinOp = m === "add" || m === "adds" || m === "cmn" ? "add" : "sub";
        const res = this.#tmp(bin(op, a, b));
        if (!compare) this.writeReg(dst!, res);
        if (m !== "add" && m !== "sub") this.#setFlags(op, a, b, res);
        return undefined;
      }
      case "neg":
      case "negs": {
        const b = this.#tmp(this.read(o1, size));
        const res = this.#tmp(un("neg", b));
        this.writeReg(dst!, res);
        if (m === "negs") this.#setFlags("sub", constant(0, size), b, res);
        return undefined;
      }
      case "adc":
      case "adcs":
      case "sbc":
      case "sbcs":
      case "ngc":
      case "ngcs": {
        const neg = m.startsWith("ngc");
        const a = this.#tmp(neg ? constant(0, size) : this.read(o1, size));
        const b = this.#tmp(this.read(neg ? o1 : o2, size));
        const c = this.#tmp(ext(this.cond("hs"), size, false));
        // a - b - !C == a + ~b + C.
        const res = this.#tmp(
          m.startsWith("adc")
            ? bin("add", bin("add", a, b), c)
            : bin("add", bin("add", a, un("not", b)), c),
        );
        this.writeReg(dst!, res);
        if (m.endsWith("s")) this.flags = unknownFlags(res, this.#at);
        return undefined;
      }
      case "and":
      case "ands":
      case "orr":
      case "eor":
      case "bic":
      case "bics":
      case "orn":
      case "eon":
      case "tst": {
        const [x, y] = m === "tst" ? [o0, o1] : [o1, o2];
        const a = this.#tmp(this.read(x, size));
        let b: Expr = this.read(y, size);
        if (m === "bic" || m === "bics" || m === "orn" || m === "eon") b = un("not", b);
        const bt = this.#tmp(b);
        const op: BinOp = m === "orr" || m === "orn"
          ? "or"
          : m === "eor" || m === "eon"
          ? "xor"
          : "and";
        const res = this.#tmp(bin(op, a, bt));
        if (m !== "tst") this.writeReg(dst!, res);
        if (m === "ands" || m === "bics" || m === "tst") this.#setFlags("logic", a, bt, res);
        return undefined;
      }
      case "mvn":
      case "not": {
        this.writeReg(dst!, un("not", this.read(o1, size)));
        return undefined;
      }
      case "lsl":
      case "lsr":
      case "asr":
      case "ror":
      case "lslv":
      case "lsrv":
      case "asrv":
      case "rorv": {
        const kind = m.slice(0, 3);
        const a = this.read(o1, size);
        if (o2?.k === "imm") {
          const n = Number(o2.value);
          this.writeReg(
            dst!,
            kind === "ror" ? rotate(a, n) : bin(SHIFTS[kind]!, a, constant(n, 1)),
          );
          return undefined;
        }
        // Register amounts are taken modulo the width.
        const amount = this.#tmp(bin("and", this.read(o2, size), constant(size * 8 - 1, size)));
        if (kind === "ror") {
          const back = bin("and", un("neg", amount), constant(size * 8 - 1, size));
          this.writeReg(dst!, bin("or", bin("shr", a, amount), bin("shl", a, back)));
        } else this.writeReg(dst!, bin(SHIFTS[kind]!, a, amount));
        return undefined;
      }
      case "mul":
      case "mneg":
      case "madd":
      case "msub": {
        const p = bin("mul", this.read(o1, size), this.read(o2, size));
        const r = m === "mul"
          ? p
          : m === "mneg"
          ? un("neg", p)
          : bin(m === "madd" ? "add" : "sub", this.read(o3, size), p);
        this.writeReg(dst!, r);
        return undefined;
      }
      case "smull":
      case "umull":
      case "smaddl":
      case "umaddl":
      case "smsubl":
      case "umsubl":
      case "smnegl":
      case "umnegl": {
        const signed = m.startsWith("s");
        const p = bin("mul", ext(this.read(o1, 4), 8, signed), ext(this.read(o2, 4), 8, signed));
        const r = m.endsWith("mull")
          ? p
          : m.endsWith("negl")
          ? un("neg", p)
          : bin(m.slice(2, 5) === "add" ? "add" : "sub", this.read(o3, 8), p);
        this.writeReg(dst!, r);
        return undefined;
      }
      case "smulh":
      case "umulh": {
        const signed = m === "smulh";
        const p = bin("mul", ext(this.read(o1, 8), 16, signed), ext(this.read(o2, 8), 16, signed));
        this.writeReg(dst!, { k: "trunc", a: bin("shr", p, constant(64, 1)), size: 8 });
        return undefined;
      }
      case "sdiv":
      case "udiv": {
        this.writeReg(dst!, bin(m, this.read(o1, size), this.read(o2, size)));
        return undefined;
      }
      case "sxtb":
      case "sxth":
      case "sxtw":
      case "uxtb":
      case "uxth": {
        const from = { b: 1, h: 2, w: 4 }[m[3] as "b" | "h" | "w"];
        this.writeReg(dst!, ext(this.read(o1, from), size, m[0] === "s"));
        return undefined;
      }
      case "ubfx":
      case "sbfx":
      case "ubfiz":
      case "sbfiz":
      case "bfi":
      case "bfxil":
      case "bfc":
        return this.#bitfield(m, ops, size);
      case "ubfm":
      case "sbfm":
      case "bfm": {
        // The forms no alias covers: `imms >= immr` extracts, otherwise inserts.
        if (o2?.k !== "imm" || o3?.k !== "imm") return false;
        const r = Number(o2.value), s = Number(o3.value);
        const extract = s >= r;
        const lsb = extract ? r : size * 8 - r;
        const width = extract ? s - r + 1 : s + 1;
        const alias = m === "bfm"
          ? (extract ? "bfxil" : "bfi")
          : `${m[0]}bf${extract ? "x" : "iz"}`;
        return this.#bitfield(alias, [o0!, o1!, imm(lsb), imm(width)], size);
      }
      case "extr": {
        if (o3?.k !== "imm") return false;
        const lsb = Number(o3.value);
        const lo = this.read(o2, size);
        if (lsb === 0) this.writeReg(dst!, lo);
        else {
          const hi = this.read(o1, size);
          this.writeReg(
            dst!,
            bin(
              "or",
              bin("shr", lo, constant(lsb, 1)),
              bin("shl", hi, constant(size * 8 - lsb, 1)),
            ),
          );
        }
        return undefined;
      }
      case "csel":
      case "csinc":
      case "csinv":
      case "csneg":
      case "fcsel": {
        if (o3?.k !== "cond") return false;
        const t = this.read(o1, size);
        let f = this.read(o2, size);
        if (m === "csinc") f = bin("add", f, constant(1, size));
        if (m === "csinv") f = un("not", f);
        if (m === "csneg") f = un("neg", f);
        this.writeReg(dst!, select(this.cond(o3.cc), t, f));
        return undefined;
      }
      case "cset":
      case "csetm": {
        if (o1?.k !== "cond") return false;
        const c = ext(this.cond(o1.cc), size, false);
        this.writeReg(dst!, m === "cset" ? c : un("neg", c));
        return undefined;
      }
      case "cinc":
      case "cinv":
      case "cneg": {
        if (o2?.k !== "cond") return false;
        const v = this.#tmp(this.read(o1, size));
        const changed = m === "cinc"
          ? bin("add", v, constant(1, size))
          : un(m === "cinv" ? "not" : "neg", v);
        this.writeReg(dst!, select(this.cond(o2.cc), changed, v));
        return undefined;
      }
      case "ccmp":
      case "ccmn":
      case "fccmp":
      case "fccmpe": {
        if (o2?.k !== "imm" || o3?.k !== "cond") return false;
        const pass = this.#tmp(this.cond(o3.cc));
        const width = Aarch64Lifter.size((o0 as { name: string }).name);
        const a = this.#tmp(this.read(o0, width));
        const b = this.#tmp(this.read(o1, width));
        let cmp: A64Flags;
        if (m.startsWith("f")) cmp = fcmpFlags(a, b, this.#at);
        else {
          const op: BinOp = m === "ccmp" ? "sub" : "add";
          const res = this.#tmp(bin(op, a, b));
          cmp = opFlags({ op, a, b, res, size: width, at: this.#at });
        }
        this.flags = conditionalFlags(pass, cmp, Number(o2.value), this.#at);
        return undefined;
      }
      case "fcmp":
      case "fcmpe": {
        const width = Aarch64Lifter.size((o0 as { name: string }).name);
        const a = this.#tmp(this.read(o0, width));
        const b = this.#tmp(
          o1?.k === "imm" ? floatBits(o1.float ?? 0, width) : this.read(o1, width),
        );
        this.flags = fcmpFlags(a, b, this.#at);
        return undefined;
      }
      case "fmov": {
        this.writeReg(dst!, this.read(o1, size));
        return undefined;
      }
      case "svc": {
        const args = ["x8", "x0", "x1", "x2", "x3", "x4", "x5"].map((r) => this.readReg(r));
        const out: Tmp = { k: "tmp", id: this.#nextTmp++, size: 8 };
        this.#out.push({ k: "asm", name: "__syscall", args, outs: [out], at: this.#at });
        this.writeReg("x0", out);
        return undefined;
      }
      case "mrs": {
        const name = o1?.k === "other"
          ? o1.text.toLowerCase().replace(/[^a-z0-9]+/g, "_")
          : "sysreg";
        this.writeReg(dst!, { k: "intr", name: `__read_${name}`, args: [], size: 8 });
        return undefined;
      }
    }
    if ((m === "rev16" || m === "rev32") && o1?.k === "reg") {
      // Bytes swapped inside each 16- or 32-bit unit: the whole swapped, then the units'
      // order restored with a rotation (rev32), or the swap written with masks (rev16).
      const unit = m === "rev16" ? 2 : 4;
      const v = this.#tmp(this.read(o1, size));
      const swapped: Expr = { k: "intr", name: "__bswap", args: [v], size };
      if (size === unit) this.writeReg(dst!, swapped);
      else if (unit === 4) this.writeReg(dst!, rotate(this.#tmp(swapped), 32));
      else {
        const lo = constant(size === 4 ? 0x00ff00ffn : 0x00ff00ff00ff00ffn, size);
        const n8 = constant(8, 1);
        const r = bin(
          "or",
          bin("and", bin("shr", v, n8), lo),
          bin("shl", bin("and", v, lo), n8),
        );
        this.writeReg(dst!, r);
      }
      return undefined;
    }
    const bitop = BIT_OPS[m];
    if (bitop) {
      this.writeReg(dst!, { k: "intr", name: bitop, args: [this.read(o1, size)], size });
      return undefined;
    }
    return this.#floatOrVector(m, ops);
  }

  /** The half of vector register `reg` holding byte `offset`, and the offset inside it. */
  static #half(reg: number, offset: number): [string, number] {
    return offset < 8 ? [`v${reg}`, offset] : [`v${reg}_hi`, offset - 8];
  }

  #lane(e: A64Operand & { k: "elem" }): Expr {
    const [half, at] = Aarch64Lifter.#half(e.reg, e.unit * e.index);
    const v: Expr = { k: "reg", name: half, size: 8 };
    const shifted = at === 0 ? v : bin("shr", v, constant(at * 8, 1));
    return fit(shifted, e.unit, false);
  }

  #setLane(e: A64Operand & { k: "elem" }, value: Expr): void {
    const [half, at] = Aarch64Lifter.#half(e.reg, e.unit * e.index);
    const mask = ((1n << BigInt(e.unit * 8)) - 1n) << BigInt(at * 8);
    const reg: Expr = { k: "reg", name: half, size: 8 };
    let part = fit(value, 8, false);
    if (at > 0) part = bin("shl", part, constant(at * 8, 1));
    const src = bin("or", bin("and", reg, constant(~mask, 8)), part);
    this.#out.push({ k: "set", dst: { k: "reg", name: half, size: 8 }, src, at: this.#at });
  }

  #call(target: Expr): Control {
    this.#known.clear();
    this.#out.push({ k: "call", target, args: [], defs: [], at: this.#at });
    this.flags = unknownFlags(target, this.#at);
    return { k: "call", target };
  }

  /** `ldr` and friends: `suffix` b/h (zero-extended) or sb/sh/sw (sign-extended). */
  #load(suffix: string | undefined, ops: A64Operand[]): undefined | false {
    const [o0, o1, o2] = ops;
    if (o0?.k !== "reg") return false;
    const size = Aarch64Lifter.size(o0.name);
    const width = suffix === undefined ? size : { b: 1, h: 2, sb: 1, sh: 2, sw: 4 }[suffix]!;
    if (o1?.k === "imm") {
      // A literal: the decoder gives the absolute address.
      this.writeReg(
        o0.name,
        fit(
          { k: "load", addr: constant(o1.value, 8), size: width },
          size,
          suffix?.startsWith("s") ?? false,
        ),
      );
      return undefined;
    }
    if (o1?.k !== "mem") return false;
    const addr = this.#tmp(this.address(o1));
    const v = this.#tmp({ k: "load", addr, size: width });
    this.#writeback(o1, addr, o2);
    this.writeReg(o0.name, fit(v, size, suffix?.startsWith("s") ?? false));
    return undefined;
  }

  #store(suffix: string | undefined, ops: A64Operand[]): undefined | false {
    const [o0, o1, o2] = ops;
    if (o0?.k !== "reg" || o1?.k !== "mem") return false;
    const width = suffix === "b" ? 1 : suffix === "h" ? 2 : Aarch64Lifter.size(o0.name);
    const value = this.#tmp(fit(this.readReg(o0.name), width, false));
    const addr = this.#tmp(this.address(o1));
    this.#out.push({ k: "store", addr, value, size: width, at: this.#at });
    this.#writeback(o1, addr, o2);
    return undefined;
  }

  /** `ldp`/`stp` (and the non-temporal and `ldpsw` forms), with writeback. */
  #pair(m: string, ops: A64Operand[]): undefined | false {
    const [r1, r2, mem, post] = ops;
    if (r1?.k !== "reg" || r2?.k !== "reg" || mem?.k !== "mem") return false;
    const size = Aarch64Lifter.size(r1.name);
    const width = m === "ldpsw" ? 4 : size;
    const addr = this.#tmp(this.address(mem));
    const second = bin("add", addr, constant(width, 8));
    if (m.startsWith("st")) {
      const a = this.#tmp(this.readReg(r1.name));
      const b = this.#tmp(this.readReg(r2.name));
      this.#out.push({ k: "store", addr, value: a, size: width, at: this.#at });
      this.#out.push({ k: "store", addr: second, value: b, size: width, at: this.#at });
      this.#writeback(mem, addr, post);
      return undefined;
    }
    const a = this.#tmp({ k: "load", addr, size: width });
    const b = this.#tmp({ k: "load", addr: second, size: width });
    this.#writeback(mem, addr, post);
    this.writeReg(r1.name, fit(a, size, m === "ldpsw"));
    this.writeReg(r2.name, fit(b, size, m === "ldpsw"));
    return undefined;
  }

  /**
   * `ld1`/`st1` of one to four whole registers (consecutive in memory) and `ld2`/`st2` of two
   * (interleaved: `ld2 {v0.4s, v1.4s}` loads even elements into v0 and odd ones into v1, which
   * is `uzp1`/`uzp2` of the two consecutive vectors; `st2` stores `zip1`/`zip2`). `ld3`/`ld4`
   * (`st3`/`st4`) of three or four: register j of `ld3` is `__ld3_<arr>(j, m0, m1, m2)` of the
   * three vectors at consecutive addresses (every third element from the j-th), the j-th vector
   * `st3` stores is `__st3_<arr>(j, r0, r1, r2)`.
   */
  #vectorList(load: boolean, n: number, ops: A64Operand[]): undefined | false {
    const [list, mem, post] = ops;
    if (list?.k !== "other" || mem?.k !== "mem") return false;
    const regs = /^\{(.*)\}$/.exec(list.text)?.[1]?.split(",").map((r) => r.trim().toLowerCase());
    if (!regs || regs.length === 0 || regs.length > 4 || (n > 1 && regs.length !== n)) {
      return false;
    }
    const arrs = regs.map((r) => /^v\d+\.(\d+[bhsd])$/.exec(r)?.[1]);
    const arr = arrs[0];
    if (arr === undefined || arrs.some((a) => a !== arr)) return false;
    const bytes = Aarch64Lifter.size(regs[0]!);
    const addr = this.#tmp(this.address(mem));
    const at = (i: number) => i === 0 ? addr : bin("add", addr, constant(i * bytes, 8));
    const pair = (name: string, a: Expr, b: Expr): Expr => ({
      k: "intr",
      name: `__${name}_${arr}`,
      args: [a, b],
      size: bytes,
    });
    const interleave = (name: string, j: number, of: Expr[]): Expr => ({
      k: "intr",
      name: `__${name}_${arr}`,
      args: [constant(j, 1), ...of],
      size: bytes,
    });
    if (load) {
      const values = regs.map((_, i) => this.#tmp({ k: "load", addr: at(i), size: bytes }));
      this.#writeback(mem, addr, post);
      if (n === 2) {
        const [a, b] = values as [Tmp, Tmp];
        values[0] = this.#tmp(pair("uzp1", a, b));
        values[1] = this.#tmp(pair("uzp2", a, b));
      }
      const out = n > 2 ? values.map((_, j) => this.#tmp(interleave(`ld${n}`, j, values))) : values;
      regs.forEach((r, i) => this.writeReg(r, out[i]!));
      return undefined;
    }
    let values = regs.map((r) => this.#tmp(this.readReg(r)));
    if (n === 2) {
      const [a, b] = values as [Tmp, Tmp];
      values = [this.#tmp(pair("zip1", a, b)), this.#tmp(pair("zip2", a, b))];
    }
    if (n > 2) {
      const regsValues = values;
      values = regsValues.map((_, j) => this.#tmp(interleave(`st${n}`, j, regsValues)));
    }
    values.forEach((v, i) => {
      this.#out.push({ k: "store", addr: at(i), value: v, size: bytes, at: this.#at });
    });
    this.#writeback(mem, addr, post);
    return undefined;
  }

  /** Pre-index (`[x1, #8]!`: the base becomes the address) or post-index (`[x1], #8`). */
  #writeback(mem: Mem, addr: Expr, post: A64Operand | undefined): void {
    const base = mem.base === "wsp" ? "sp" : mem.base;
    if (mem.pre) this.writeReg(base, addr);
    else if (post?.k === "imm") this.writeReg(base, bin("add", addr, constant(post.value, 8)));
    else if (post?.k === "reg") this.writeReg(base, bin("add", addr, this.readReg(post.name)));
  }

  #bitfield(m: string, ops: A64Operand[], size: number): undefined | false {
    const [o0, o1, o2, o3] = ops;
    if (o0?.k !== "reg") return false;
    // bfc has no source register.
    const [lsbOp, widthOp] = m === "bfc" ? [o1, o2] : [o2, o3];
    if (lsbOp?.k !== "imm" || widthOp?.k !== "imm") return false;
    const lsb = Number(lsbOp.value);
    const width = Number(widthOp.value);
    const bits = size * 8;
    const mask = (1n << BigInt(width)) - 1n;
    const src = m === "bfc" ? constant(0, size) : this.read(o1, size);
    const n = (k: number) => constant(k, 1);
    let v: Expr;
    switch (m) {
      case "ubfx":
        v = bin("and", lsb === 0 ? src : bin("shr", src, n(lsb)), constant(mask, size));
        if (lsb + width === bits) v = bin("shr", src, n(lsb));
        break;
      case "sbfx":
        v = bin("sar", bin("shl", src, n(bits - lsb - width)), n(bits - width));
        break;
      case "ubfiz":
        v = bin("shl", bin("and", src, constant(mask, size)), n(lsb));
        break;
      case "sbfiz":
        v = bin("shl", bin("sar", bin("shl", src, n(bits - width)), n(bits - width)), n(lsb));
        break;
      default: {
        // bfi, bfxil, bfc: the destination keeps the bits outside the field.
        const field = mask << BigInt(m === "bfxil" ? 0 : lsb);
        const kept = bin("and", this.readReg(o0.name), constant(~field, size));
        const part = m === "bfxil"
          ? bin("and", bin("shr", src, n(lsb)), constant(mask, size))
          : bin("shl", bin("and", src, constant(mask, size)), n(lsb));
        v = bin("or", kept, part);
      }
    }
    this.writeReg(o0.name, v);
    return undefined;
  }

  /**
   * Floating point and SIMD with one destination register: `dst = __mnemonic(sources)`, typed
   * by the destination's size. Loads and stores of vector lists and instructions with more
   * than one result fall back to `__asm_`.
   */
  #floatOrVector(m: string, ops: A64Operand[]): undefined | false {
    const [o0, ...rest] = ops;
    if (o0?.k !== "reg") return false;
    const isVec = (o: A64Operand) => o.k === "reg" && /^[bhsdqv]\d/.test(o.name);
    const family =
      /^(f|scvtf|ucvtf|movi|mvni|dup|ins|umov|smov|cnt|addv|uaddlv|xtn|ushr|sshr|shl|cm|bsl|bit|bif|ext|zip|uzp|trn|tbl|rev64|not|orr|and|eor|bic|add|sub|mul|umin|umax|smin|smax|uaddl|saddl|uaddw|saddw|ushll|sshll|uzp)/;
    if (!isVec(o0) && !rest.some(isVec)) return false;
    if (!family.test(m) && !ops.every((o) => o.k === "reg" || o.k === "imm")) return false;
    if (rest.some((o) => o.k === "mem" || o.k === "other")) return false;
    const size = Aarch64Lifter.size(o0.name);
    const sources = READS_DESTINATION.test(m) && isArranged(o0) ? [o0, ...rest] : rest;
    const args = sources.map((o) => {
      if (o.k === "reg") {
        const r = this.readReg(o.name);
        return o.shift ? this.#shifted(r, o.shift, r.size) : r;
      }
      if (o.k === "imm") return this.read(o, 8);
      if (o.k === "elem") return this.#lane(o);
      throw new Unmodelled();
    });
    // A by-element form (`fmul v0.2d, v1.2d, v2.d[0]`, `mla v0.4s, v1.4s, v2.s[1]`) uses the
    // one lane in every lane: the element broadcast as `dup` does, at the arrangement of the
    // vector source before it.
    if (isArranged(o0) && !/^(dup|ins|mov|umov|smov)$/.test(m)) {
      sources.forEach((o, i) => {
        if (o.k !== "elem") return;
        const like = sources.slice(0, i).reverse().find(isArranged) ?? o0;
        const arr = /\.(\d+[bhsd])$/.exec((like as { name: string }).name)![1]!;
        const bytes = arr === "16b" || arr === "8h" || arr === "4s" || arr === "2d" ? 16 : 8;
        args[i] = { k: "intr", name: `__dup_${arr}`, args: [args[i]!], size: bytes };
      });
    }
    // A vector operation's lanes come from its arrangement: `cnt v0.8b` is `__cnt_8b`.
    const lanes = ops.map((o) => o.k === "reg" ? /\.(\d+[bhsd])$/.exec(o.name)?.[1] : undefined)
      .find((x) => x !== undefined);
    const typed = lanes === undefined ? scalarFloat(m, args, size) : undefined;
    const name = `__${m.replace(/[^a-z0-9]+/g, "_")}${lanes ? `_${lanes}` : ""}`;
    const r = this.#tmp(typed ?? { k: "intr", name, args, size });
    this.writeReg(o0.name, r);
    return undefined;
  }

  /**
   * The fallback: `__asm_<mnemonic>(reads)` writing the first operand when it is a register
   * the instruction writes (and a memory base it writes back). The flags become unknown.
   */
  #asm(m: string, ops: A64Operand[]): void {
    const args: Expr[] = [];
    const writesFirst =
      ops[0]?.k === "reg" && !/^(st[^x]|cm|tst|prf|msr|sys|tlbi|dc|ic|at)/.test(m) ||
      /^st[l]?xr|^st[l]?xp/.test(m);
    ops.forEach((o, i) => {
      try {
        if (o.k === "reg" && !(i === 0 && writesFirst)) args.push(this.readReg(o.name));
        else if (o.k === "imm") args.push(constant(o.value, 8));
        else if (o.k === "mem") args.push(this.address(o));
      } catch {
        // An operand the lifter cannot read is left out of the arguments.
      }
    });
    const outs: Tmp[] = [];
    const first = ops[0];
    let dest: string | undefined;
    if (writesFirst && first?.k === "reg") {
      try {
        outs.push({ k: "tmp", id: this.#nextTmp++, size: Aarch64Lifter.size(first.name) });
        dest = first.name;
      } catch {
        // Not a register the IR models (a vector list): no result.
      }
    }
    this.#out.push({
      k: "asm",
      name: `__asm_${m.replace(/[^a-z0-9]+/g, "_")}`,
      args,
      outs,
      at: this.#at,
    });
    if (dest !== undefined && outs[0]) {
      try {
        this.writeReg(dest, outs[0]);
      } catch {
        // Nothing more to say about an output we cannot place.
      }
    }
    this.flags = unknownFlags(outs[0] ?? constant(0, 1), this.#at);
  }
}

/** `name(args)`, one of float.ts's operations. */
function fop(name: string, args: Expr[], size: number): Expr {
  return { k: "intr", name, args, size };
}

/**
 * Scalar floating point (`fadd d0, d1, d2`, `scvtf s0, w1`) as float.ts's typed operations, so
 * C shows `double` and `float` arithmetic; undefined for an instruction with no exact
 * counterpart there (it stays `__<mnemonic>`).
 * `__fadd`, `__fsub`, `__fmul`, `__fdiv`, `__fneg`, `__fabs` and `__fsqrt` already carry
 * float.ts's names. fmin and fmax are not SSE's `__fmin`/`__fmax` (the second operand when one
 * is NaN or both are zeros): they give the NaN and order -0.0 below +0.0, float.ts's
 * `__fminimum`/`__fmaximum`; fminnm and fmaxnm are its `__fminnum`/`__fmaxnum`.
 */
function scalarFloat(m: string, args: Expr[], size: number): Expr | undefined {
  const float = (e: Expr | undefined) => e !== undefined && (e.size === 4 || e.size === 8);
  const [a, b, c] = args;
  // A fixed-point form (`scvtf d0, w1, #2`, `fcvtzs w0, d1, #2`) scales by 2^bits: exactly a
  // division or multiplication by that power of two after or before the conversion.
  if (/^(scvtf|ucvtf|fcvtzs|fcvtzu)$/.test(m) && args.length === 2 && a && b?.k === "const") {
    const scale = (fsize: number) => floatBits(2 ** Number(b.value), fsize);
    if (m.endsWith("f")) {
      const converted = scalarFloat(m, [a], size);
      return converted && fop("__fdiv", [converted, scale(size)], size);
    }
    return float(a) ? scalarFloat(m, [fop("__fmul", [a, scale(a.size)], a.size)], size) : undefined;
  }
  switch (m) {
    case "fmin":
    case "fmax":
    case "fminnm":
    case "fmaxnm":
      return args.length === 2 && float(a) && a?.size === size && b?.size === size
        ? fop(MIN_MAX[m]!, args, size)
        : undefined;
    case "fnmul":
      // -(a * b): negating the rounded product is the same value.
      return args.length === 2 && float(a) && a?.size === size
        ? fop("__fneg", [fop("__fmul", args, size)], size)
        : undefined;
    case "fcvt":
      return args.length === 1 && float(a) && (size === 4 || size === 8)
        ? fop("__fconv", args, size)
        : undefined;
    case "scvtf":
    case "ucvtf":
      if (args.length !== 1 || !(size === 4 || size === 8) || !a) return undefined;
      // An unsigned 32-bit source is a signed 64-bit one after zero extension; a 64-bit one
      // is C's conversion of a uint64_t, rounded the same way.
      if (m === "scvtf") return fop("__itof", args, size);
      return a.size === 4 ? fop("__itof", [ext(a, 8, false)], size) : fop("__utof", args, size);
    case "fcvtzs":
      return args.length === 1 && float(a) ? fop("__ftoi", args, size) : undefined;
    case "fcvtzu":
      // Into 32 bits: the truncation toward zero as a 64-bit signed value, whose low half
      // it is for every value in range.
      if (args.length !== 1 || !float(a)) return undefined;
      return size === 4
        ? { k: "trunc", a: fop("__ftoi", args, 8), size: 4 }
        : fop("__ftou", args, 8);
    case "fmadd":
    case "fmsub":
    case "fnmadd":
    case "fnmsub": {
      // Fused: `fmadd d0, n, m, a` is fma(n, m, a), rounded once.
      if (args.length !== 3 || !a || !b || !c || !float(a) || a.size !== size) return undefined;
      const neg = (e: Expr) => fop("__fneg", [e], e.size);
      const n = m === "fmsub" || m === "fnmadd" ? neg(a) : a;
      const acc = m === "fnmadd" || m === "fnmsub" ? neg(c) : c;
      return fop("__fma", [n, b, acc], size);
    }
  }
  return undefined;
}

const MIN_MAX: Record<string, string> = {
  fmin: "__fminimum",
  fmax: "__fmaximum",
  fminnm: "__fminnum",
  fmaxnm: "__fmaxnum",
};

const SHIFTS: Record<string, BinOp> = { lsl: "shl", lsr: "shr", asr: "sar" };

function bin(op: BinOp, a: Expr, b: Expr, size = a.size): Expr {
  return { k: "bin", op, a, b, size };
}

function un(op: "neg" | "not", a: Expr): Expr {
  return { k: "un", op, a, size: a.size };
}

function ext(a: Expr, size: number, signed: boolean): Expr {
  return a.size === size ? a : { k: "ext", signed, a, size };
}

/** `a` at `size` bytes: truncated, or extended (signed or not). */
function fit(a: Expr, size: number, signed: boolean): Expr {
  if (a.size === size) return a;
  return a.size > size ? { k: "trunc", a, size } : { k: "ext", signed, a, size };
}

function select(c: Expr, t: Expr, f: Expr): Expr {
  return { k: "select", c, t, f, size: t.size };
}

function rotate(v: Expr, n: number): Expr {
  const bits = v.size * 8;
  const k = ((n % bits) + bits) % bits;
  if (k === 0) return v;
  return bin("or", bin("shr", v, constant(k, 1)), bin("shl", v, constant(bits - k, 1)));
}

/** A vector register operand with an arrangement (`v0.4s`): its lanes are separate values. */
function isArranged(o: A64Operand): boolean {
  return o.k === "reg" && /^v\d+\.\d+[bhsd]$/.test(o.name);
}

function imm(value: number): A64Operand {
  return { k: "imm", value: BigInt(value) };
}

/** The IEEE bits of `f` as a float of `size` bytes (fmov's immediates). */
function floatBits(f: number, size: number): Expr {
  const view = new DataView(new ArrayBuffer(8));
  if (size === 4) {
    view.setFloat32(0, f, true);
    return constant(view.getUint32(0, true), 4);
  }
  if (size === 2) return constant(0, 2);
  view.setFloat64(0, f, true);
  return constant(view.getBigUint64(0, true), size);
}
