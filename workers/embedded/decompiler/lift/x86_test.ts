import { deepEqual as assertEquals, notDeepEqual as assertNotEquals } from "node:assert/strict";
import { createDecoder } from "../../arch/decoder.ts";
import type { Decoder } from "../../arch/types.ts";
import { bytes, liftAll } from "./_testing.ts";
import { X86Lifter } from "./x86.ts";
import type { Stmt } from "../ir.ts";
import { evaluate, readMem, run, type State, stateOf, writeMem } from "../interp.ts";

const decoders = new Map<number, Decoder>();
async function decoder(bits: 32 | 64): Promise<Decoder> {
  let d = decoders.get(bits);
  if (!d) {
    d = await createDecoder(bits === 64 ? "x86_64" : "x86");
    decoders.set(bits, d);
  }
  return d;
}

/** Lifts the instructions in `hex` (one lifter, flags carried); returns statements and the last control. */
async function lift(hex: string, bits: 32 | 64 = 64) {
  const d = await decoder(bits);
  const insns = d.decode(bytes(hex), 0x1000, { detail: true, text: true });
  const lifter = new X86Lifter(bits);
  return { ...liftAll(lifter, insns), lifter };
}

async function exec(hex: string, regs: Record<string, bigint | number>, bits: 32 | 64 = 64) {
  const { stmts, control } = await lift(hex, bits);
  const s = stateOf(regs);
  run(s, stmts);
  return { s, control };
}

const reg = (s: State, name: string) => s.vars.get(name);

Deno.test("X86Lifter moves, sub-registers and zero extension", async () => {
  const r = (await exec("89d8", { rax: 0xffffffffffffffffn, rbx: 0x1234567890n })).s; // mov eax, ebx
  assertEquals(reg(r, "rax"), 0x34567890n);
  const ah = (await exec("88dc", { rax: 0x1111n, rbx: 0xabn })).s; // mov ah, bl
  assertEquals(reg(ah, "rax"), 0xab11n);
  const al = (await exec("88f8", { rax: 0xffffn, rbx: 0xcd00n })).s; // mov al, bh
  assertEquals(reg(al, "rax"), 0xffcdn);
});

Deno.test("X86Lifter loads, stores, extension and lea", async () => {
  const { stmts } = await lift("0fb60437"); // movzx eax, byte [rdi+rsi]
  const s = stateOf({ rax: -1, rdi: 0x100, rsi: 3 });
  writeMem(s, 0x103, 1, 0xf0n);
  run(s, stmts);
  assertEquals(reg(s, "rax"), 0xf0n);
  const sx = stateOf({ rax: 0, rdi: 0x200 });
  writeMem(sx, 0x200, 2, 0x8001n);
  run(sx, (await lift("480fbf07")).stmts); // movsx rax, word [rdi]
  assertEquals(reg(sx, "rax"), 0xffffffffffff8001n);
  const lea = (await exec("488d44b710", { rax: 0, rdi: 0x1000, rsi: 3 })).s; // lea rax,[rdi+rsi*4+0x10]
  assertEquals(reg(lea, "rax"), 0x1000n + 12n + 16n);
  const st = (await exec("89442408", { rax: 0xdeadbeefn, rsp: 0x8000 })).s; // mov [rsp+8], eax
  assertEquals(readMem(st, 0x8008, 4), 0xdeadbeefn);
  const rmw = stateOf({ rdi: 0x300 });
  writeMem(rmw, 0x300, 4, 41n);
  run(rmw, (await lift("830701")).stmts); // add dword [rdi], 1
  assertEquals(readMem(rmw, 0x300, 4), 42n);
});

Deno.test("X86Lifter arithmetic, shifts and rotates", async () => {
  const cases: [string, Record<string, number | bigint>, string, bigint][] = [
    ["01d8", { rax: 0xffffffff, rbx: 2 }, "rax", 1n], // add eax, ebx
    ["4883e805", { rax: 3 }, "rax", 0xfffffffffffffffen], // sub rax, 5
    ["6bc307", { rax: 0, rbx: 6 }, "rax", 42n], // imul eax, ebx, 7
    ["480fafc3", { rax: -3, rbx: 5 }, "rax", BigInt.asUintN(64, -15n)], // imul rax, rbx
    ["c1e003", { rax: 5 }, "rax", 40n], // shl eax, 3
    ["d3f8", { rax: 0x80000000, rcx: 4 }, "rax", 0xf8000000n], // sar eax, cl
    ["48c1e83f", { rax: -1 }, "rax", 1n], // shr rax, 63
    ["c1c008", { rax: 0x12345678 }, "rax", 0x34567812n], // rol eax, 8
    ["c1c808", { rax: 0x12345678 }, "rax", 0x78123456n], // ror eax, 8
    ["f7d8", { rax: 1 }, "rax", 0xffffffffn], // neg eax
    ["48f7d0", { rax: 0 }, "rax", 0xffffffffffffffffn], // not rax
    ["ffc0", { rax: 0xffffffff }, "rax", 0n], // inc eax
    ["99", { rax: 0x80000000, rdx: 0 }, "rdx", 0xffffffffn], // cdq
    ["4899", { rax: 5, rdx: 9 }, "rdx", 0n], // cqo
    ["4898", { rax: 0xfffffffe }, "rax", 0xfffffffffffffffen], // cdqe
    ["0fc8", { rax: 0x11223344 }, "rax", 0n], // bswap: a typed intrinsic (0 in the interpreter)
    ["240f", { rax: 0x1ff }, "rax", 0x10fn], // and al, 0xf
  ];
  for (const [hex, regs, out, want] of cases) {
    const { s } = await exec(hex, regs);
    assertEquals(reg(s, out), want, hex);
  }
});

Deno.test("X86Lifter wide multiply and division", async () => {
  const mul = (await exec("48f7e3", { rax: 2n ** 63n, rbx: 4 })).s; // mul rbx
  assertEquals([reg(mul, "rax"), reg(mul, "rdx")], [0n, 2n]);
  const div = (await exec("f7f1", { rax: 100, rdx: 1, rcx: 7 })).s; // div ecx: (1<<32 | 100) / 7
  const n = (1n << 32n) | 100n;
  assertEquals([reg(div, "rax"), reg(div, "rdx")], [n / 7n, n % 7n]);
  const idiv = (await exec("99f7f9", { rax: BigInt.asUintN(32, -100n), rcx: 7 })).s; // cdq; idiv ecx
  assertEquals([reg(idiv, "rax"), reg(idiv, "rdx")], [
    BigInt.asUintN(32, -14n),
    BigInt.asUintN(32, -2n),
  ]);
});

Deno.test("X86Lifter push, pop, leave and xchg", async () => {
  const push = (await exec("53", { rbx: 77, rsp: 0x9000 })).s;
  assertEquals([reg(push, "rsp"), readMem(push, 0x8ff8, 8)], [0x8ff8n, 77n]);
  const pop = stateOf({ rbx: 0, rsp: 0x8ff8 });
  writeMem(pop, 0x8ff8, 8, 99n);
  run(pop, (await lift("5b")).stmts);
  assertEquals([reg(pop, "rbx"), reg(pop, "rsp")], [99n, 0x9000n]);
  const leave = stateOf({ rbp: 0x7000, rsp: 0x6000 });
  writeMem(leave, 0x7000, 8, 0x7777n);
  run(leave, (await lift("c9")).stmts);
  assertEquals([reg(leave, "rbp"), reg(leave, "rsp")], [0x7777n, 0x7008n]);
  const xchg = (await exec("93", { rax: 1, rbx: 2 })).s;
  assertEquals([reg(xchg, "rax"), reg(xchg, "rbx")], [2n, 1n]);
});

// Condition codes in setcc encoding order; parity is not a C comparison and is left out.
const CCS = ["o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "", "", "l", "ge", "le", "g"];

interface Flags {
  cf: boolean;
  zf: boolean;
  sf: boolean;
  of: boolean;
}

function holds(cc: string, f: Flags): boolean {
  switch (cc) {
    case "o":
      return f.of;
    case "no":
      return !f.of;
    case "b":
      return f.cf;
    case "ae":
      return !f.cf;
    case "e":
      return f.zf;
    case "ne":
      return !f.zf;
    case "be":
      return f.cf || f.zf;
    case "a":
      return !f.cf && !f.zf;
    case "s":
      return f.sf;
    case "ns":
      return !f.sf;
    case "l":
      return f.sf !== f.of;
    case "ge":
      return f.sf === f.of;
    case "le":
      return f.zf || f.sf !== f.of;
    default:
      return !f.zf && f.sf === f.of;
  }
}

const M = 0xffffffffn;
const sign = (v: bigint) => (v >> 31n) === 1n;

/** What the CPU computes for `op eax, ebx` (32-bit). */
function reference(op: string, a: bigint, b: bigint): Flags {
  let r: bigint;
  let cf = false;
  let of = false;
  switch (op) {
    case "sub":
      r = (a - b) & M;
      cf = a < b;
      of = sign(a) !== sign(b) && sign(r) !== sign(a);
      break;
    case "add":
      r = (a + b) & M;
      cf = a + b > M;
      of = sign(a) === sign(b) && sign(r) !== sign(a);
      break;
    case "and":
      r = a & b;
      break;
    case "inc":
      r = (a + 1n) & M;
      of = a === 0x7fffffffn;
      break;
    case "dec":
      r = (a - 1n) & M;
      of = a === 0x80000000n;
      break;
    default: // neg
      r = (-a) & M;
      cf = a !== 0n;
      of = a === 0x80000000n;
  }
  return { cf, zf: r === 0n, sf: sign(r), of };
}

const FLAG_OPS: [string, string, string][] = [
  ["cmp eax, ebx", "39d8", "sub"],
  ["sub eax, ebx", "29d8", "sub"],
  ["add eax, ebx", "01d8", "add"],
  ["test eax, ebx", "85d8", "and"],
  ["and eax, ebx", "21d8", "and"],
  ["inc eax", "ffc0", "inc"],
  ["dec eax", "ffc8", "dec"],
  ["neg eax", "f7d8", "neg"],
];
const VALUES = [0n, 1n, 2n, 0x7fffffffn, 0x80000000n, 0x80000001n, 0xfffffffen, 0xffffffffn, 1234n];

Deno.test("X86Lifter flags: every setcc after every flag-setting operation matches the CPU", async () => {
  for (const [text, hex, op] of FLAG_OPS) {
    for (let code = 0; code < 16; code++) {
      const cc = CCS[code]!;
      if (cc === "") continue;
      // inc/dec keep the carry of an earlier instruction, which this block does not have.
      if ((op === "inc" || op === "dec") && ["b", "ae", "be", "a"].includes(cc)) continue;
      const setcc = `0f${(0x90 + code).toString(16)}c1`; // setcc cl
      const { stmts } = await lift(hex + setcc);
      for (const a of VALUES) {
        for (const b of VALUES) {
          const s = stateOf({ rax: a, rbx: b, rcx: 0 });
          run(s, stmts);
          const want = holds(cc, reference(op, a, b)) ? 1n : 0n;
          assertEquals(reg(s, "rcx"), want, `${text}; set${cc} with eax=${a} ebx=${b}`);
        }
      }
    }
  }
});

/** The CPU's flags of `sbb a, b` / `adc a, b` with carry in `c` (32-bit). */
function withCarry(op: "sbb" | "adc", a: bigint, b: bigint, c: bigint): Flags {
  const r = (op === "sbb" ? a - b - c : a + b + c) & M;
  const cf = op === "sbb" ? a < b + c : a + b + c > M;
  const of = op === "sbb"
    ? sign(a) !== sign(b) && sign(r) !== sign(a)
    : sign(a) === sign(b) && sign(r) !== sign(a);
  return { cf, zf: r === 0n, sf: sign(r), of };
}

const WIDE_VALUES = [0n, 1n, 0x7fffffffn, 0x80000000n, 0xffffffffn, 5n];

Deno.test("X86Lifter flags of sbb and adc after cmp/add of low halves (64-bit compares on 32-bit code)", async () => {
  // cmp eax, ebx; sbb ecx, edx — and add eax, ebx; adc ecx, edx — then setcc bl.
  for (const [low, high, op] of [["39d8", "19d1", "sbb"], ["01d8", "11d1", "adc"]] as const) {
    for (let code = 0; code < 16; code++) {
      const cc = CCS[code]!;
      if (cc === "") continue;
      const { stmts } = await lift(`${low}${high}0f${(0x90 + code).toString(16)}c3`);
      for (const lo1 of WIDE_VALUES) {
        for (const lo2 of WIDE_VALUES) {
          const c = op === "sbb" ? BigInt(lo1 < lo2) : BigInt(lo1 + lo2 > M);
          for (const hi1 of WIDE_VALUES) {
            for (const hi2 of WIDE_VALUES) {
              const s = stateOf({ rax: lo1, rbx: lo2, rcx: hi1, rdx: hi2 });
              run(s, stmts);
              const want = holds(cc, withCarry(op, hi1, hi2, c)) ? 1n : 0n;
              const what = `${op}; set${cc} with ${hi1}:${lo1}, ${hi2}:${lo2}`;
              assertEquals((reg(s, "rbx") ?? 0n) & 0xffn, want, what);
            }
          }
        }
      }
    }
  }
  // Without a known low half: sbb after test (CF = 0), and sbb of a register with itself.
  for (let code = 0; code < 16; code++) {
    const cc = CCS[code]!;
    if (cc === "") continue;
    const set = `0f${(0x90 + code).toString(16)}c3`;
    const after = (await lift(`85c019d1${set}`)).stmts; // test eax, eax; sbb ecx, edx
    const self = (await lift(`39d819c9${set}`)).stmts; // cmp eax, ebx; sbb ecx, ecx
    for (const a of WIDE_VALUES) {
      for (const b of WIDE_VALUES) {
        const s = stateOf({ rax: a, rbx: 0, rcx: a, rdx: b });
        run(s, after);
        assertEquals(
          (reg(s, "rbx") ?? 0n) & 0xffn,
          holds(cc, withCarry("sbb", a, b, 0n)) ? 1n : 0n,
        );
        const t = stateOf({ rax: a, rbx: b, rcx: 7 });
        run(t, self);
        const c = BigInt(a < b);
        const want = holds(cc, withCarry("sbb", 7n, 7n, c)) ? 1n : 0n;
        assertEquals(
          (reg(t, "rbx") ?? 0n) & 0xffn,
          want,
          `sbb ecx, ecx; set${cc} after ${a} < ${b}`,
        );
      }
    }
  }
});

Deno.test("X86Lifter cmp lo; sbb hi; jl is one signed compare of the 64-bit values", async () => {
  const { control } = await lift("39d819d17c00", 32); // cmp eax, ebx; sbb ecx, edx; jl
  const cond = control?.k === "cjump" ? control.cond : undefined;
  assertEquals(cond?.k === "bin" ? [cond.op, cond.a.size, cond.b.size] : undefined, ["slt", 8, 8]);
  const jb = await lift("39d819d17200", 32); // cmp eax, ebx; sbb ecx, edx; jb
  const below = jb.control?.k === "cjump" ? jb.control.cond : undefined;
  assertEquals(below?.k === "bin" ? [below.op, below.a.size] : undefined, ["ult", 8]);
});

Deno.test("X86Lifter conditions read as comparisons: cmp+jl is a < b, test+je is x == 0", async () => {
  const jl = await lift("39d87c00"); // cmp eax, ebx; jl
  const cond = jl.control?.k === "cjump" ? jl.control.cond : undefined;
  assertEquals(cond?.k === "bin" ? cond.op : undefined, "slt");
  const je = await lift("4885c07400"); // test rax, rax; je
  const eq = je.control?.k === "cjump" ? je.control.cond : undefined;
  assertEquals(eq?.k === "bin" ? [eq.op, eq.b.k] : undefined, ["eq", "const"]);
});

Deno.test("X86Lifter cmov, sbb and adc use the carry", async () => {
  const cmov = (await exec("39d80f4cc3", { rax: 1, rbx: 5 })).s; // cmp; cmovl eax, ebx
  assertEquals(reg(cmov, "rax"), 5n);
  const sbb = (await exec("39d819c0", { rax: 1, rbx: 5 })).s; // cmp; sbb eax, eax
  assertEquals(reg(sbb, "rax"), 0xffffffffn);
  const adc = (await exec("39d811d8", { rax: 1, rbx: 5 })).s; // cmp (CF=1); adc eax, ebx
  assertEquals(reg(adc, "rax"), 7n);
});

Deno.test("X86Lifter keeps what it does not model as __asm_ / intrinsic statements", async () => {
  const cpuid = await lift("0fa2");
  assertEquals(cpuid.lifted, 1); // cpuid is a known intrinsic with explicit effects
  const stmt = cpuid.stmts[0];
  assertEquals(stmt?.k === "asm" ? [stmt.name, stmt.outs.length] : undefined, ["__cpuid", 4]);
  const scas = await lift("f2ae"); // repne scasb stops on a comparison: not modelled
  assertEquals(scas.lifted, 0);
  const s = stateOf({ rdi: 1, rsi: 2, rcx: 3, rax: 4 });
  run(s, scas.stmts);
  assertEquals(s.effects[0]?.name, "__asm_repne_scasb");
  const sse = await lift("f20f58c1f20f2ac0660fefc0"); // addsd; cvtsi2sd; pxor
  assertEquals(sse.lifted, 3);
  const fcmp = await lift("660f2ec17700"); // ucomisd xmm0, xmm1; ja
  const c = fcmp.control?.k === "cjump" ? fcmp.control.cond : undefined;
  assertNotEquals(c, undefined);
  const garbage = await lift("0f0b"); // ud2
  assertEquals(garbage.control?.k, "stop");
});

Deno.test("X86Lifter string instructions and bit operations", async () => {
  const rep = await lift("f348ab"); // rep stosq: the block store, pointers advanced, count 0
  assertEquals(rep.lifted, 1);
  const s = stateOf({ rdi: 0x100, rcx: 3, rax: 4 });
  run(s, rep.stmts);
  assertEquals([s.effects[0]?.name, reg(s, "rdi"), reg(s, "rcx")], ["__rep_stosq", 0x118n, 0n]);
  const stos = stateOf({ rdi: 0x200, rax: 0x41 });
  run(stos, (await lift("aa")).stmts); // stosb
  assertEquals([readMem(stos, 0x200, 1), reg(stos, "rdi")], [0x41n, 0x201n]);
  const movs = stateOf({ rdi: 0x300, rsi: 0x400 });
  writeMem(movs, 0x400, 4, 0xcafen);
  run(movs, (await lift("a5")).stmts); // movsd
  assertEquals([readMem(movs, 0x300, 4), reg(movs, "rsi")], [0xcafen, 0x404n]);
  const bts = (await exec("0fbae803", { rax: 0 })).s;
  assertEquals(reg(bts, "rax"), 8n);
  const btr = (await exec("0fb3c8", { rax: 0xff, rcx: 35 })).s; // btr eax, ecx (35 & 31 = 3)
  assertEquals(reg(btr, "rax"), 0xf7n);
  const btc = await lift("480fbaf83f720000"); // btc rax, 63; jc
  const st = stateOf({ rax: 1n << 63n });
  run(st, btc.stmts);
  const cond = btc.control?.k === "cjump" ? btc.control.cond : undefined;
  assertEquals([reg(st, "rax"), cond ? evaluate(st, cond) : undefined], [0n, 1n]);
});

Deno.test("X86Lifter calls, returns and 32-bit mode", async () => {
  const call = await lift("e800000000");
  assertEquals(call.control?.k, "call");
  const { s } = await exec("89d8", { eax: 0, ebx: 0x12345678 }, 32);
  assertEquals(reg(s, "eax"), 0x12345678n);
  const push = await exec("53", { ebx: 5, esp: 0x100 }, 32);
  assertEquals(reg(push.s, "esp"), 0xfcn);
  const jl = await lift("39d87c00", 32);
  const e = jl.control?.k === "cjump" ? jl.control.cond : undefined;
  const st = stateOf({ eax: 1, ebx: 2 });
  run(st, jl.stmts);
  assertEquals(e ? evaluate(st, e) : undefined, 1n);
});

Deno.test("X86Lifter reads 64-bit immediates exactly (past what a JS number holds)", async () => {
  const code = bytes("48b8cff753e3a59bc420"); // movabs rax, 0x20c49ba5e353f7cf
  const d = await decoder(64);
  const [insn] = d.decode(code, 0x1000, { detail: true, text: true });
  const lifter = new X86Lifter(64, (a, n) => code.subarray(a - 0x1000, a - 0x1000 + n));
  const s = stateOf({ rax: 0 });
  run(s, lifter.lift(insn!).stmts);
  assertEquals(reg(s, "rax"), 0x20c49ba5e353f7cfn);
});

Deno.test("X86Lifter: movsd with xmm operands is SSE, not the string instruction", async () => {
  // movsd xmm0, [rdi]; movsd [rsi], xmm0
  const { stmts, lifted, count } = await lift("f20f1007f20f1106");
  assertEquals(lifted, count);
  const s = stateOf({ rdi: 0x100, rsi: 0x200, xmm0_hi: 7 });
  writeMem(s, 0x100, 8, 0x400921fb54442d18n);
  run(s, stmts);
  assertEquals(reg(s, "xmm0"), 0x400921fb54442d18n);
  assertEquals(reg(s, "xmm0_hi"), 0n); // a load clears the upper half
  assertEquals(readMem(s, 0x200, 8), 0x400921fb54442d18n);
  assertEquals(reg(s, "rdi"), 0x100n); // no string-instruction pointer steps
});

Deno.test("X86Lifter: scalar double arithmetic is typed float operations on the low half", async () => {
  // addsd xmm0, xmm1; cvttsd2si eax, xmm0; cvtsi2sd xmm2, rdi; sqrtsd xmm3, xmm2
  const { stmts, lifted, count } = await lift("f20f58c1f20f2cc0f2480f2ad7f20f51da");
  assertEquals(lifted, count);
  const intrs = stmts.flatMap((s) => s.k === "set" && s.src.k === "intr" ? [s.src] : []);
  assertEquals(intrs.map((i) => [i.name, i.size, i.args.map((a) => a.size)]), [
    ["__fadd", 8, [8, 8]],
    ["__ftoi", 4, [8]],
    ["__itof", 8, [8]],
    ["__fsqrt", 8, [8]],
  ]);
  // The upper half of xmm0 is not touched by a scalar operation.
  assertEquals(
    stmts.some((s) => s.k === "set" && s.dst.k === "reg" && s.dst.name === "xmm0_hi"),
    false,
  );
});

Deno.test("X86Lifter: ucomisd flags give ordered compares; zeroing and sign-mask idioms", async () => {
  const r = await lift("660f2ec1"); // ucomisd xmm0, xmm1
  const ja = r.lifter.cond("a");
  assertEquals(ja.k, "un");
  const jb = r.lifter.cond("b");
  assertEquals(jb.k === "intr" && jb.name, "__flt");
  // pxor xmm0, xmm0; xorps xmm1, xmm1: both halves zero
  const z = (await exec("660fefc00f57c9", { xmm0: 5, xmm0_hi: 6, xmm1: 7, xmm1_hi: 8 })).s;
  assertEquals([reg(z, "xmm0"), reg(z, "xmm0_hi"), reg(z, "xmm1"), reg(z, "xmm1_hi")], [
    0n,
    0n,
    0n,
    0n,
  ]);
  // movapd xmm1, xmm0 copies both halves
  const m = (await exec("660f28c8", { xmm0: 5, xmm0_hi: 6, xmm1: 7, xmm1_hi: 8 })).s;
  assertEquals([reg(m, "xmm1"), reg(m, "xmm1_hi")], [5n, 6n]);
  // andpd xmm0, [rip+mask] with the fabs mask becomes __fabs.
  const d = await decoder(64);
  const insns = d.decode(bytes("660f5405f80f0000"), 0x1000, { detail: true, text: true });
  const mask = new Uint8Array(16);
  mask.fill(0xff);
  mask[7] = 0x7f;
  mask[15] = 0x7f;
  const lifter = new X86Lifter(64, () => mask.slice(0, 8));
  const out = lifter.lift(insns[0]!).stmts;
  assertEquals(
    out.some((s) => s.k === "set" && s.src.k === "intr" && s.src.name === "__fabs"),
    true,
  );
});

Deno.test("X86Lifter: the x87 stack as registers at a known depth", async () => {
  // fld qword [rdi]; fild dword [rsi]; fmulp st(1), st(0); fld1; fxch st(1); fucomip st(0), st(1); fstp st(0); ret
  const { stmts, lifted, count, lifter } = await lift("dd07db06dec9d9e8d9c9dfe9ddd8c3", 32);
  assertEquals(lifted, count);
  assertEquals(lifter.x87, 0);
  const names = stmts.flatMap((s) => s.k === "set" && s.src.k === "intr" ? [s.src.name] : []);
  assertEquals(names, ["__fconv", "__itof", "__fmul"]);
  const dsts = stmts.flatMap((s) => s.k === "set" && s.dst.k === "reg" ? [s.dst.name] : []);
  // fld → fp0, fild → fp1, fmulp writes st(1) = fp0, fld1 → fp1, fxch swaps fp1 and fp0
  assertEquals(dsts, ["fp0", "fp1", "fp0", "fp1", "fp1", "fp0", "fp0"]);
  const jb = lifter.cond("b");
  assertEquals(jb.k === "intr" && jb.name, "__flt");
});

Deno.test("X86Lifter: fistp under a loaded control word truncates (a C cast), else rounds", async () => {
  const convs = (stmts: Stmt[]) =>
    stmts.flatMap((s) =>
      s.k === "set" && s.src.k === "intr" && s.src.name.startsWith("__fto") ? [s.src.name] : []
    );
  // fld qword [esp+0x10]; fnstcw [esp+0xe]; fldcw [esp+0xc]; fistp dword [esp+8];
  // fldcw [esp+0xe]; fld qword [esp+0x10]; fistp dword [esp+4]
  const dance = await lift("dd442410d97c240ed96c240cdb5c2408d96c240edd442410db5c2404", 32);
  assertEquals(convs(dance.stmts), ["__ftoi", "__ftoi_rint"]);
  // fld qword [esp+0x10]; fistp dword [esp+8]: lrint's rounding in the current mode
  assertEquals(convs((await lift("dd442410db5c2408", 32)).stmts), ["__ftoi_rint"]);
});

Deno.test("X86Lifter: fcmov selects st(i) into st(0) under fcomi's condition", async () => {
  // fld qword [esp+4]; fld qword [esp+0xc]; fcomi st(0), st(1); fcmovbe st(0), st(1); fstp st(1)
  const { stmts, lifted, count, lifter } = await lift("dd442404dd44240cdbf1dad1ddd9", 32);
  assertEquals(lifted, count);
  assertEquals(lifter.x87, 1);
  const sel = stmts.find((s) => s.k === "set" && s.src.k === "select");
  assertEquals(sel?.k === "set" && sel.src.k === "select" && sel.src.size, 10);
  // st(0) is fp1 at depth 2; it gets the selected value.
  const into = stmts.find((s) => s.k === "set" && sel?.k === "set" && s.src === sel.dst);
  assertEquals(into?.k === "set" && into.dst.k === "reg" && into.dst.name, "fp1");
});

Deno.test("X86Lifter double-precision shifts", async () => {
  // shld rax, rdx, 8; shrd eax, edx, cl
  const a = (await exec("480fa4d008", { rax: 0x0123456789abcdefn, rdx: 0xff00000000000000n })).s;
  assertEquals(reg(a, "rax"), 0x23456789abcdefffn);
  const b = (await exec("0fadd0", { rax: 0x12345678n, rdx: 0xabn, rcx: 4 })).s;
  assertEquals(reg(b, "rax"), 0xb1234567n);
  const z = (await exec("0fadd0", { rax: 0x12345678n, rdx: 0xabn, rcx: 0 })).s;
  assertEquals(reg(z, "rax"), 0x12345678n);
});
