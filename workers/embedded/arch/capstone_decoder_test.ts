import assert from "node:assert/strict";
import { createDecoder } from "./decoder.ts";
import type { Arch, DecodeOptions, DecoderOptions, Insn, Operand } from "./types.ts";

// Encodings from `llvm-mc -show-encoding` (LLVM 14), one instruction per group of hex digits.

function hex(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  return Uint8Array.from(clean.match(/../g) ?? [], (b) => parseInt(b, 16));
}

type Expected = Partial<Omit<Insn, "operands">> & { operands?: Operand[] };

function pick(insn: Insn, withOperands: boolean): Expected {
  const { address, size, flow, target, memRef, mnemonic, opStr, operands } = insn;
  const picked: Expected = { address, size, flow };
  if (target !== undefined) picked.target = target;
  if (memRef !== undefined) picked.memRef = memRef;
  if (mnemonic !== undefined) picked.mnemonic = mnemonic;
  if (opStr !== undefined) picked.opStr = opStr;
  if (withOperands) picked.operands = operands;
  return picked;
}

async function decodeAll(
  arch: Arch,
  options: DecoderOptions,
  bytes: string,
  address: number,
  decodeOptions: DecodeOptions = { text: true },
): Promise<Insn[]> {
  const decoder = await createDecoder(arch, options);
  try {
    return decoder.decode(hex(bytes), address, decodeOptions);
  } finally {
    decoder.dispose();
  }
}

async function check(
  arch: Arch,
  options: DecoderOptions,
  bytes: string,
  expected: Expected[],
  address = 0x1000,
): Promise<void> {
  const withOperands = expected.some((e) => e.operands !== undefined);
  const insns = await decodeAll(arch, options, bytes, address, { text: true, detail: true });
  const actual = insns.map((insn, i) => {
    const picked = pick(insn, withOperands);
    if (expected[i]?.operands === undefined) delete picked.operands;
    return picked;
  });
  assert.deepEqual(actual, expected);
}

Deno.test("aarch64 decode() gives flow, targets, page and literal addresses, operands", async () => {
  await check("aarch64", {}, "00040094 20000090 010440f9 40000054 400000b4 63002837", [
    {
      address: 0x1000,
      size: 4,
      flow: "call",
      target: 0x2000,
      mnemonic: "bl",
      opStr: "#0x2000",
      operands: [{ kind: "imm", imm: 0x2000, access: "r" }],
    },
    {
      address: 0x1004,
      size: 4,
      flow: "seq",
      memRef: 0x5000,
      mnemonic: "adrp",
      opStr: "x0, #0x5000",
      operands: [{ kind: "reg", reg: "x0", access: "w" }, {
        kind: "imm",
        imm: 0x5000,
        access: "r",
      }],
    },
    {
      address: 0x1008,
      size: 4,
      flow: "seq",
      mnemonic: "ldr",
      opStr: "x1, [x0, #8]",
      operands: [
        { kind: "reg", reg: "x1", access: "w" },
        { kind: "mem", base: "x0", disp: 8, access: "r" },
      ],
    },
    { address: 0x100c, size: 4, flow: "cjump", target: 0x1014, mnemonic: "b.eq", opStr: "#0x1014" },
    {
      address: 0x1010,
      size: 4,
      flow: "cjump",
      target: 0x1018,
      mnemonic: "cbz",
      opStr: "x0, #0x1018",
    },
    {
      address: 0x1014,
      size: 4,
      flow: "cjump",
      target: 0x1020,
      mnemonic: "tbnz",
      opStr: "w3, #5, #0x1020",
    },
  ]);
  await check("aarch64", {}, "00021fd6 00013fd6 80000058 81000010 c0035fd6 000020d4 ffffff17", [
    { address: 0x1000, size: 4, flow: "ijump", mnemonic: "br", opStr: "x16" },
    { address: 0x1004, size: 4, flow: "icall", mnemonic: "blr", opStr: "x8" },
    {
      address: 0x1008,
      size: 4,
      flow: "seq",
      memRef: 0x1018,
      mnemonic: "ldr",
      opStr: "x0, #0x1018",
    },
    {
      address: 0x100c,
      size: 4,
      flow: "seq",
      memRef: 0x101c,
      mnemonic: "adr",
      opStr: "x1, #0x101c",
    },
    { address: 0x1010, size: 4, flow: "ret", mnemonic: "ret", opStr: "" },
    { address: 0x1014, size: 4, flow: "trap", mnemonic: "brk", opStr: "#0" },
    { address: 0x1018, size: 4, flow: "jump", target: 0x1014, mnemonic: "b", opStr: "#0x1014" },
  ]);
});

Deno.test("aarch64 big-endian decode() reads swapped words", async () => {
  await check("aarch64", { endian: "big" }, "94000400", [
    { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "bl", opStr: "#0x2000" },
  ]);
});

Deno.test("arm decode() handles bl/bx/pop/ldr-literal/adr and writes to pc", async () => {
  await check(
    "arm",
    {},
    "fe0300eb 1eff2fe1 1080bde8 04009fe5 0000000a 000400fa 08008fe2 f000f0e7 0ef0a0e1 33ff2fe1 00f093e5",
    [
      { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "bl", opStr: "#0x2000" },
      { address: 0x1004, size: 4, flow: "ret", mnemonic: "bx", opStr: "lr" },
      { address: 0x1008, size: 4, flow: "ret", mnemonic: "pop", opStr: "{r4, pc}" },
      {
        address: 0x100c,
        size: 4,
        flow: "seq",
        memRef: 0x1018,
        mnemonic: "ldr",
        opStr: "r0, [pc, #4]",
        operands: [
          { kind: "reg", reg: "r0", access: "w" },
          { kind: "mem", base: "pc", disp: 4, access: "r" },
        ],
      },
      {
        address: 0x1010,
        size: 4,
        flow: "cjump",
        target: 0x1018,
        mnemonic: "beq",
        opStr: "#0x1018",
      },
      { address: 0x1014, size: 4, flow: "call", target: 0x201c, mnemonic: "blx", opStr: "#0x201c" },
      {
        address: 0x1018,
        size: 4,
        flow: "seq",
        memRef: 0x1028,
        mnemonic: "add",
        opStr: "r0, pc, #8",
      },
      { address: 0x101c, size: 4, flow: "trap", mnemonic: "udf", opStr: "#0" },
      { address: 0x1020, size: 4, flow: "ret", mnemonic: "mov", opStr: "pc, lr" },
      { address: 0x1024, size: 4, flow: "icall", mnemonic: "blx", opStr: "r3" },
      { address: 0x1028, size: 4, flow: "ijump", mnemonic: "ldr", opStr: "pc, [r3]" },
    ],
  );
});

Deno.test("thumb decode() handles blx/bl/cbz, pc-relative loads and IT-conditional returns", async () => {
  await check(
    "arm",
    { thumb: true },
    "01f000e8 01f000f8 7047 10bd 10b1 0248 01d0 02a0 08bf 7047",
    [
      { address: 0x1000, size: 4, flow: "call", target: 0x2004, mnemonic: "blx", opStr: "#0x2004" },
      { address: 0x1004, size: 4, flow: "call", target: 0x2008, mnemonic: "bl", opStr: "#0x2008" },
      { address: 0x1008, size: 2, flow: "ret", mnemonic: "bx", opStr: "lr" },
      { address: 0x100a, size: 2, flow: "ret", mnemonic: "pop", opStr: "{r4, pc}" },
      {
        address: 0x100c,
        size: 2,
        flow: "cjump",
        target: 0x1014,
        mnemonic: "cbz",
        opStr: "r0, #0x1014",
      },
      {
        address: 0x100e,
        size: 2,
        flow: "seq",
        memRef: 0x1018,
        mnemonic: "ldr",
        opStr: "r0, [pc, #8]",
      },
      {
        address: 0x1010,
        size: 2,
        flow: "cjump",
        target: 0x1016,
        mnemonic: "beq",
        opStr: "#0x1016",
      },
      { address: 0x1012, size: 2, flow: "seq", memRef: 0x101c, mnemonic: "adr", opStr: "r0, #8" },
      { address: 0x1014, size: 2, flow: "seq", mnemonic: "it", opStr: "eq" },
      { address: 0x1016, size: 2, flow: "cjump", mnemonic: "bxeq", opStr: "lr" },
    ],
  );
});

Deno.test("mips decode() handles jal, lui/addiu, branches, jr $ra and delay slots", async () => {
  await check("mips", {}, "0c000800 00000000 3c040041 24841234 10800004 8f998018", [
    { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "jal", opStr: "0x2000" },
    { address: 0x1004, size: 4, flow: "seq", mnemonic: "nop", opStr: "" },
    {
      address: 0x1008,
      size: 4,
      flow: "seq",
      mnemonic: "lui",
      opStr: "$a0, 0x41",
      operands: [{ kind: "reg", reg: "a0" }, { kind: "imm", imm: 0x41 }],
    },
    {
      address: 0x100c,
      size: 4,
      flow: "seq",
      mnemonic: "addiu",
      opStr: "$a0, $a0, 0x1234",
      operands: [{ kind: "reg", reg: "a0" }, { kind: "reg", reg: "a0" }, {
        kind: "imm",
        imm: 0x1234,
      }],
    },
    {
      address: 0x1010,
      size: 4,
      flow: "cjump",
      target: 0x1024,
      mnemonic: "beqz",
      opStr: "$a0, 0x1024",
    },
    {
      address: 0x1014,
      size: 4,
      flow: "seq",
      mnemonic: "lw",
      opStr: "$t9, -0x7fe8($gp)",
      operands: [{ kind: "reg", reg: "t9" }, { kind: "mem", base: "gp", disp: -0x7fe8 }],
    },
  ]);
  await check("mips", {}, "0320f809 10000004 04110004 0000000d", [
    { address: 0x1000, size: 4, flow: "icall", mnemonic: "jalr", opStr: "$t9" },
    { address: 0x1004, size: 4, flow: "jump", target: 0x1018, mnemonic: "b", opStr: "0x1018" },
    { address: 0x1008, size: 4, flow: "call", target: 0x101c, mnemonic: "bal", opStr: "0x101c" },
    { address: 0x100c, size: 4, flow: "trap", mnemonic: "break", opStr: "" },
  ]);
  // stopAtFlowEnd keeps the delay slot after jr $ra and stops there.
  const insns = await decodeAll("mips", {}, "03e00008 00000000 8f998018", 0x1000, {
    stopAtFlowEnd: true,
  });
  assert.deepEqual(insns.map((i) => [i.address, i.flow]), [[0x1000, "ret"], [0x1004, "seq"]]);
});

Deno.test("mips little-endian and mips64 decode() jal", async () => {
  await check("mips", { endian: "little" }, "0008000c", [
    { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "jal", opStr: "0x2000" },
  ]);
  await check("mips64", {}, "0c000800 dfa40008", [
    { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "jal", opStr: "0x2000" },
    {
      address: 0x1004,
      size: 4,
      flow: "seq",
      mnemonic: "ld",
      opStr: "$a0, 8($sp)",
      operands: [{ kind: "reg", reg: "a0" }, { kind: "mem", base: "sp", disp: 8 }],
    },
  ]);
});

Deno.test("ppc64 decode() classifies b/bl/blr/bctr(l)/bc forms and traps from the encoding", async () => {
  await check(
    "ppc64",
    {},
    "48001001 4e800020 4e800420 4e800421 41820010 3c600041 e8810008 7fe00008 42000010 4d820020 48001000",
    [
      { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "bl", opStr: "0x2000" },
      { address: 0x1004, size: 4, flow: "ret", mnemonic: "blr", opStr: "" },
      { address: 0x1008, size: 4, flow: "ijump", mnemonic: "bctr", opStr: "" },
      { address: 0x100c, size: 4, flow: "icall", mnemonic: "bctrl", opStr: "" },
      { address: 0x1010, size: 4, flow: "cjump", target: 0x1020, mnemonic: "beq", opStr: "0x1020" },
      {
        address: 0x1014,
        size: 4,
        flow: "seq",
        mnemonic: "lis",
        opStr: "r3, 0x41",
        operands: [{ kind: "reg", reg: "r3" }, { kind: "imm", imm: 0x41 }],
      },
      {
        address: 0x1018,
        size: 4,
        flow: "seq",
        mnemonic: "ld",
        opStr: "r4, 8(r1)",
        operands: [{ kind: "reg", reg: "r4" }, { kind: "mem", base: "r1", disp: 8 }],
      },
      { address: 0x101c, size: 4, flow: "trap", mnemonic: "trap", opStr: "" },
      {
        address: 0x1020,
        size: 4,
        flow: "cjump",
        target: 0x1030,
        mnemonic: "bdnz",
        opStr: "0x1030",
      },
      { address: 0x1024, size: 4, flow: "cjump", mnemonic: "beqlr", opStr: "" },
      { address: 0x1028, size: 4, flow: "jump", target: 0x2028, mnemonic: "b", opStr: "0x2028" },
    ],
  );
});

Deno.test("ppc64 little-endian and ppc decode() bl", async () => {
  await check("ppc64", { endian: "little" }, "01100048", [
    { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "bl", opStr: "0x2000" },
  ]);
  await check("ppc", {}, "48001001", [
    { address: 0x1000, size: 4, flow: "call", target: 0x2000, mnemonic: "bl", opStr: "0x2000" },
  ]);
});

Deno.test("riscv64 decode() resolves jal/branch targets and auipc, reads loads as memory", async () => {
  await check(
    "riscv64",
    {},
    "ef100000 17250100 67800000 6f000001 e7000300 67800700 6308b500 03358100 73001000",
    [
      {
        address: 0x1000,
        size: 4,
        flow: "call",
        target: 0x2000,
        mnemonic: "jal",
        opStr: "0x2000",
        operands: [{ kind: "imm", imm: 0x2000 }],
      },
      {
        address: 0x1004,
        size: 4,
        flow: "seq",
        memRef: 0x13004,
        mnemonic: "auipc",
        opStr: "a0, 0x12",
        operands: [{ kind: "reg", reg: "a0" }, { kind: "imm", imm: 0x12 }],
      },
      { address: 0x1008, size: 4, flow: "ret", mnemonic: "ret", opStr: "" },
      { address: 0x100c, size: 4, flow: "jump", target: 0x101c, mnemonic: "j", opStr: "0x101c" },
      { address: 0x1010, size: 4, flow: "icall", mnemonic: "jalr", opStr: "t1" },
      { address: 0x1014, size: 4, flow: "ijump", mnemonic: "jr", opStr: "a5" },
      {
        address: 0x1018,
        size: 4,
        flow: "cjump",
        target: 0x1028,
        mnemonic: "beq",
        opStr: "a0, a1, 0x1028",
      },
      {
        address: 0x101c,
        size: 4,
        flow: "seq",
        mnemonic: "ld",
        opStr: "a0, 8(sp)",
        operands: [{ kind: "reg", reg: "a0" }, { kind: "mem", base: "sp", disp: 8 }],
      },
      { address: 0x1020, size: 4, flow: "trap", mnemonic: "ebreak", opStr: "" },
    ],
  );
  await check("riscv64", {}, "01a8 8280 65fd", [
    { address: 0x1000, size: 2, flow: "jump", target: 0x1010, mnemonic: "c.j", opStr: "0x1010" },
    { address: 0x1002, size: 2, flow: "ret", mnemonic: "c.jr", opStr: "ra" },
    {
      address: 0x1004,
      size: 2,
      flow: "cjump",
      target: 0x0ffc,
      mnemonic: "c.bnez",
      opStr: "a0, 0xffc",
    },
  ]);
});

Deno.test("riscv32 decode() wraps auipc to 32 bits", async () => {
  await check("riscv32", {}, "ef100000 17f5ffff", [
    { address: 0x3000, size: 4, flow: "call", target: 0x4000, mnemonic: "jal", opStr: "0x4000" },
    {
      address: 0x3004,
      size: 4,
      flow: "seq",
      memRef: 0x2004,
      mnemonic: "auipc",
      opStr: "a0, 0xfffff",
    },
  ], 0x3000);
});

Deno.test("capstone decode() turns invalid words into alignment-sized invalid insns", async () => {
  const cases: [Arch, DecoderOptions, string, number][] = [
    ["aarch64", {}, "ffffffff c0035fd6", 4],
    ["arm", {}, "ffffffff 1eff2fe1", 4],
    ["arm", { thumb: true }, "fffe 7047", 2],
    ["mips", {}, "ffffffff 03e00008", 4],
    ["ppc64", {}, "00000000 4e800020", 4],
    ["riscv64", {}, "ffffffff 67800000", 2],
  ];
  for (const [arch, options, bytes, align] of cases) {
    const insns = await decodeAll(arch, options, bytes, 0x1000, {});
    const first = insns[0];
    assert.ok(first, `${arch}: an instruction`);
    assert.equal(first.flow, "invalid", `${arch} ${JSON.stringify(options)}`);
    assert.equal(first.size, align, `${arch}: invalid size`);
    assert.equal(insns[insns.length - 1]?.flow, "ret", `${arch}: decoding resumes`);
  }
});

Deno.test("capstone format() matches decode() text and shows db for invalid bytes", async () => {
  const decoder = await createDecoder("aarch64");
  try {
    const bytes = hex("00040094 ffffffff");
    const [bl, bad] = decoder.decode(bytes, 0x1000, { text: true });
    assert.ok(bl && bad);
    assert.deepEqual(decoder.format(bytes, 0x1000, bl), { mnemonic: "bl", opStr: "#0x2000" });
    assert.deepEqual(decoder.format(bytes, 0x1000, bad), {
      mnemonic: "db",
      opStr: "0xff, 0xff, 0xff, 0xff",
    });
  } finally {
    decoder.dispose();
  }
});

Deno.test("aarch64 decode() sweeps a system library's .text without throwing", async () => {
  const path = "/usr/aarch64-linux-gnu/lib/libc.so.6";
  let data: Uint8Array;
  try {
    data = Deno.readFileSync(path);
  } catch {
    return; // the cross libraries are optional
  }
  const decoder = await createDecoder("aarch64");
  try {
    const slice = data.subarray(0x30000, 0x30000 + (1 << 18));
    let pos = 0;
    let count = 0;
    while (pos < slice.length) {
      const insns = decoder.decode(slice.subarray(pos, pos + 65536), 0x30000 + pos);
      const last = insns[insns.length - 1];
      if (!last) break;
      count += insns.length;
      pos = last.address + last.size - 0x30000;
    }
    assert.equal(count, slice.length / 4);
  } finally {
    decoder.dispose();
  }
});
