/**
 * AArch64 operands read from Capstone's printed operand string. Capstone 5's detail for AArch64
 * drops what the lifter needs most (shift and extend of a register operand, writeback, the
 * condition of `csel`/`ccmp`, the arrangement of a vector register) from the engine-neutral
 * {@link Operand}, while the text states all of it in the architecture's own alias syntax
 * (`add x0, x1, w2, sxtw #2`, `ldr x0, [x1], #0x10`, `cset w0, lt`), so the text is parsed once,
 * here, into typed operands.
 */

import { splitOperands } from "../../arch/operands.ts";

/** A shift or extend applied to a register (or an immediate's `lsl #12`). */
export interface Shift {
  kind: string;
  amount: number;
}

/** One AArch64 operand. */
export type A64Operand =
  /** A register by its printed name (`x0`, `w1`, `sp`, `xzr`, `d0`, `v1.16b`), maybe shifted. */
  | { k: "reg"; name: string; shift?: Shift }
  /** An immediate; `float` when it was printed as a floating-point literal (fmov). */
  | { k: "imm"; value: bigint; shift?: Shift; float?: number }
  /**
   * `[base, #offset]`, `[base, index, extend #n]`; `pre` for the writeback form `[...]!`. The
   * post-index form is a memory operand followed by an immediate operand.
   */
  | {
    k: "mem";
    base: string;
    offset: bigint;
    index?: { name: string; shift?: Shift };
    pre: boolean;
  }
  /** One lane of a vector register (`v0.s[1]`): `unit` bytes at lane `index`. */
  | { k: "elem"; reg: number; unit: number; index: number }
  /** A condition (`eq`, `lt`, …). */
  | { k: "cond"; cc: string }
  /** Anything else (vector lists, system registers, barrier options). */
  | { k: "other"; text: string };

const CONDITIONS = new Set([
  "eq",
  "ne",
  "hs",
  "cs",
  "lo",
  "cc",
  "mi",
  "pl",
  "vs",
  "vc",
  "hi",
  "ls",
  "ge",
  "lt",
  "gt",
  "le",
  "al",
  "nv",
]);

const SHIFT = /^(lsl|lsr|asr|ror|msl|[us]xt[bhwx])(?:\s+#(-?(?:0x)?[0-9a-f]+))?$/i;
const REGISTER =
  /^(?:[xw](?:[12]?\d|30)|sp|wsp|xzr|wzr|fp|lr|[bhsdq](?:[12]?\d|3[01])|v(?:[12]?\d|3[01])(?:\.\d*[bhsdq])?)$/;

function parseInt64(text: string): bigint {
  const neg = text.startsWith("-");
  const body = neg ? text.slice(1) : text;
  const v = BigInt(body);
  // Capstone 5 prints `mov x0, #0xffffffff80000000` as `#-0xffffffff80000000`: a "negative"
  // whose magnitude has bit 63 set is the value's own two's-complement bits.
  if (neg && v >= 1n << 63n) return BigInt.asIntN(64, v);
  return neg ? -v : v;
}

function parseShift(text: string): Shift | undefined {
  const m = SHIFT.exec(text);
  if (!m) return undefined;
  return { kind: m[1]!.toLowerCase(), amount: m[2] ? Number(parseInt64(m[2])) : 0 };
}

/** Register names as the lifter keys them: Capstone's `fp`/`lr` are x29/x30. */
function regName(text: string): string {
  return text === "fp" ? "x29" : text === "lr" ? "x30" : text.toLowerCase();
}

function parseMem(text: string): A64Operand {
  const pre = text.endsWith("!");
  const inner = text.slice(1, text.lastIndexOf("]"));
  const parts = splitOperands(inner);
  const base = regName(parts[0] ?? "");
  const mem: A64Operand & { k: "mem" } = { k: "mem", base, offset: 0n, pre };
  const second = parts[1];
  if (second === undefined) return mem;
  if (second.startsWith("#")) {
    mem.offset = parseInt64(second.slice(1));
    return mem;
  }
  const shift = parts[2] !== undefined ? parseShift(parts[2]) : undefined;
  mem.index = { name: regName(second), ...(shift ? { shift } : {}) };
  return mem;
}

function parseOne(text: string): A64Operand {
  if (text.startsWith("[")) return parseMem(text);
  if (text.startsWith("#")) {
    const body = text.slice(1);
    if (/^-?(0x[0-9a-f]+|\d+)$/i.test(body)) return { k: "imm", value: parseInt64(body) };
    const f = Number(body);
    if (Number.isFinite(f)) return { k: "imm", value: 0n, float: f };
    return { k: "other", text };
  }
  const lower = text.toLowerCase();
  if (REGISTER.test(lower)) return { k: "reg", name: regName(lower) };
  const elem = /^v(\d+)\.\d*([bhsd])\[(\d+)\]$/.exec(lower);
  if (elem) {
    const unit = { b: 1, h: 2, s: 4, d: 8 }[elem[2] as "b" | "h" | "s" | "d"];
    return { k: "elem", reg: Number(elem[1]), unit, index: Number(elem[3]) };
  }
  if (CONDITIONS.has(lower)) return { k: "cond", cc: lower };
  return { k: "other", text };
}

/** The operands of one instruction's printed operand string. */
export function parseOperands(opStr: string): A64Operand[] {
  const out: A64Operand[] = [];
  for (const part of splitOperands(opStr)) {
    const shift = parseShift(part);
    const prev = out[out.length - 1];
    // `lsl #3`, `sxtw #2`, `uxtb` after a register or immediate modify it.
    if (shift && prev && (prev.k === "reg" || prev.k === "imm") && prev.shift === undefined) {
      prev.shift = shift;
      continue;
    }
    out.push(parseOne(part));
  }
  return out;
}
