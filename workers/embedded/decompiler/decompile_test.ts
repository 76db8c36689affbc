import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { createDecoder } from "../arch/decoder.ts";
import type { FunctionInfo } from "../analysis/types.ts";
import { caseIndex, decompile } from "./decompile.ts";
import { render } from "./render.ts";
import { parsePrototype } from "./abi/prototype.ts";
import type { Expr } from "./ir.ts";

const bytes = (hex: string) => Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));

// int f(int a, int b) { return a < b ? b - a : a * 3; }  (gcc -O1, hand-checked)
//   cmp edi, esi; jge L; mov eax, esi; sub eax, edi; ret; L: lea eax, [rdi+rdi*2]; ret
const CODE = "39f77d0589f029f8c38d047fc3";

async function input(now?: () => number) {
  const d = await createDecoder("x86_64");
  const insns = d.decode(bytes(CODE), 0x1000, { detail: true, text: true });
  const fn: FunctionInfo = {
    start: 0x1000,
    end: 0x100d,
    name: "f",
    source: "symbol",
    flags: [],
    blocks: [{ start: 0x1000, end: 0x1004 }, { start: 0x1004, end: 0x1009 }, {
      start: 0x1009,
      end: 0x100d,
    }],
    chunks: [],
    edges: [
      { from: 0x1000, to: 0x1004, kind: "false" },
      { from: 0x1000, to: 0x1009, kind: "true" },
    ],
  };
  return {
    fn,
    insns,
    bits: 64 as const,
    format: "elf",
    isNoReturn: () => false,
    isString: () => false,
    budgetMs: 500,
    ...(now ? { now } : {}),
  };
}

const names = { functionAt: () => undefined, dataAt: () => undefined, stringAt: () => undefined };

Deno.test("decompile() prints a comparison, both branches and a line map", async () => {
  const d = decompile(await input());
  const r = render(d, "f", names);
  assert.match(r.code, /^uint32_t f\(int32_t arg1, int32_t arg2\)/);
  assert.match(
    r.code,
    /if \(arg2 <= arg1\) \{\n\s+return arg1 \+ arg1 \* 2;\n\s+\}\n\s+return arg2 - arg1;/,
  );
  const lines = r.code.split("\n");
  const ret = lines.findIndex((l) => l.includes("arg2 - arg1"));
  assert.ok(r.lines.some((l) => l.line === ret + 1 && l.addresses.includes(0x1008)));
});

Deno.test("decompile() stops with Timeout naming the stage when the budget runs out", async () => {
  let t = 0;
  const slow = await input(() => (t += 1000));
  assert.throws(() => decompile(slow), (e: unknown) => {
    assert.ok(e instanceof RemcpError);
    assert.equal(e.code, "Timeout");
    assert.match(e.message, /budget \(stopped after lift\).*disassemble_function/);
    return true;
  });
});

/** A one-block function of `hex` at 0x1000. */
async function straight(hex: string, bits: 32 | 64 = 64, arch?: "aarch64") {
  const d = await createDecoder(arch ?? (bits === 64 ? "x86_64" : "x86"));
  const insns = d.decode(bytes(hex), 0x1000, { detail: true, text: true });
  const end = 0x1000 + bytes(hex).length;
  const fn: FunctionInfo = {
    start: 0x1000,
    end,
    name: "f",
    source: "symbol",
    flags: [],
    blocks: [{ start: 0x1000, end }],
    chunks: [],
    edges: [],
  };
  return {
    fn,
    insns,
    bits,
    ...(arch ? { arch } : {}),
    format: "elf",
    isNoReturn: () => false,
    isString: () => false,
    budgetMs: 2000,
  };
}

Deno.test("decompile() types SSE arguments and returns as double and float", async () => {
  // double f(double *p, double x, double y) { return *p * x - y; }
  //   mulsd xmm0, [rdi]; subsd xmm0, xmm1; ret
  const d = render(decompile(await straight("f20f5907f20f5cc1c3")), "f", names);
  assert.match(d.code, /^double f\(uint8_t \* arg1, double arg2, double arg3\)/);
  assert.match(d.code, /return arg2 \* \*\(double \*\)arg1 - arg3;/);
  // float g(float a, int32_t n) { return a + (float)n; }: cvtsi2ss xmm1, edi; addss xmm0, xmm1
  const g = render(decompile(await straight("f30f2acff30f58c1c3")), "g", names);
  assert.match(g.code, /^float g\(int32_t arg1, float arg2\)/);
  assert.match(g.code, /return arg2 \+ \(float\)arg1;/);
});

Deno.test("decompile() types AArch64 v-register arguments and returns as double and float", async () => {
  // The words below are little-endian, from aarch64-linux-gnu-gcc -O2.
  // double f(double a, double b) { return a * b + 1.0; }: fmov d2, #1.0; fmadd d0, d0, d1, d2
  const f = render(
    decompile(await straight("02106e1e0008411fc0035fd6", 64, "aarch64")),
    "f",
    names,
  );
  assert.match(f.code, /^double f\(double arg1, double arg2\)/);
  assert.match(f.code, /return fma\(arg1, arg2, 1\.0\);/);
  // float g(float a, int n) { return a + (float)n; }: scvtf s1, w0; fadd s0, s1, s0
  const g = render(
    decompile(await straight("0100221e2028201ec0035fd6", 64, "aarch64")),
    "g",
    names,
  );
  assert.match(g.code, /^float g\(int32_t arg1, float arg2\)/);
  assert.match(g.code, /return \(float\)arg1 \+ arg2;/);
  // int h(double a) { return (int)a; }: fcvtzs w0, d0
  const h = render(decompile(await straight("0000781ec0035fd6", 64, "aarch64")), "h", names);
  assert.match(h.code, /^u?int32_t h\(double arg1\)/);
  assert.match(h.code, /return \(int32_t\)arg1;/);
});

Deno.test("decompile() passes AAPCS64's hidden result address (x8) and stack arguments", async () => {
  // From aarch64-linux-gnu-as. void mk(...) returning a large struct: stp x0, x1, [x8]; ret
  const mk = render(decompile(await straight("000500a9c0035fd6", 64, "aarch64")), "mk", names);
  assert.match(mk.code, /^void mk\(uint8_t \* result, uint64_t arg1, uint64_t arg2\)/);
  assert.match(mk.code, /\*\(uint64_t \*\)result = arg1;/);
  // sub sp, sp, #0x40; stp x29, x30, [sp, #0x30]; add x8, sp, #0x10; mov x0, #5; mov x1, #6;
  // bl mk; ldr x0, [sp, #0x10]; mov x1..x7, #1..#7; mov x9, #9; mov x10, #10;
  // stp x9, x10, [sp]; bl ten (ten arguments); ldp x29, x30, [sp, #0x30]; add sp, sp, #0x40; ret
  const hex = "ff0301d1fd7b03a9e8430091a00080d2c10080d200040094e00b40f9210080d2420080d2" +
    "630080d2840080d2a50080d2c60080d2e70080d2290180d24a0180d2e92b00a900080094fd7b43a9" +
    "ff030191c0035fd6";
  const summaries = new Map([
    [0x2014, { params: 2, returns: false, indirectResult: true }],
    [0x3044, { params: 10, returns: true }],
  ]);
  const caller = render(
    decompile({ ...await straight(hex, 64, "aarch64"), summaryAt: (a) => summaries.get(a) }),
    "g",
    names,
  );
  // The struct's address goes first; the ninth and tenth arguments are the stores at [sp].
  assert.match(caller.code, /0x2014\)\(local_30, 5, 6\);/);
  assert.match(caller.code, /0x3044\)\([^;]*local_30, 1, 2, 3, 4, 5, 6, 7, 9, 0xa\);/);
});

Deno.test("decompile() passes a double on the x86-32 stack as one argument", async () => {
  // sub esp, 0x1c; fld qword [esp+0x20]; fstp qword [esp]; mov dword [esp+8], 3; call f;
  // add esp, 0x1c; ret — f(double, int): the double fills two 4-byte slots.
  const hex = "83ec1cdd442420dd1c24c744240803000000e8fb0f000083c41cc3";
  const g = render(
    decompile({
      ...await straight(hex, 32),
      summaryAt: (a) => a === 0x2012 ? { params: 2, returns: false } : undefined,
    }),
    "g",
    names,
  );
  assert.match(g.code, /0x2012\)\((\(double\)\(long double\))?arg1, 3\);/);
  assert.match(g.code, /^void g\(double arg1\)/);
});

Deno.test("decompile() returns a long long in edx:eax on x86-32, and reads a callee's", async () => {
  // long long add64(long long a, long long b) { return a + b; }  (gcc -m32 -O2)
  //   mov eax, [esp+0xc]; mov edx, [esp+0x10]; add eax, [esp+4]; adc edx, [esp+8]; ret
  const add = render(
    decompile(await straight("8b44240c8b54241003442404135424" + "08c3", 32)),
    "f",
    names,
  );
  assert.match(
    add.code,
    /^uint64_t f\(uint32_t arg1, uint32_t arg2, uint32_t arg3, uint32_t arg4\)/,
  );
  // The high half adds the low half's carry.
  assert.match(
    add.code,
    /v2 = v1 \+ arg1;\n\s+return \(uint64_t\)\(arg4 \+ arg2 \+ \(uint32_t\)\(v2 < v1\)\) << 0x20 \| \(uint64_t\)v2;/,
  );
  // A scratch value left in edx is no high half: mov edx, [esp+4]; mov eax, [esp+8];
  // add eax, edx; ret
  const int = render(decompile(await straight("8b5424048b44240801d0c3", 32)), "g", names);
  assert.match(int.code, /^uint32_t g\(uint32_t arg1, uint32_t arg2\)/);
  // long long inc_g(void) { return g() + 1; }: sub esp, 0xc; call g; add eax, 1; adc edx, 0;
  // add esp, 0xc; ret — with g known to return a long long, the pair it returns is one value.
  const caller = render(
    decompile({
      ...await straight("83ec0ce8f80f000083c00183d20083c40cc3", 32),
      summaryAt: (a) => a === 0x2000 ? { params: 0, returns: true, wideReturn: true } : undefined,
    }),
    "h",
    names,
  );
  assert.match(caller.code, /^uint64_t h\(void\)/);
  assert.match(caller.code, /uint64_t v1;\n[^]*\n\s+v1 = \(\(uint64_t \(\*\)\(\)\)0x2000\)\(\);/);
  assert.match(caller.code, /return \(uint64_t\)\(\(uint32_t\)\(v1 >> 0x20\) \+ .*\) << 0x20 \| /);
});

Deno.test("decompile() returns a negated long long (neg; adc; neg) in edx:eax", async () => {
  // long long neg_if(long long x, bool neg) { return neg ? -x : x; }  (gcc -m32 -O2)
  //   cmp byte [esp+0xc], 0; mov eax, [esp+4]; mov edx, [esp+8]; je L
  //   neg eax; adc edx, 0; neg edx
  //   L: ret
  const hex = "807c240c008b4424048b54240874" + "07f7d883d200f7dac3";
  const d = await createDecoder("x86");
  const insns = d.decode(bytes(hex), 0x1000, { detail: true, text: true });
  const fn: FunctionInfo = {
    start: 0x1000,
    end: 0x1017,
    name: "neg_if",
    source: "symbol",
    flags: [],
    blocks: [{ start: 0x1000, end: 0x100f }, { start: 0x100f, end: 0x1016 }, {
      start: 0x1016,
      end: 0x1017,
    }],
    chunks: [],
    edges: [
      { from: 0x1000, to: 0x1016, kind: "true" },
      { from: 0x1000, to: 0x100f, kind: "false" },
      { from: 0x100f, to: 0x1016, kind: "fall" },
    ],
  };
  const code = render(
    decompile({
      fn,
      insns,
      bits: 32,
      format: "elf",
      isNoReturn: () => false,
      isString: () => false,
      budgetMs: 2000,
    }),
    "neg_if",
    names,
  ).code;
  assert.match(code, /^uint64_t neg_if\(/);
  assert.match(code, /<< 0x20 \|/);
});

Deno.test("decompile() gives a shifted constant its width (C would shift an int)", async () => {
  // mov x8, #1; lsl x0, x8, x0; ret
  const f = render(
    decompile(await straight("280080d20021c09ac0035fd6", 64, "aarch64")),
    "f",
    names,
  );
  assert.match(f.code, /return \(uint64_t\)1 << \(arg1 & 0x3f\);/);
});

Deno.test("decompile() returns an x87 result in st0 on x86-32 as long double", async () => {
  // long double h(double *p) { return *p * 2; }: mov eax, [esp+4]; fld qword [eax];
  //   fadd st(0), st(0); ret
  const d = render(decompile(await straight("8b442404dd00d8c0c3", 32)), "h", names);
  assert.match(d.code, /^long double h\(/);
  assert.match(d.code, /v1 = \(long double\)\*\(double \*\)arg1;\n\s+return v1 \+ v1;/);
});

Deno.test("decompile() writes a 10-byte x87 value as long double, never uint80_t", async () => {
  // mov eax, [esp+0xc]; fld qword [esp+4]; fldz; fcomi st(0), st(1); fcmovbe st(0), st(1);
  //   fld st(0); fstp tbyte [eax]; fstp tbyte [eax+0x10]; fstp st(0); ret
  const hex = "8b44240cdd442404d9eedbf1dad1d9c0db38db7810ddd8c3";
  const d = render(decompile(await straight(hex, 32)), "f", names);
  assert.doesNotMatch(d.code, /uint80_t/);
  assert.match(d.code, /\*\(long double \*\)\(v1 \+ 0x10\) = /);
});

Deno.test("decompile() joins a call's x87 result with a value pushed on the other path", async () => {
  // fld qword [esp+4]; fldz; fucomip st(0), st(1); fstp st(0); jae L; call 0x2000; jmp E;
  //   L: fldz; E: fadd st(0), st(0); ret — `(0 >= x ? 0.0 : g()) * 2`
  const hex = "dd442404d9eedfe9ddd87307e8ef0f0000eb02d9eed8c0c3";
  const d = await createDecoder("x86");
  const fn: FunctionInfo = {
    start: 0x1000,
    end: 0x1018,
    name: "f",
    source: "symbol",
    flags: [],
    blocks: [
      { start: 0x1000, end: 0x100c },
      { start: 0x100c, end: 0x1013 },
      { start: 0x1013, end: 0x1015 },
      { start: 0x1015, end: 0x1018 },
    ],
    chunks: [],
    edges: [
      { from: 0x1000, to: 0x100c, kind: "false" },
      { from: 0x1000, to: 0x1013, kind: "true" },
      { from: 0x100c, to: 0x1015, kind: "jump" },
      { from: 0x1013, to: 0x1015, kind: "fall" },
    ],
  };
  const insns = d.decode(bytes(hex), 0x1000, { detail: true, text: true });
  const base = await straight(hex, 32);
  const r = render(decompile({ ...base, fn, insns }), "f", names);
  // The pushed 0.0 reaches the addition, not the x87 register's value on entry.
  assert.doesNotMatch(r.code, /in_st0/);
  assert.match(r.code, /v1 = 0\.0L;/);
  assert.match(r.code, /v1 = \(\(\w+ \(\*\)\(\)\)0x2000\)\(\);/);
});

const SQRT = parsePrototype("double sqrt(double x)");
const withSqrt = (a: number) => a === 0x2000 ? SQRT : undefined;

Deno.test("decompile() passes a prototype's double as a cdecl stack argument", async () => {
  // sub esp, 0x1c; fld qword [esp+0x20]; fstp qword [esp]; call sqrt; add esp, 0x1c; ret
  const hex = "83ec1cdd442420dd1c24e8f10f000083c41cc3";
  const r = render(decompile({ ...await straight(hex, 32), prototypeAt: withSqrt }), "f", names);
  assert.match(r.code, /0x2000\)\(\(double\)\(long double\)arg1\);/);
});

Deno.test("decompile() gives a cdecl tail call the arguments stored in the incoming slots", async () => {
  // fld qword [esp+4]; fadd st(0), st(0); fstp qword [esp+4]; jmp sqrt
  const hex = "dd442404d8c0dd5c2404e9f10f0000";
  const r = render(decompile({ ...await straight(hex, 32), prototypeAt: withSqrt }), "f", names);
  assert.match(r.code, /0x2000\)\(\(double\)\(v1 \+ v1\)\);/);
  assert.doesNotMatch(r.code, /arg1 = /);
  // jmp sqrt alone passes its own argument on, unchanged
  const same = render(
    decompile({ ...await straight("e9fb0f0000", 32), prototypeAt: withSqrt }),
    "f",
    names,
  );
  assert.match(same.code, /0x2000\)\(arg1\);/);
});

Deno.test("decompile() for a signature only gives the same parameters and return value", async () => {
  const full = decompile(await input());
  const sig = decompile({ ...(await input()), signatureOnly: true });
  assert.deepEqual(sig.params, full.params);
  assert.equal(sig.returns, full.returns);
  assert.equal(sig.floatReturn, full.floatReturn);
  assert.deepEqual(sig.tree, { kind: "seq", items: [] });
  assert.ok(full.tree.kind !== "seq" || full.tree.items.length > 0);
});

Deno.test("decompile() as the simplified tier says so on the first line and keeps the map", async () => {
  const d = decompile({ ...(await input()), simplified: "a test asked for it" });
  assert.match(d.degraded ?? "", /^a test asked for it/);
  const r = render(d, "f", names);
  const lines = r.code.split("\n");
  assert.match(lines[0]!, /^\/\* remcp: simplified output: a test asked for it.*\*\/$/);
  assert.match(lines[1]!, /^uint32_t f\(/);
  // The map follows the shifted lines: the subtraction is still where the map says.
  const sub = lines.findIndex((l) => l.includes("arg2 - arg1"));
  assert.ok(sub > 1);
  assert.ok(r.lines.some((l) => l.line === sub + 1 && l.addresses.includes(0x1008)));
});

Deno.test("decompile() goes on as the simplified tier when the full share of the budget is used", async () => {
  // A clock that jumps past the full share at the first stage, and stays short of the budget.
  let t = 0;
  const d = decompile({ ...(await input(() => (t += 1))), budgetMs: 1_000_000, fullShare: 1e-9 });
  assert.match(
    d.degraded ?? "",
    /^the full analysis ran past its 0 s budget \(in lifting\)/,
  );
  const r = render(d, "f", names);
  assert.match(r.code, /^\/\* remcp: simplified output: the full analysis ran past/);
  assert.match(r.code, /return/);
  // Without a share, the same clock keeps the full pipeline.
  t = 0;
  assert.equal(
    decompile({ ...(await input(() => (t += 1))), budgetMs: 1_000_000 }).degraded,
    undefined,
  );
});

Deno.test("decompile() out of optional time prints gotos and unpropagated code, not an error", async () => {
  // The clock reads 0 once, then 600 of a 1000 ms budget: past the optional half, inside it.
  let first = true;
  const now = () => {
    if (first) {
      first = false;
      return 0;
    }
    return 600;
  };
  const d = decompile({ ...(await input(now)), budgetMs: 1000, simplified: "over the cap" });
  assert.match(d.degraded ?? "", /control flow is shown as gotos/);
  assert.match(d.degraded ?? "", /expressions are only partly propagated/);
  const r = render(d, "f", names);
  assert.match(r.code, /goto label_|label_/);
  assert.ok(r.lines.some((l) => l.addresses.includes(0x1008)));
  // Past the whole budget it is still a Timeout (at the first stage: lifting).
  first = true;
  const late = () => {
    if (first) {
      first = false;
      return 0;
    }
    return 2000;
  };
  const base = await input();
  assert.throws(
    () => decompile({ ...base, budgetMs: 1000, simplified: "x", now: late }),
    (e: unknown) => e instanceof RemcpError && e.code === "Timeout",
  );
});

Deno.test("caseIndex: a shift scales the index inside the table read, not a loaded offset", () => {
  const i: Expr = { k: "reg", name: "eax", size: 4 };
  const c = (v: number): Expr => ({ k: "const", value: BigInt(v), size: 4 });
  // x86-32 gcc -O0: *(uint32_t *)((i << 2) + T)
  const shl: Expr = { k: "bin", op: "shl", a: i, b: c(2), size: 4 };
  const read: Expr = {
    k: "load",
    addr: { k: "bin", op: "add", a: shl, b: c(0x8060), size: 4 },
    size: 4,
  };
  assert.deepEqual(caseIndex(read), i);
  // AArch64: B + (sext(*(int8_t *)(T + i)) << 2) is on i, not on the loaded byte
  const byte: Expr = {
    k: "load",
    addr: { k: "bin", op: "add", a: c(0x9000), b: i, size: 4 },
    size: 1,
  };
  const offset: Expr = {
    k: "bin",
    op: "shl",
    a: { k: "ext", signed: true, a: byte, size: 4 },
    b: c(2),
    size: 4,
  };
  assert.deepEqual(caseIndex({ k: "bin", op: "add", a: c(0x1000), b: offset, size: 4 }), i);
});

Deno.test("decompile() reads a stack parameter used at two widths through its address", async () => {
  // mov eax, [esp+8]; movzx ecx, byte [esp+8]; add eax, ecx; ret (`b + (uint8_t)b`, cdecl)
  const r = render(decompile(await straight("8b4424080fb64c240801c8c3", 32)), "f", names);
  assert.match(r.code, /\*\(uint32_t \*\)\(uint8_t \*\)&arg1 \+/);
  assert.doesNotMatch(r.code, /\*\(uint32_t \*\)arg1/);
});
