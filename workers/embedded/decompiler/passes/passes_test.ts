/**
 * The passes on small hand-written IR programs: each rewrite keeps what the program computes
 * (checked with the IR interpreter) and does the one thing it is for.
 */
import assert from "node:assert/strict";
import {
  type BinOp,
  constant,
  type Expr,
  type IrBlock,
  type IrFunction,
  type Reg,
  type Stmt,
  type Term,
} from "../ir.ts";
import { readMem, runFunction, stateOf, writeMem } from "../interp.ts";
import { normalize, substitute, toSsa } from "../ssa.ts";
import { propagate, propagateOnce, simplifyAll } from "./propagate.ts";
import { recoverFrame } from "./stack.ts";
import { leaveSsa } from "./outssa.ts";
import { coalesce } from "./coalesce.ts";
import { narrow } from "./narrow.ts";
import { simplify } from "./simplify.ts";
import { eliminateDeadCode } from "./dead.ts";
import { helperOperators } from "./calls.ts";
import { CDECL } from "../abi/conventions.ts";

const r = (name: string, size = 8): Reg => ({ k: "reg", name, size });
const c = (v: number | bigint, size = 8) => constant(v, size);
const bin = (op: BinOp, a: Expr, b: Expr, size = a.size): Expr => ({ k: "bin", op, a, b, size });
const set = (dst: Reg, src: Expr): Stmt => ({ k: "set", dst, src, at: 0 });
const load = (addr: Expr, size = 8): Expr => ({ k: "load", addr, size });
const store = (addr: Expr, value: Expr): Stmt => ({
  k: "store",
  addr,
  value,
  size: value.size,
  at: 0,
});

function fn(blocks: [number, Stmt[], Term][]): IrFunction {
  const map = new Map<number, IrBlock>();
  for (const [start, stmts, term] of blocks) {
    map.set(start, { start, end: start + 1, stmts, term, phis: [] });
  }
  return {
    entry: blocks[0]![0],
    blocks: map,
    arch: { ptr: 8, sp: "rsp", retAddr: 8 },
    warnings: [],
  };
}

const jump = (to: number): Term => ({ k: "jump", to, at: 0 });
const ret = (value: Expr): Term => ({ k: "ret", value, at: 0 });

const propagateAll = (f: IrFunction) => propagate(f);

const statements = (f: IrFunction) =>
  [...f.blocks.values()].reduce((n, b) => n + b.stmts.length, 0);

// sum = 0; for (i = 1; i <= n; i++) sum += i; return sum;
const SUM = () =>
  fn([
    [0, [set(r("rax"), c(0)), set(r("rcx"), c(1))], jump(1)],
    [1, [], { k: "branch", cond: bin("ule", r("rcx"), r("rdi"), 1), then: 2, else: 3, at: 0 }],
    [
      2,
      [set(r("rax"), bin("add", r("rax"), r("rcx"))), set(r("rcx"), bin("add", r("rcx"), c(1)))],
      jump(1),
    ],
    [3, [], ret(r("rax"))],
  ]);

Deno.test("toSsa places a phi per merged register and keeps the program's value", () => {
  const ssa = toSsa(normalize(SUM()));
  assert.equal(ssa.blocks.get(1)!.phis.length, 2);
  for (const n of [0, 1, 10]) {
    assert.equal(runFunction(stateOf({ rdi: n }), ssa), BigInt((n * (n + 1)) / 2));
  }
});

Deno.test("propagation, dead code, leaving SSA and coalescing keep a loop's value", () => {
  const ssa = toSsa(normalize(SUM()));
  const propagated = propagateAll(ssa);
  const out = coalesce(leaveSsa(propagated, 100));
  for (const n of [0, 3, 10]) {
    assert.equal(runFunction(stateOf({ rdi: n }), out), BigInt((n * (n + 1)) / 2));
  }
  // Coalescing leaves the two loop variables (no copies between their versions).
  const copies = [...out.blocks.values()].flatMap((b) => b.stmts)
    .filter((s) => s.k === "set" && (s.src.k === "reg" || s.src.k === "tmp"));
  assert.equal(copies.length, 0, JSON.stringify(copies));
});

Deno.test("propagation does not move a load across a store", () => {
  const f = fn([[0, [
    set(r("rax"), load(r("rdi"))),
    store(r("rdi"), c(5)),
    set(r("rcx"), bin("add", r("rax"), c(1))),
  ], ret(r("rcx"))]]);
  const out = propagateAll(toSsa(normalize(f)));
  const s = stateOf({ rdi: 0x100 });
  writeMem(s, 0x100, 8, 7n);
  assert.equal(runFunction(s, out), 8n);
  assert.equal(readMem(s, 0x100, 8), 5n);
});

Deno.test("propagation inlines a value read once and dead code goes", () => {
  const f = fn([[0, [
    set(r("rax"), bin("add", r("rdi"), c(2))),
    set(r("rdx"), bin("mul", r("rax"), c(3))),
    set(r("rsi"), c(99)),
  ], ret(r("rdx"))]]);
  const out = propagateAll(toSsa(normalize(f)));
  assert.equal(statements(out), 0);
  assert.equal(runFunction(stateOf({ rdi: 4 }), out), 18n);
});

Deno.test("recoverFrame turns stack accesses into slots, and escaping slots into arrays", () => {
  const sp = r("rsp");
  const f = fn([[0, [
    set(sp, bin("add", sp, c(-16n))),
    store(bin("add", sp, c(8)), r("rdi")),
    { k: "call", target: c(0x1000), args: [bin("add", sp, c(0))], defs: [], at: 0 },
    set(r("rax"), load(bin("add", sp, c(8)))),
  ], ret(r("rax"))]]);
  const ssa = propagateAll(toSsa(normalize(f)));
  const { fn: framed, frame } = recoverFrame(ssa);
  assert.deepEqual([...frame.scalars], [[-8, 8]]);
  assert.deepEqual([...frame.arrays], [[-16, 8]]);
  const out = propagateAll(framed);
  // The local is a variable: no memory access is left, and the value flows through it.
  const text = JSON.stringify(
    [...out.blocks.values()],
    (_k, v) => typeof v === "bigint" ? String(v) : v,
  );
  const loads = text.includes('"load"');
  assert.equal(loads, false);
  assert.equal(runFunction(stateOf({ rdi: 42, rsp: 0x8000 }), out), 42n);
});

Deno.test("narrow gives a 32-bit value read only as 32 bits a 32-bit variable", () => {
  const ext = (a: Expr): Expr => ({ k: "ext", signed: false, a, size: 8 });
  const trunc = (a: Expr): Expr => ({ k: "trunc", a, size: 4 });
  const f = fn([[
    0,
    [set(r("rax"), ext(bin("add", trunc(r("rdi")), c(1, 4))))],
    ret(trunc(r("rax"))),
  ]]);
  const out = narrow(toSsa(normalize(f)));
  const s = out.blocks.get(0)!.stmts[0]!;
  assert.equal(s.k === "set" ? s.dst.size : 0, 4);
  assert.equal(runFunction(stateOf({ rdi: 0xffffffff }), out), 0n);
});

Deno.test("simplify reads sub-register writes back, folds the cdq/idiv idiom, flips negations", () => {
  const full = r("rax");
  const al: Expr = { k: "trunc", a: r("rbx"), size: 1 };
  // trunc((rax & ~0xff) | zext(bl), 1) is bl.
  const merged = bin(
    "or",
    bin("and", full, c(~0xffn)),
    { k: "ext", signed: false, a: al, size: 8 },
  );
  assert.deepEqual(simplify({ k: "trunc", a: merged, size: 1 }), al);
  // ((sext(sar(x, 31)) << 32) | zext(x)) / sext(y), truncated: x / y.
  const x: Expr = { k: "trunc", a: r("rdi"), size: 4 };
  const y: Expr = { k: "trunc", a: r("rsi"), size: 4 };
  const dividend = bin(
    "or",
    bin("shl", { k: "ext", signed: false, a: bin("sar", x, c(31, 1)), size: 8 }, c(32, 1)),
    { k: "ext", signed: false, a: x, size: 8 },
  );
  const q = simplify({
    k: "trunc",
    a: bin("sdiv", dividend, { k: "ext", signed: true, a: y, size: 8 }),
    size: 4,
  });
  assert.deepEqual(q, bin("sdiv", x, y));
  const lt = bin("slt", r("rdi"), r("rsi"), 1);
  assert.deepEqual(
    simplify({ k: "un", op: "lnot", a: lt, size: 1 }),
    bin("sle", r("rsi"), r("rdi"), 1),
  );
  assert.deepEqual(simplify(bin("add", bin("add", r("rdi"), c(3)), c(-3n))), r("rdi"));
  // Subtraction does not commute: 32 - n stays 32 - n.
  const rot = bin("sub", c(32, 1), r("rcx", 1));
  assert.deepEqual(simplify(rot), rot);
});

Deno.test("dead code removes a loop-carried value nothing outside the loop reads", () => {
  // SUM, with rdx incremented in the loop and never read after it.
  const base = SUM();
  const body = base.blocks.get(2)!;
  base.blocks.set(2, {
    ...body,
    stmts: [...body.stmts, set(r("rdx"), bin("add", r("rdx"), c(2)))],
  });
  const out = eliminateDeadCode(toSsa(normalize(base)));
  const names = [...out.blocks.values()].flatMap((b) => [
    ...b.phis.map((p) => p.dst),
    ...b.stmts.flatMap((s) => s.k === "set" ? [s.dst] : []),
  ]).map((v) => v.k === "reg" ? v.name : "");
  assert.ok(!names.includes("rdx"), names.join(","));
  assert.equal(runFunction(stateOf({ rdi: 4 }), out), 10n);
});

Deno.test("simplify reads additions that multiply (lea, add r, r) as multiplications", () => {
  const x = r("rax");
  // add rax, rax
  assert.deepEqual(simplify(bin("add", x, x)), bin("mul", x, c(2)));
  // lea rax, [rax+rax*4] as (rax << 2) + rax, either way round
  assert.deepEqual(simplify(bin("add", bin("shl", x, c(2)), x)), bin("mul", x, c(5)));
  assert.deepEqual(simplify(bin("add", x, bin("shl", x, c(3)))), bin("mul", x, c(9)));
  // x * 5 doubled: x * 10, wrapped to the size
  const t = bin("add", bin("add", bin("shl", x, c(2)), x), bin("add", bin("shl", x, c(2)), x));
  assert.deepEqual(simplify(t), bin("mul", x, c(10)));
  assert.deepEqual(
    simplify(bin("mul", bin("mul", r("eax", 4), c(0x10000, 4)), c(0x10000, 4))),
    c(0, 4),
  );
  // A shift as wide as the value is no multiplication.
  const wide = bin("add", bin("shl", r("eax", 4), c(32, 4)), r("eax", 4));
  assert.deepEqual(simplify(wide), wide);
});

const v = (name: string, ver: number, size = 8): Reg => ({ k: "reg", name, size, ver });
const tmp = (id: number, size = 8): Expr => ({ k: "tmp", id, size });

Deno.test("coalescing merges a copy whose sides never differ and keeps apart ones that do", () => {
  // Out of SSA: x = t1 while t1 goes on to a new value that is read together with x.
  const f = fn([[0, [
    { k: "set", dst: { k: "tmp", id: 1, size: 8 }, src: bin("add", v("rdi", 0), c(1)), at: 0 },
    set(v("rax", 1), tmp(1)),
    { k: "set", dst: { k: "tmp", id: 1, size: 8 }, src: bin("add", tmp(1), c(5)), at: 0 },
    set(v("rcx", 1), bin("mul", v("rax", 1), tmp(1))),
    set(v("rdx", 1), v("rcx", 1)),
  ], ret(v("rdx", 1))]]);
  const out = coalesce(f);
  // rdx.1 = rcx.1 goes (one variable); rax.1 = t1 stays (t1 changes while rax.1 is live).
  const sets = out.blocks.get(0)!.stmts;
  assert.equal(sets.length, 4);
  assert.ok(sets.some((s) => s.k === "set" && s.dst.k === "reg" && s.dst.name === "rax"));
  assert.equal(runFunction(stateOf({ rdi: 2 }), out), 3n * 8n);
  assert.equal(runFunction(stateOf({ rdi: 2 }), f), 3n * 8n);
});

Deno.test("coalescing is not misled by many variables that take part in no copy", () => {
  // A long run of temporaries summed into rax, and one copy at the end.
  const stmts: Stmt[] = [{ k: "set", dst: v("rax", 1), src: c(0), at: 0 }];
  for (let i = 1; i <= 500; i++) {
    stmts.push({ k: "set", dst: { k: "tmp", id: i, size: 8 }, src: c(i), at: 0 });
  }
  let sum: Expr = v("rax", 1);
  for (let i = 1; i <= 500; i++) sum = bin("add", sum, tmp(i));
  stmts.push(set(v("rax", 2), sum), set(v("rbx", 1), v("rax", 2)));
  const f = fn([[0, stmts, ret(v("rbx", 1))]]);
  const out = coalesce(f);
  assert.equal(statements(out), statements(f) - 1);
  assert.equal(runFunction(stateOf({}), out), 500n * 501n / 2n);
});

Deno.test("dead code removes a whole chain of unread definitions and keeps what a store reads", () => {
  const stmts: Stmt[] = [];
  for (let i = 1; i <= 50; i++) {
    const src = i === 1 ? r("rdi") : bin("add", tmp(i - 1), c(1));
    stmts.push({ k: "set", dst: { k: "tmp", id: i, size: 8 }, src, at: 0 });
  }
  stmts.push({ k: "set", dst: { k: "tmp", id: 100, size: 8 }, src: r("rsi"), at: 0 });
  stmts.push(store(r("rdx"), tmp(100)));
  const out = eliminateDeadCode(fn([[0, stmts, ret(c(0))]]));
  assert.deepEqual(out.blocks.get(0)!.stmts.map((s) => s.k), ["set", "store"]);
});

Deno.test("a rewrite that changes nothing keeps the function's blocks and statements", () => {
  const f = toSsa(normalize(SUM()));
  const same = substitute(f, () => undefined);
  for (const [k, b] of f.blocks) assert.equal(same.blocks.get(k), b);
  // One changed use rebuilds that statement only.
  const rdi = (e: Expr) => e.k === "reg" && e.name === "rdi" ? c(7) : undefined;
  const one = substitute(f, rdi);
  assert.notEqual(one.blocks.get(1), f.blocks.get(1));
  assert.equal(one.blocks.get(2), f.blocks.get(2));
});

Deno.test("a propagation round that simplifies only what it rewrote matches one that simplifies all", () => {
  const programs = [
    toSsa(normalize(SUM())),
    toSsa(normalize(fn([[0, [
      set(r("rax"), bin("add", r("rdi"), c(2))),
      set(r("rdx"), bin("sub", r("rax"), c(2))),
      set(r("rcx"), bin("add", bin("add", r("rdx"), r("rdx")), c(0))),
      store(r("rsi"), bin("xor", r("rcx"), r("rcx"))),
    ], ret(bin("mul", r("rcx"), c(1)))]]))),
  ];
  for (const p of programs) {
    let cur = eliminateDeadCode(propagateOnce(simplifyAll(p)).fn);
    for (let round = 0; round < 4; round++) {
      const partial = propagateOnce(cur, true);
      const full = propagateOnce(cur, false);
      assert.deepEqual(partial, full);
      cur = eliminateDeadCode(full.fn);
    }
  }
});

Deno.test("propagation removes a loop's phi whose value comes back unchanged (pushes around a call)", () => {
  // esp -= 0x1c; loop: esp -= 16; [esp] = edi; call; esp += 16; if (--ecx) loop; return ecx.
  const e = (name: string) => r(name, 4);
  const f = fn([
    [0, [set(e("esp"), bin("sub", e("esp"), c(0x1c, 4)))], jump(1)],
    [
      1,
      [
        set(e("esp"), bin("sub", e("esp"), c(16, 4))),
        store(e("esp"), e("edi")),
        { k: "call", target: c(0x5000, 4), args: [e("esp")], defs: [e("eax")], at: 0 },
        set(e("esp"), bin("add", e("esp"), c(16, 4))),
        set(e("ecx"), bin("sub", e("ecx"), c(1, 4))),
      ],
      { k: "branch", cond: bin("ne", e("ecx"), c(0, 4), 1), then: 1, else: 2, at: 0 },
    ],
    [2, [], ret(e("ecx"))],
  ]);
  f.arch = { ptr: 4, sp: "esp", retAddr: 4 };
  const out = propagate(toSsa(normalize(f)));
  const loop = out.blocks.get(1)!;
  assert.deepEqual(loop.phis.map((p) => (p.dst as Reg).name), ["ecx"]);
  // The store's address is the entry stack pointer's offset: the stack pass can name its slot.
  const st = loop.stmts.find((s) => s.k === "store");
  assert.deepEqual(
    st?.k === "store" && st.addr.k === "bin" && st.addr.a.k === "reg"
      ? [st.addr.a.name, st.addr.a.ver, st.addr.b]
      : undefined,
    ["esp", 0, c(-0x2c, 4)],
  );
});

Deno.test("helperOperators turns a call of a 64-bit division helper into the operator", () => {
  // __udivmoddi4(a_lo, a_hi, b_lo, b_hi, &r) on x86-32: the quotient in edx_eax, the remainder
  // stored through the pointer a word at a time.
  const e = (name: string) => r(name, 4);
  const pair = r("edx_eax", 8);
  const words = [e("esi"), e("edi"), e("ebx"), e("ebp"), c(0x9000, 4)];
  const f = fn([[
    0,
    [{
      k: "call",
      target: c(0x5000, 4),
      args: [...words, e("esp")],
      defs: [e("eax"), e("ecx"), e("edx"), pair],
      at: 0,
    }],
    ret(pair),
  ]]);
  f.arch = { ptr: 4, sp: "esp", retAddr: 4 };
  const out = helperOperators(
    f,
    CDECL,
    (t) => t.k === "const" && t.value === 0x5000n ? "udivmod" : undefined,
  );
  assert.ok(out.blocks.get(0)!.stmts.every((s) => s.k !== "call"));
  const a = 0x1234_5678_9abc_def0n;
  const b = 0x0000_0001_0000_0003n;
  const s = stateOf({
    esi: a & 0xffffffffn,
    edi: a >> 32n,
    ebx: b & 0xffffffffn,
    ebp: b >> 32n,
  });
  assert.equal(runFunction(s, out), a / b);
  assert.equal(readMem(s, 0x9000, 4) | (readMem(s, 0x9004, 4) << 32n), a % b);
  // Any other callee stays a call.
  const kept = helperOperators(f, CDECL, () => undefined);
  assert.equal(kept.blocks.get(0)!.stmts[0]!.k, "call");
});
