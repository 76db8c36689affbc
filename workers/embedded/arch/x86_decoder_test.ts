import assert from "node:assert/strict";
import { createDecoder } from "./decoder.ts";
import type { Insn } from "./types.ts";

function hex(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  return Uint8Array.from(clean.match(/../g) ?? [], (b) => parseInt(b, 16));
}

function pick(insn: Insn | undefined): Partial<Insn> {
  assert.ok(insn, "instruction expected");
  const { address, size, flow, target, memRef, mnemonic, opStr } = insn;
  return Object.fromEntries(
    Object.entries({ address, size, flow, target, memRef, mnemonic, opStr }).filter(([, v]) =>
      v !== undefined
    ),
  );
}

const SAMPLE = hex(
  "e8 1b 00 00 00" + // call 0x401020
    "48 8b 05 e9 2e 00 00" + // mov rax, [rip+0x2ee9]
    "ff 25 00 10 00 00" + // jmp [rip+0x1000]
    "c3" + // ret
    "0f 0b" + // ud2
    "74 fe" + // je $
    "cc" + // int3
    "f4" + // hlt
    "a1 00 20 40 00 00 00 00 00" + // mov eax, [0x402000]
    "64 48 8b 04 25 28 00 00 00" + // mov rax, fs:[0x28]
    "f3 48 ab" + // rep stosq
    "ff d0", // call rax
);

Deno.test("x86-64 decode() classifies flow and resolves targets and RIP-relative refs", async () => {
  const decoder = await createDecoder("x86_64");
  try {
    const insns = decoder.decode(SAMPLE, 0x401000, { text: true });
    assert.deepEqual(insns.map(pick), [
      {
        address: 0x401000,
        size: 5,
        flow: "call",
        target: 0x401020,
        mnemonic: "call",
        opStr: "0x401020",
      },
      {
        address: 0x401005,
        size: 7,
        flow: "seq",
        memRef: 0x401005 + 7 + 0x2ee9,
        mnemonic: "mov",
        opStr: "rax, qword ptr [rip+0x2ee9]",
      },
      {
        address: 0x40100c,
        size: 6,
        flow: "ijump",
        memRef: 0x401012 + 0x1000,
        mnemonic: "jmp",
        opStr: "qword ptr [rip+0x1000]",
      },
      { address: 0x401012, size: 1, flow: "ret", mnemonic: "ret", opStr: "" },
      { address: 0x401013, size: 2, flow: "trap", mnemonic: "ud2", opStr: "" },
      {
        address: 0x401015,
        size: 2,
        flow: "cjump",
        target: 0x401015,
        mnemonic: "je",
        opStr: "0x401015",
      },
      { address: 0x401017, size: 1, flow: "trap", mnemonic: "int3", opStr: "" },
      { address: 0x401018, size: 1, flow: "trap", mnemonic: "hlt", opStr: "" },
      {
        address: 0x401019,
        size: 9,
        flow: "seq",
        memRef: 0x402000,
        mnemonic: "mov",
        opStr: "eax, dword ptr [0x402000]",
      },
      {
        address: 0x401022,
        size: 9,
        flow: "seq",
        mnemonic: "mov",
        opStr: "rax, qword ptr fs:[0x28]",
      },
      {
        address: 0x40102b,
        size: 3,
        flow: "seq",
        mnemonic: "rep stosq",
        opStr: "qword ptr [rdi], rax",
      },
      { address: 0x40102e, size: 2, flow: "icall", mnemonic: "call", opStr: "rax" },
    ]);
  } finally {
    decoder.dispose();
  }
});

Deno.test("x86-64 decode() leaves text and operands out unless asked", async () => {
  const decoder = await createDecoder("x86_64");
  try {
    const [call] = decoder.decode(SAMPLE, 0x401000, { maxCount: 1 });
    assert.ok(call);
    assert.equal(call.mnemonic, undefined);
    assert.equal(call.opStr, undefined);
    assert.deepEqual(call.operands, []);
  } finally {
    decoder.dispose();
  }
});

Deno.test("x86-64 decode() fills operands with registers, memory and access", async () => {
  const decoder = await createDecoder("x86_64");
  try {
    const bytes = hex("48 8b 05 e9 2e 00 00  48 89 44 cb 10  48 83 c0 f0  e8 00 00 00 00");
    const [load, store, add, call] = decoder.decode(bytes, 0x1000, { detail: true });
    assert.deepEqual(load?.operands, [
      { kind: "reg", reg: "rax", size: 8, access: "w" },
      { kind: "mem", base: "rip", disp: 0x2ee9, size: 8, access: "r" },
    ]);
    assert.deepEqual(store?.operands, [
      { kind: "mem", base: "rbx", index: "rcx", scale: 8, disp: 0x10, size: 8, access: "w" },
      { kind: "reg", reg: "rax", size: 8, access: "r" },
    ]);
    assert.deepEqual(add?.operands, [
      { kind: "reg", reg: "rax", size: 8, access: "rw" },
      { kind: "imm", imm: -16, access: "r" },
    ]);
    assert.equal(call?.target, 0x1015);
    assert.deepEqual(call?.operands, [{ kind: "imm", imm: 0x1015, access: "r" }]);
  } finally {
    decoder.dispose();
  }
});

Deno.test("x86 (32-bit) decode() resolves targets and absolute displacements", async () => {
  const decoder = await createDecoder("x86");
  assert.equal(decoder.mode, "32");
  try {
    const bytes = hex("e8 fb 0f 00 00  8b 0d 00 30 40 00  ff 24 85 00 40 40 00");
    const insns = decoder.decode(bytes, 0x401000, { text: true });
    assert.deepEqual(insns.map(pick), [
      {
        address: 0x401000,
        size: 5,
        flow: "call",
        target: 0x402000,
        mnemonic: "call",
        opStr: "0x402000",
      },
      {
        address: 0x401005,
        size: 6,
        flow: "seq",
        memRef: 0x403000,
        mnemonic: "mov",
        opStr: "ecx, dword ptr [0x403000]",
      },
      {
        address: 0x40100b,
        size: 7,
        flow: "ijump",
        mnemonic: "jmp",
        opStr: "dword ptr [eax*4+0x404000]",
      },
    ]);
  } finally {
    decoder.dispose();
  }
});

Deno.test("x86-64 decode() turns invalid bytes into one-byte invalid insns and stops at a truncated end", async () => {
  const decoder = await createDecoder("x86_64");
  try {
    // 06 (push es) does not exist in 64-bit mode; 48 8b is a truncated mov.
    const insns = decoder.decode(hex("06 90 06 c3 48 8b"), 0x1000);
    assert.deepEqual(insns.map(pick), [
      { address: 0x1000, size: 1, flow: "invalid" },
      { address: 0x1001, size: 1, flow: "seq" },
      { address: 0x1002, size: 1, flow: "invalid" },
      { address: 0x1003, size: 1, flow: "ret" },
    ]);
    const invalid = insns[0];
    assert.ok(invalid);
    assert.deepEqual(decoder.format(hex("06"), 0x1000, invalid), { mnemonic: "db", opStr: "0x06" });
  } finally {
    decoder.dispose();
  }
});

Deno.test("x86-64 decode() honours maxCount and stopAtFlowEnd across window boundaries", async () => {
  const decoder = await createDecoder("x86_64");
  try {
    // 400 seven-byte RIP-relative loads (2800 bytes: past the first 1 KiB window), then ret.
    const parts: string[] = [];
    for (let i = 0; i < 400; i++) parts.push("48 8b 05 00 01 00 00");
    const bytes = hex(parts.join("") + "c3 90 90");
    const insns = decoder.decode(bytes, 0x10000, { stopAtFlowEnd: true });
    assert.equal(insns.length, 401);
    insns.slice(0, 400).forEach((insn, i) => {
      assert.equal(insn.address, 0x10000 + 7 * i);
      assert.equal(insn.memRef, 0x10000 + 7 * i + 7 + 0x100);
    });
    assert.equal(insns[400]?.flow, "ret");
    assert.equal(decoder.decode(bytes, 0x10000, { maxCount: 3 }).length, 3);
  } finally {
    decoder.dispose();
  }
});

Deno.test("x86-64 format() gives the same text as decode() with text", async () => {
  const decoder = await createDecoder("x86_64");
  try {
    for (const insn of decoder.decode(SAMPLE, 0x401000, { text: true })) {
      assert.deepEqual(decoder.format(SAMPLE, 0x401000, insn), {
        mnemonic: insn.mnemonic,
        opStr: insn.opStr,
      });
    }
  } finally {
    decoder.dispose();
  }
});

Deno.test("x86-64 decoder refuses use after dispose()", async () => {
  const decoder = await createDecoder("x86_64");
  decoder.dispose();
  assert.throws(() => decoder.decode(SAMPLE, 0), RangeError);
});

/** `.text` of an ELF64 little-endian file: [address, bytes]. */
function elfText(path: string): [number, Uint8Array] {
  const data = Deno.readFileSync(path);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const shoff = Number(view.getBigUint64(0x28, true));
  const size = view.getUint16(0x3a, true);
  const count = view.getUint16(0x3c, true);
  const strtab = Number(view.getBigUint64(shoff + view.getUint16(0x3e, true) * size + 0x18, true));
  for (let i = 0; i < count; i++) {
    const h = shoff + i * size;
    const at = strtab + view.getUint32(h, true);
    if (new TextDecoder().decode(data.subarray(at, at + 6)) !== ".text\0") continue;
    const offset = Number(view.getBigUint64(h + 0x18, true));
    const length = Number(view.getBigUint64(h + 0x20, true));
    return [Number(view.getBigUint64(h + 0x10, true)), data.subarray(offset, offset + length)];
  }
  throw new Error(`${path} has no .text`);
}

Deno.test("x86-64 decode() sweeps /bin/ls .text like objdump", async () => {
  const [address, bytes] = elfText("/bin/ls");
  const decoder = await createDecoder("x86_64");
  let insns: Insn[];
  try {
    insns = decoder.decode(bytes, address, { text: true });
  } finally {
    decoder.dispose();
  }
  const last = insns[insns.length - 1];
  assert.ok(last);
  assert.ok(bytes.length - (last.address + last.size - address) < 15, "decoded to the end");
  const objdump = await new Deno.Command("objdump", {
    args: [
      "-d",
      "--no-show-raw-insn",
      `--start-address=${address}`,
      `--stop-address=${address + bytes.length}`,
      "/bin/ls",
    ],
    stdout: "piped",
  }).output().catch(() => undefined);
  if (!objdump?.success) return; // objdump is optional here
  const lines = new TextDecoder().decode(objdump.stdout).split("\n")
    .filter((line) => /^\s+[0-9a-f]+:\t/.test(line));
  const difference = insns.length - lines.length;
  console.error(
    `/bin/ls .text: ${insns.length} instructions, objdump ${lines.length} (difference ${difference})`,
  );
  assert.ok(Math.abs(difference) <= lines.length / 1000, "within 0.1% of objdump's count");
});
