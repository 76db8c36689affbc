import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createDecoder } from "../../arch/decoder.ts";
import type { Decoder } from "../../arch/types.ts";
import { bytes, liftAll } from "./_testing.ts";
import { Aarch64Lifter } from "./aarch64.ts";
import { run, type State, stateOf, writeMem } from "../interp.ts";
import { type Const, constant, type Expr } from "../ir.ts";
import { fcmpFlags, holds } from "./aarch64_flags.ts";
import { parseOperands } from "./aarch64_operands.ts";

// The hex strings are little-endian instruction words from aarch64-linux-gnu-as; the comment
// beside each gives its source.

let shared: Decoder | undefined;
async function decoder(): Promise<Decoder> {
  return shared ??= await createDecoder("aarch64");
}

async function lift(hex: string) {
  const d = await decoder();
  const insns = d.decode(bytes(hex), 0x1000, { detail: true, text: true });
  return liftAll(new Aarch64Lifter(), insns);
}

async function exec(
  hex: string,
  regs: Record<string, bigint | number>,
  setup?: (s: State) => void,
) {
  const { stmts, control } = await lift(hex);
  const s = stateOf(regs);
  setup?.(s);
  run(s, stmts);
  return { s, control };
}

const x = (s: State, n: number) => s.vars.get(`x${n}`);
const M64 = (1n << 64n) - 1n;

Deno.test("parseOperands() reads shifts, extends, writeback and conditions", () => {
  assertEquals(parseOperands("x0, x1, w2, sxtw #2")[2], {
    k: "reg",
    name: "w2",
    shift: { kind: "sxtw", amount: 2 },
  });
  assertEquals(parseOperands("x0, [x1, #0x10]!")[1], {
    k: "mem",
    base: "x1",
    offset: 16n,
    pre: true,
  });
  assertEquals(parseOperands("x0, [x1], #-0x8")[2], { k: "imm", value: -8n });
  assertEquals(parseOperands("w0, [x1, w2, uxtw #2]")[1], {
    k: "mem",
    base: "x1",
    offset: 0n,
    index: { name: "w2", shift: { kind: "uxtw", amount: 2 } },
    pre: false,
  });
  assertEquals(parseOperands("w0, w1, w2, lt")[3], { k: "cond", cc: "lt" });
  assertEquals(parseOperands("fp, lr, [sp]").map((o) => o.k === "reg" ? o.name : ""), [
    "x29",
    "x30",
    "",
  ]);
});

Deno.test("Aarch64Lifter W writes zero-extend, X operands shift and extend", async () => {
  // mov w0, w1
  assertEquals(x((await exec("e003012a", { x0: -1, x1: 0x1122334455667788n })).s, 0), 0x55667788n);
  // add x0, x1, x2, lsl #3
  assertEquals(x((await exec("200c028b", { x0: 0, x1: 5, x2: 3 })).s, 0), 29n);
  // add x0, x1, w2, sxtw #2
  assertEquals(x((await exec("20c8228b", { x0: 0, x1: 100, x2: 0xffffffffn })).s, 0), 96n);
  // sub w0, w1, #0x10
  assertEquals(x((await exec("20400051", { x0: 0, x1: 4 })).s, 0), 0xfffffff4n);
  // add w0, w1, #1, lsl #12
  assertEquals(x((await exec("20044011", { x0: 0, x1: 1 })).s, 0), 0x1001n);
});

/** NZCV of a - b (sub) or a + b (add) at 32 bits, the reference for the condition tests. */
function nzcv(a: bigint, b: bigint, op: "sub" | "add"): Record<string, boolean> {
  const m = (1n << 32n) - 1n;
  const s = (v: bigint) => BigInt.asIntN(32, v);
  const res = op === "sub" ? (a - b) & m : (a + b) & m;
  const n = s(res) < 0n, z = res === 0n;
  const c = op === "sub" ? a >= b : a + b > m;
  const v = op === "sub" ? s(a) - s(b) !== s(res) : s(a) + s(b) !== s(res);
  return {
    eq: z,
    ne: !z,
    hs: c,
    lo: !c,
    mi: n,
    pl: !n,
    vs: v,
    vc: !v,
    hi: c && !z,
    ls: !c || z,
    ge: n === v,
    lt: n !== v,
    gt: !z && n === v,
    le: z || n !== v,
  };
}

const PAIRS: [bigint, bigint][] = [
  [1n, 2n],
  [2n, 1n],
  [5n, 5n],
  [0xffffffffn, 1n],
  [0x80000000n, 1n],
  [0x7fffffffn, 0xffffffffn],
  [0n, 0n],
];

Deno.test("Aarch64Lifter cmp then cset gives each condition as the hardware's NZCV", async () => {
  // cmp w0, w1; cset w2, lt; cset w3, lo; cset w4, hi; cset w5, eq; cset w6, ge
  const hex = "1f00016be2a79f1ae3279f1ae4979f1ae5179f1ae6b79f1a";
  for (const [a, b] of PAIRS) {
    const { s } = await exec(hex, { x0: a, x1: b });
    const f = nzcv(a, b, "sub");
    const got = [2, 3, 4, 5, 6].map((i) => x(s, i) === 1n);
    assertEquals(got, [f.lt, f.lo, f.hi, f.eq, f.ge], `cmp ${a}, ${b}`);
  }
  // subs w5, w1, w2; cset w6, ls (and adds, hs)
  for (const [a, b] of PAIRS) {
    const { s } = await exec("2500026be6879f1a", { x1: a, x2: b, x5: 0 });
    assertEquals(x(s, 6) === 1n, nzcv(a, b, "sub").ls, `subs ${a}, ${b}`);
  }
});

Deno.test("Aarch64Lifter cmn sets the carry of an addition, tst clears it", async () => {
  // cmn x0, #1; cset w2, eq; cset w3, hs
  const cmn = await exec("1f0400b1e2179f1ae3379f1a", { x0: M64 });
  assertEquals([x(cmn.s, 2), x(cmn.s, 3)], [1n, 1n]);
  const cmn2 = await exec("1f0400b1e2179f1ae3379f1a", { x0: 5 });
  assertEquals([x(cmn2.s, 2), x(cmn2.s, 3)], [0n, 0n]);
  // tst w0, #7; cset w2, ne; cset w3, hs; cset w4, lt
  for (const [v, ne, lt] of [[8n, 0n, 0n], [0x80000001n, 1n, 0n], [3n, 1n, 0n]] as const) {
    const { s } = await exec("1f080072e2079f1ae3379f1ae4a79f1a", { x0: v });
    assertEquals([x(s, 2), x(s, 3), x(s, 4)], [ne, 0n, lt]);
  }
});

Deno.test("Aarch64Lifter ccmp chains into one condition", async () => {
  // cmp w0, #3; ccmp w1, #5, #4, ne; cset w2, eq  ==  w0 == 3 || w1 == 5
  const hex = "1f0c00712418457ae2179f1a";
  for (const [a, b] of [[3, 0], [0, 5], [3, 5], [1, 1]] as const) {
    const { s } = await exec(hex, { x0: a, x1: b });
    assertEquals(x(s, 2), a === 3 || b === 5 ? 1n : 0n, `w0=${a} w1=${b}`);
  }
});

Deno.test("Aarch64Lifter moves wide immediates", async () => {
  // movz x0, #0x1234; movk x0, #0xabcd, lsl #16; movk x0, #0xffff, lsl #48
  assertEquals(x((await exec("804682d2a079b5f2e0fffff2", { x0: 0 })).s, 0), 0xffff0000abcd1234n);
  // mov x0, #-2 (movn)
  assertEquals(x((await exec("20008092", { x0: 0 })).s, 0), M64 - 1n);
  // mov x0, #0xffffffff80000000, which Capstone prints as #-0xffffffff80000000
  assertEquals(x((await exec("e08361b2", { x0: 0 })).s, 0), 0xffffffff80000000n);
});

Deno.test("Aarch64Lifter bitfield aliases", async () => {
  // ubfx w0, w1, #4, #8; sbfx x2, x1, #4, #8; sxtw x3, w1; uxtb w4, w1; bfi w5, w1, #8, #4;
  // bfxil w6, w1, #4, #4; ubfiz x7, x1, #2, #3
  const hex = "202c0453222c4493237c4093241c0053250c1833261c043327087ed3";
  const { s } = await exec(hex, { x1: 0x87654f8dn, x5: 0xffffffffn, x6: 0 });
  assertEquals(x(s, 0), 0xf8n);
  assertEquals(x(s, 2), M64 - 7n); // 0xf8 as a signed byte
  assertEquals(x(s, 3), 0xffffffff87654f8dn);
  assertEquals(x(s, 4), 0x8dn);
  assertEquals(x(s, 5), 0xfffffdffn);
  assertEquals(x(s, 6), 0x8n);
  assertEquals(x(s, 7), 0x14n);
});

Deno.test("Aarch64Lifter shifts, rotates and extr", async () => {
  // lsl w0, w1, #3; lsr x2, x1, #3; asr w3, w1, #2; ror w4, w1, #8; lsl x5, x1, x2;
  // extr x6, x1, x2, #8
  const hex = "20701d5322fc43d3237c0213242081132520c29a2620c293";
  const { s } = await exec(hex, { x1: 0x80000010n, x2: 0 });
  assertEquals(x(s, 0), 0x80n);
  assertEquals(x(s, 2), 0x10000002n);
  assertEquals(x(s, 3), 0xe0000004n);
  assertEquals(x(s, 4), 0x10800000n);
  // x2 is 0x10000002 by then: the amount is taken modulo 64 (2).
  assertEquals(x(s, 5), 0x200000040n);
  assertEquals(x(s, 6), 0x1000000000100000n);
});

Deno.test("Aarch64Lifter multiplies and divides", async () => {
  // madd x0, x1, x2, x3; msub w4, w1, w2, w3; smull x5, w1, w2; umulh x6, x1, x2;
  // smulh x7, x1, x2; sdiv w8, w1, w2; udiv x9, x1, x2
  const hex = "200c029b248c021b257c229b267cc29b277c429b280cc21a2908c29a";
  const { s } = await exec(hex, { x1: M64 - 6n, x2: 3, x3: 100 });
  assertEquals(x(s, 0), 79n);
  assertEquals(x(s, 4), 121n);
  assertEquals(x(s, 5), M64 - 20n);
  assertEquals(x(s, 6), 2n);
  assertEquals(x(s, 7), M64);
  assertEquals(x(s, 8), 0xfffffffen);
  assertEquals(x(s, 9), (M64 - 6n) / 3n);
});

Deno.test("Aarch64Lifter conditional selects", async () => {
  // cmp w0, w1 then csel x0, x1, x2, gt; csinc w3, w1, w2, eq; csneg w4, w1, w2, eq;
  // cinc w5, w1, eq; csetm x6, ne
  const hex = "1f00016b" + "20c0829a2304821a2404825a2514811ae6039fda";
  const { s } = await exec(hex, { x0: 7, x1: 7, x2: 2 });
  assertEquals([x(s, 0), x(s, 3), x(s, 4), x(s, 5), x(s, 6)], [2n, 7n, 7n, 8n, 0n]);
  const t = (await exec(hex, { x0: 9, x1: 7, x2: 2 })).s;
  assertEquals([x(t, 0), x(t, 3), x(t, 4), x(t, 5), x(t, 6)], [7n, 3n, 0xfffffffen, 7n, M64]);
});

Deno.test("Aarch64Lifter loads, extensions and writeback", async () => {
  // ldr x0, [x1, #8]; ldrb w2, [x1, x3]; ldrsw x4, [x1, #4]; ldrsh w5, [x1];
  // ldr w6, [x1, x3, lsl #2]
  const hex = "200440f922686338240480b92500c079267863b8";
  const { s } = await exec(hex, { x1: 0x100, x3: 2 }, (st) => {
    writeMem(st, 0x100, 8, 0x8000_0000_ffff_8001n);
    writeMem(st, 0x108, 8, 0x1122334455667788n);
  });
  assertEquals(x(s, 0), 0x1122334455667788n);
  assertEquals(x(s, 2), 0xffn);
  assertEquals(x(s, 4), 0xffffffff80000000n);
  assertEquals(x(s, 5), 0xffff8001n);
  assertEquals(x(s, 6), 0x55667788n);
  // ldr x0, [x1, #16]!; ldr x2, [x3], #8
  const wb = (await exec("200c41f8628440f8", { x1: 0x100, x3: 0x200 })).s;
  assertEquals([x(wb, 1), x(wb, 3)], [0x110n, 0x208n]);
});

Deno.test("Aarch64Lifter frame: stp/ldp with writeback keep sp balanced", async () => {
  // stp x29, x30, [sp, #-32]!; mov x29, sp; str w0, [sp, #28]; ldp x29, x30, [sp], #32; ret
  const { s, control } = await exec("fd7bbea9fd030091e01f00b9fd7bc2a8c0035fd6", {
    sp: 0x1000,
    x0: 0x42,
    x29: 0x77,
    x30: 0x99,
  });
  assertEquals([s.vars.get("sp"), x(s, 29), x(s, 30)], [0x1000n, 0x77n, 0x99n]);
  assertEquals(s.mem.get(0x1000 - 4), 0x42);
  assertEquals(control, { k: "ret" });
});

Deno.test("Aarch64Lifter compare-and-branch and test-bit branches", async () => {
  const d = await decoder();
  // cbz w0; cbnz x0; tbz w0, #3; tbnz x0, #40 (each to 0x100 relative)
  const insns = d.decode(bytes("00080034000800b500081836000840b7"), 0, { text: true });
  const cases: [number, bigint, boolean][] = [
    [0, 0x100000000n, true],
    [1, 0x100000000n, true],
    [2, 8n, false],
    [3, 1n << 40n, true],
  ];
  for (const [i, v, want] of cases) {
    const r = new Aarch64Lifter().lift(insns[i]!);
    assert(r.control?.k === "cjump");
    const s = stateOf({ x0: v, c: 0 });
    run(s, [{ k: "set", dst: { k: "reg", name: "c", size: 1 }, src: r.control.cond, at: 0 }]);
    assertEquals(s.vars.get("c") === 1n, want, insns[i]!.mnemonic);
  }
});

Deno.test("Aarch64Lifter logic with inverted operands", async () => {
  // bic w0, w1, w2; orn x3, x1, x2; eon w4, w1, w2; ands x5, x1, x2; mvn w6, w1; neg x7, x1;
  // orr w8, w1, w2, lsl #4; eor x9, x1, x2
  const hex = "2000220a230022aa2400224a250002eae603212ae70301cb2810022a290002ca";
  const { s } = await exec(hex, { x1: 0xf0f0n, x2: 0xff00n });
  assertEquals(x(s, 0), 0xf0n);
  assertEquals(x(s, 3), M64 - 0xff00n + 0xf000n);
  assertEquals(x(s, 4), 0xfffff00fn);
  assertEquals(x(s, 5), 0xf000n);
  assertEquals(x(s, 6), 0xffff0f0fn);
  assertEquals(x(s, 7), M64 - 0xf0f0n + 1n);
  assertEquals(x(s, 8), 0xff0f0n | 0xf0f0n);
  assertEquals(x(s, 9), 0x0ff0n);
});

Deno.test("Aarch64Lifter floating point: typed intrinsics, bit moves, fcmp conditions", async () => {
  // fadd d0, d1, d2; fmov s3, w1; fmov x2, d0; fcmp d0, d1; cset w4, mi; fmov d5, #1.0
  const { stmts, lifted, count } = await lift("2028621e2300271e0200669e0020611ee4579f1a05106e1e");
  assertEquals(lifted, count);
  const names = stmts.flatMap((s) => s.k === "set" && s.src.k === "intr" ? [s.src.name] : []);
  assert(names.includes("__fadd"));
  const s = stateOf({ v0: 0, v1: 0, v2: 0, v3: -1, v5: 0, x1: 0xabcd, x2: 0, x4: 0 });
  run(s, stmts);
  assertEquals(s.vars.get("v3"), 0xabcdn);
  assertEquals(s.vars.get("v5"), 0x3ff0000000000000n);
  // mi: ordered less, `!__fle(d1, d0)`.
  assert(s.effects.some((e) => e.name === "__fle"));
});

Deno.test("Aarch64Lifter scalar conversions and fused multiply-adds as float.ts's operations", async () => {
  const show = (e: Expr): string => {
    switch (e.k) {
      case "intr":
        return `${e.name}(${e.args.map(show).join(", ")}):${e.size}`;
      case "reg":
        return e.name;
      case "trunc":
        return `trunc${e.size}(${show(e.a)})`;
      case "ext":
        return `${e.signed ? "s" : "z"}ext${e.size}(${show(e.a)})`;
      case "const":
        return `0x${e.value.toString(16)}`;
      default:
        return e.k;
    }
  };
  // The operation each instruction computes (the first value it names).
  const op = async (hex: string) => {
    const { stmts } = await lift(hex);
    const set = stmts.find((s) => s.k === "set" && s.dst.k === "tmp");
    assert(set?.k === "set");
    return show(set.src);
  };
  // fnmsub d0, d1, d2, d3: d1 * d2 - d3, rounded once
  assertEquals(await op("208c621f"), "__fma(v1, v2, __fneg(v3):8):8");
  // fmsub s0, s1, s2, s3: s3 - s1 * s2
  assertEquals(
    await op("208c021f"),
    "__fma(__fneg(trunc4(v1)):4, trunc4(v2), trunc4(v3)):4",
  );
  // ucvtf d0, w1: an unsigned 32-bit value is a signed 64-bit one
  assertEquals(await op("2000631e"), "__itof(zext8(trunc4(x1))):8");
  // ucvtf d0, x1: C's conversion of a uint64_t
  assertEquals(await op("2000639e"), "__utof(x1):8");
  // fcvtzu x2, d13: to a uint64_t
  assertEquals(await op("a201799e"), "__ftou(v13):8");
  // fmin d0, d1, d2 and fmax s3, s4, s5: IEEE minimum/maximum (a NaN wins, -0.0 < +0.0), not
  // SSE's __fmin/__fmax; fminnm d6, d7, d8 and fmaxnm d9, d10, d11: minNum/maxNum (C's fmin)
  assertEquals(await op("2058621e"), "__fminimum(v1, v2):8");
  assertEquals(await op("8348251e"), "__fmaximum(trunc4(v4), trunc4(v5)):4");
  assertEquals(await op("e678681e"), "__fminnum(v7, v8):8");
  assertEquals(await op("49696b1e"), "__fmaxnum(v10, v11):8");
  // fcvtzu w0, d1
  assertEquals(await op("2000791e"), "trunc4(__ftoi(v1):8)");
  // fcvt s0, d1
  assertEquals(await op("2040621e"), "__fconv(v1):4");
  // fnmul d0, d1, d2: -(d1 * d2)
  assertEquals(await op("2088621e"), "__fneg(__fmul(v1, v2):8):8");
  // Fixed point. scvtf d0, w1, #2: (double)w1 / 4.0
  assertEquals(await op("20f8421e"), "__fdiv(__itof(trunc4(x1)):8, 0x4010000000000000):8");
  // fcvtzs w0, d1, #3: (int32_t)(d1 * 8.0)
  assertEquals(await op("20f4581e"), "__ftoi(__fmul(v1, 0x4020000000000000):8):4");
});

Deno.test("Aarch64Lifter calls, indirect jumps and address materialization", async () => {
  // adrp x0, 0x1000 (page of 0x1000 here); add x0, x0, #0x20; bl; blr x3; br x4
  const { stmts, control } = await lift("00000090008000918000009460003fd680001fd6");
  const s = stateOf({ x0: 0, x3: 0x3333, x4: 0x4444 });
  run(s, stmts);
  assertEquals(x(s, 0), 0x1020n);
  const calls = stmts.filter((st) => st.k === "call");
  assertEquals(calls.length, 2);
  assertEquals(control?.k, "jump");
  const setX0 = stmts.find((st) => st.k === "set" && st.dst.k === "reg" && st.dst.name === "x0");
  assertEquals(setX0?.k === "set" && setX0.src, { k: "const", value: 0x1000n, size: 8 });
});

Deno.test("Aarch64Lifter unknown instructions become __asm_ with explicit results", async () => {
  // ldxr x0, [x1]; sxtb w3, w1; uxth w4, w1; rev w5, w1; clz x6, x1
  const { stmts, lifted, count } = await lift("207c5fc8231c0013243c00532508c05a2610c0da");
  assertEquals(count, 5);
  assertEquals(lifted, 4);
  const asm = stmts.find((s) => s.k === "asm");
  assert(asm?.k === "asm" && asm.name === "__asm_ldxr" && asm.outs.length === 1);
  const s = stateOf({ x0: 5, x1: 0x1ff80, x3: 0, x4: 0, x5: 0, x6: 0 });
  run(s, stmts);
  assertEquals([x(s, 0), x(s, 3), x(s, 4)], [0n, 0xffffff80n, 0xff80n]);
});

Deno.test("fcmpFlags() accepts exactly the outcomes each condition names", () => {
  const bits = (f: number) => constant(new BigUint64Array(new Float64Array([f]).buffer)[0]!, 8);
  const num = (e: Expr) => new Float64Array(new BigUint64Array([(e as Const).value]).buffer)[0]!;
  // The x86-flag meanings the recompile header gives these intrinsics.
  const ev = (e: Expr): boolean => {
    if (e.k === "un") return !ev(e.a);
    if (e.k === "bin" && e.op === "land") return ev(e.a) && ev(e.b);
    if (e.k === "const") return e.value !== 0n;
    assert(e.k === "intr");
    const [a, b] = [num(e.args[0]!), num(e.args[1]!)];
    const names: Record<string, boolean> = {
      __flt: !(a >= b),
      __fle: !(a > b),
      __feq: !(a < b || a > b),
      __funordered: Number.isNaN(a) || Number.isNaN(b),
    };
    return names[e.name]!;
  };
  // NZCV per outcome: equal 0110, less 1000, greater 0010, unordered 0011.
  const outcomes: [number, number, number][] = [[1, 1, 0b0110], [1, 2, 0b1000], [2, 1, 0b0010], [
    NaN,
    1,
    0b0011,
  ]];
  for (
    const cc of ["eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le"]
  ) {
    for (const [a, b, nzcv] of outcomes) {
      const got = ev(fcmpFlags(bits(a), bits(b), 0).test(cc));
      assertEquals(got, holds(cc, nzcv), `fcmp ${a}, ${b}; ${cc}`);
    }
  }
});

Deno.test("Aarch64Lifter vector registers are two halves; scalar writes zero the upper one", async () => {
  // ldr q0, [x1]; fmov d1, x2; mov v2.16b, v0.16b
  const { s } = await exec("2000c03d4100679e021ca04e", { x1: 0x100, x2: 7, v1_hi: 9 }, (st) => {
    writeMem(st, 0x100, 8, 0x1111n);
    writeMem(st, 0x108, 8, 0x2222n);
  });
  const v = (n: string) => s.vars.get(n);
  assertEquals([v("v0"), v("v0_hi"), v("v1"), v("v1_hi")], [0x1111n, 0x2222n, 7n, 0n]);
  assertEquals([v("v2"), v("v2_hi")], [0x1111n, 0x2222n]);
});

Deno.test("Aarch64Lifter byte reversals and vector lanes in intrinsic names", async () => {
  // rev16 w0, w1; rev16 x2, x1; rev32 x3, x1; rev x4, x1; cnt v0.8b, v0.8b; addv b0, v0.8b;
  // movi v1.4s, #0x10, lsl #8
  const hex = "2004c05a2204c0da2308c0da240cc0da0058200e00b8310e0126004f";
  const { stmts, lifted, count } = await lift(hex);
  assertEquals(lifted, count);
  const s = stateOf({ x1: 0x1122334455667788n, v0: 0, v1: 0 });
  run(s, stmts);
  assertEquals(x(s, 0), 0x66558877n);
  assertEquals(x(s, 2), 0x2211443366558877n);
  const intrinsics = s.effects.map((e) => e.name);
  assertEquals(intrinsics, ["__bswap", "__bswap", "__cnt_8b", "__addv_8b", "__movi_4s"]);
  // movi's shifted immediate is one value.
  assertEquals(s.effects.at(-1)?.args, [0x1000n]);
});

Deno.test("Aarch64Lifter reads and writes single vector lanes", async () => {
  // mov w0, v1.s[1]; smov x2, v1.h[5]; mov v3.d[1], x4; mov v3.b[0], v1.b[9];
  // mov x5, v1.d[1]
  const { s } = await exec("203c0c0e222c164e831c184e234c016e253c184e", {
    v1: 0x8877665544332211n,
    v1_hi: 0xffeeddccbbaa9980n,
    v3: 0x1234n,
    v3_hi: 0,
    x4: 0xabcdn,
  });
  assertEquals(x(s, 0), 0x88776655n);
  assertEquals(x(s, 2), 0xffffffffffffbbaan);
  assertEquals([s.vars.get("v3"), s.vars.get("v3_hi")], [0x1299n, 0xabcdn]);
  assertEquals(x(s, 5), 0xffeeddccbbaa9980n);
  // fmov v3.d[1], x4; fmov x5, v1.d[1]
  const f = (await exec("8300af9e2500ae9e", { v1_hi: 0x42, v3: 1, v3_hi: 2, x4: 0x77 })).s;
  assertEquals([f.vars.get("v3"), f.vars.get("v3_hi"), x(f, 5)], [1n, 0x77n, 0x42n]);
});

Deno.test("Aarch64Lifter lane-wise vector arithmetic is one intrinsic per arrangement", async () => {
  // add v0.4s, v1.4s, v2.4s; mla v3.4s, v4.4s, v5.4s; fmul v6.2d, v7.2d, v8.d[1];
  // bic v9.4s, #0xff; eor v10.16b, v11.16b, v12.16b
  const { stmts, lifted, count } = await lift("2084a24e8394a54ee698c84fe917076f6a1d2c6e");
  assertEquals(lifted, count);
  const s = stateOf({
    v1: 0xffffffffn,
    v1_hi: 0,
    v2: 1,
    v2_hi: 0,
    v3: 7,
    v3_hi: 0,
    v4: 0,
    v4_hi: 0,
    v5: 0,
    v5_hi: 0,
    v7: 0,
    v7_hi: 0,
    v8: 1,
    v8_hi: 0x22,
    v9: 0x1ff,
    v9_hi: 0,
    v11: 0xf0n,
    v11_hi: 0x0fn,
    v12: 0xffn,
    v12_hi: 0xffn,
  });
  run(s, stmts);
  // No 128-bit addition carries lane 0's overflow into lane 1: the addition is __add_4s.
  const names = s.effects.map((e) => e.name);
  assertEquals(names, ["__add_4s", "__mla_4s", "__dup_2d", "__fmul_2d", "__bic_4s"]);
  assertEquals(s.effects[0]!.args, [0xffffffffn, 1n]);
  // mla and the immediate bic read their destination first.
  assertEquals(s.effects[1]!.args, [7n, 0n, 0n]);
  assertEquals(s.effects[4]!.args, [0x1ffn, 0xffn]);
  // The by-element operand is lane 1 of v8, broadcast.
  assertEquals(s.effects[2]!.args, [0x22n]);
  // Bitwise operations act on the whole register and stay plain.
  assertEquals([s.vars.get("v10"), s.vars.get("v10_hi")], [0x0fn, 0xf0n]);
});

Deno.test("Aarch64Lifter loads and stores vector lists, ld2/st2 as uzp/zip of whole vectors", async () => {
  // ld2 {v0.4s, v1.4s}, [x0]; st2 {v2.8b, v3.8b}, [x1], #16; ld1 {v4.16b, v5.16b}, [x2]
  const { stmts, lifted, count } = await lift("0088404c22809f0c44a0404c");
  assertEquals(lifted, count);
  const s = stateOf({ x0: 0x100, x1: 0x200, x2: 0x300, v2: 0x22, v3: 0x33 });
  for (let i = 0; i < 4; i++) writeMem(s, 0x300 + 8 * i, 8, BigInt(i + 1));
  run(s, stmts);
  assertEquals(s.effects.map((e) => e.name), ["__uzp1_4s", "__uzp2_4s", "__zip1_8b", "__zip2_8b"]);
  assertEquals(s.effects[2]!.args, [0x22n, 0x33n]);
  // Post-index writeback; ld1 fills consecutive registers.
  assertEquals(x(s, 1), 0x210n);
  assertEquals([s.vars.get("v4"), s.vars.get("v4_hi"), s.vars.get("v5")], [1n, 2n, 3n]);
});

Deno.test("Aarch64Lifter lifts ld3/st4 as one de-interleaving intrinsic per register", async () => {
  // ld3 {v0.4s, v1.4s, v2.4s}, [x0]; st4 {v4.16b, v5.16b, v6.16b, v7.16b}, [x1], #64
  const { stmts, lifted, count } = await lift("0048404c24009f4c");
  assertEquals(lifted, count);
  const s = stateOf({
    x0: 0x100,
    x1: 0x200,
    ...Object.fromEntries([4, 5, 6, 7].flatMap((i) => [[`v${i}`, i], [`v${i}_hi`, 0]])),
  });
  for (let i = 0; i < 6; i++) writeMem(s, 0x100 + 8 * i, 8, BigInt(i + 1));
  run(s, stmts);
  const names = s.effects.map((e) => e.name);
  assertEquals(names, [...Array(3).fill("__ld3_4s"), ...Array(4).fill("__st4_16b")]);
  // Register j of ld3 from the three 16-byte vectors at x0, x0+16, x0+32, in memory order.
  const m = (i: number) => BigInt(2 * i + 1) | BigInt(2 * i + 2) << 64n;
  s.effects.slice(0, 3).forEach((e, j) => assertEquals(e.args, [BigInt(j), m(0), m(1), m(2)]));
  // Vector j of st4 from the four registers, in register order; post-index writeback.
  s.effects.slice(3).forEach((e, j) => assertEquals(e.args, [BigInt(j), 4n, 5n, 6n, 7n]));
  assertEquals(x(s, 1), 0x240n);
});
