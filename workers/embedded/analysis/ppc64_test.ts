import assert from "node:assert/strict";
import { createDecoder } from "../arch/decoder.ts";
import { parseRaw } from "../formats/raw.ts";
import { analyze } from "./analyze.ts";
import { functionPaddingEnd, paddingAt } from "./_padding.ts";
import { startMain, tocPairPointer } from "./_ppc64.ts";
import { loadsJumpRegister, type RiscText } from "./_jump_tables_risc.ts";
import { analyzeFixture, openFixture, truthOf } from "./_test_fixtures.ts";

const BASE = 0x10000;

/** Little-endian words and raw byte runs, in order, as one blob. */
function blob(...parts: (number | number[])[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (Array.isArray(p)) out.push(...p);
    else out.push(p & 0xff, (p >>> 8) & 0xff, (p >>> 16) & 0xff, p >>> 24);
  }
  return new Uint8Array(out);
}

const BLR = 0x4e800020;
const NOP = 0x60000000;
const ORI_R2 = 0x60420000;
/** GCC's traceback table after a function that saves LR: zero word, then 8 bytes. */
const TBTAB = [0, 0, 0, 0, 0, 0, 0, 1, 0x80, 1, 0, 0];

async function starts(bytes: Uint8Array): Promise<number[]> {
  const image = parseRaw(bytes, "ppc64le", BASE);
  const a = await analyze(image, await createDecoder("ppc64", { endian: "little" }));
  return a.functions().map((f) => f.start - BASE);
}

Deno.test("PowerPC traceback tables are padding; nops alone are not a function's end", () => {
  const t = blob(TBTAB, NOP, ORI_R2, BLR);
  assert.equal(paddingAt("ppc64", t, 0, true), 12);
  assert.equal(functionPaddingEnd("ppc64", t, true), 20);
  // Optional part (has_tboff, name present): parameter types, tb_offset, a 4-byte name.
  const named = blob([0, 0, 0, 0, 0, 0, 0x20, 0x41, 0x80, 1, 2, 0], 0, 0x40, [4, 0], [
    0x6d,
    0x61,
    0x69,
    0x6e,
  ], NOP);
  assert.equal(paddingAt("ppc64", named, 0, true), 28);
  // Nops align loop heads inside a function: a jump over them is no tail call.
  assert.equal(functionPaddingEnd("ppc64", blob(NOP, ORI_R2, BLR), true), 0);
  assert.equal(functionPaddingEnd("aarch64", blob(0xd503201f, BLR), true), 4);
});

Deno.test("a PowerPC64 jump over nops to a loop head stays inside the function", async () => {
  const loop = blob(
    0x39200000, // li r9, 0
    0x4800000c, // b loop
    NOP,
    ORI_R2,
    0x39290001, // loop: addi r9, r9, 1
    0x2c29000a, // cmpdi r9, 10
    0x4082fff8, // bne loop
    BLR,
  );
  assert.deepEqual(await starts(loop), [0]);
});

Deno.test("a PowerPC64 function found in a gap may end in a call into its traceback table", async () => {
  const code = blob(
    BLR, // entry
    TBTAB,
    0x7c0802a6, // f: mflr r0 (nothing calls f)
    0xf8010010, // std r0, 16(r1)
    0xf821ffe1, // stdu r1, -32(r1)
    0x48000015, // bl g: g never returns, which is not known yet when the gap scan probes f
    TBTAB,
    NOP,
    0x38600001, // g: li r3, 1
    0x48000000, // b .
  );
  assert.deepEqual(await starts(code), [0, 0x10, 0x30]);
});

Deno.test("a PowerPC64 tail call to another function's local entry does not join them", async () => {
  const code = blob(
    0x48000021, // entry: bl g
    BLR,
    TBTAB,
    NOP,
    NOP,
    ORI_R2,
    0x3c4c0000, // g: addis r2, r12, 0 (global entry)
    0x38420000, // addi r2, r2, 0
    0x38600000, // g + 8, the local entry: li r3, 0
    BLR,
    TBTAB,
    NOP,
    0x38800000, // f (nothing calls it): li r4, 0
    0x4bffffe4, // b g + 8
  );
  assert.deepEqual(await starts(code), [0, 0x20, 0x40]);
});

Deno.test("analyze() finds PowerPC64 functions without .eh_frame, and no others", async () => {
  const name = "elf_ppc64le_gcc_O2_stripped_noehframe";
  const a = await analyzeFixture(name);
  const truth = new Set(truthOf(name).functions.map((f) => Number(f.address)));
  for (const f of truthOf(name).functions) {
    assert.ok(a.functionStartingAt(Number(f.address)) !== undefined, `${f.name} not found`);
  }
  // Import stubs aside (the linker's call stubs and the lazy-binding resolver after them).
  const extra = a.functions().filter((f) => f.source !== "import" && !truth.has(f.start));
  assert.deepEqual(extra.map((f) => `0x${f.start.toString(16)} ${f.source}`), []);
});

Deno.test("a PowerPC64 address built from the TOC pointer in two instructions is found", () => {
  const code = blob(
    0x3c82ffff, // addis r4, r2, -1
    0x38a00001, // li r5, 1 (another register)
    0x38847ff0, // addi r4, r4, 0x7ff0
    0x3c62fffe, // addis r3, r2, -2
    0x38630008, // addi r3, r3, 8 (a second pair; nothing between them touches r3)
    0x3c62fffe, // addis r3, r2, -2
    0x60630000, // ori r3, r3, 0 (writes r3: the pair is broken)
    0x38630008, // addi r3, r3, 8
  );
  const image = parseRaw(code, "ppc64le", BASE);
  const toc = 0x40000;
  assert.equal(tocPairPointer(image, toc, BASE + 8), toc - 0x10000 + 0x7ff0);
  assert.equal(tocPairPointer(image, toc, BASE + 16), toc - 0x20000 + 8);
  assert.equal(tocPairPointer(image, toc, BASE + 28), undefined);
  assert.equal(tocPairPointer(image, toc, BASE + 4), undefined); // li is addi r5, r0
});

Deno.test("glibc's PowerPC64 _start names main in its start-up block", () => {
  const main = BASE + 0x20;
  const code = blob(
    0x3c4c0000, // _start: addis r2, r12, 0
    0x38420000, // addi r2, r2, 0
    0x3d020000, // addis r8, r2, 0
    0x39080040, // addi r8, r8, 0x40: the block, r2 + 0x40
    0x48000000, // b __libc_start_main
    NOP,
    NOP,
    NOP,
    BLR, // main
    NOP,
    NOP,
    NOP,
    NOP,
    NOP,
    NOP,
    NOP,
    0, // block: 0, main, 0, 0
    0,
    main,
    0,
  );
  // The TOC pointer is the image base here, so the block is at BASE + 0x40.
  assert.equal(startMain(parseRaw(code, "ppc64le", BASE), BASE, BASE), main);
});

Deno.test("a PowerPC64 jump through CTR goes through the register mtctr copied", () => {
  const t = (mnemonic: string, ops: string): RiscText => ({
    address: 0,
    size: 4,
    flow: "seq",
    mnemonic,
    ops,
  });
  const bctr = { ...t("bctr", ""), flow: "ijump" };
  assert.ok(loadsJumpRegister(bctr, [t("mtctr", "r9"), t("ldx", "r9, r28, r7")]));
  assert.ok(!loadsJumpRegister(bctr, [t("mtctr", "r9"), t("add", "r9, r28, r7")]));
});

Deno.test("the unwind entry over PowerPC64's PLT resolver and lazy stubs makes no function", async () => {
  const name = "elf_ppc64le_gcc_O2";
  const image = openFixture(name);
  image.symbols = [];
  const a = await analyze(image, await createDecoder("ppc64", { endian: "little" }));
  const truth = new Set(truthOf(name).functions.map((f) => Number(f.address)));
  const extra = a.functions().filter((f) => f.source !== "import" && !truth.has(f.start));
  assert.deepEqual(extra.map((f) => `0x${f.start.toString(16)} ${f.source}`), []);
});
