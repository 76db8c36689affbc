import assert from "node:assert/strict";
import { computeFeatures, type FeatureInsn, maskAddresses } from "./features.ts";

const call = (address: number, target: number): FeatureInsn => {
  const rel = target - (address + 5);
  const bytes = new Uint8Array([
    0xe8,
    rel & 0xff,
    (rel >> 8) & 0xff,
    (rel >> 16) & 0xff,
    rel >>> 24,
  ]);
  return { address, bytes, mnemonic: "call", operands: `0x${target.toString(16)}`, target };
};

Deno.test("maskAddresses() zeroes a rel32 call wherever caller and callee moved", () => {
  const a = maskAddresses(call(0x1000, 0x2000), [0x2000]);
  const b = maskAddresses(call(0x1100, 0x2340), [0x2340]);
  assert.deepEqual(a, b);
  assert.deepEqual([...a], [0xe8, 0, 0, 0, 0]);
});

Deno.test("computeFeatures() tells moved code from changed code", () => {
  const fn = (start: number, imm: number) =>
    computeFeatures({
      name: "f",
      start,
      end: start + 10,
      size: 10,
      insns: [
        call(start, start + 0x500),
        {
          address: start + 5,
          bytes: new Uint8Array([0xb8, imm, 0x01, 0, 0]),
          mnemonic: "mov",
          operands: `eax, 0x${(0x100 + imm).toString(16)}`,
        },
      ],
      blocks: [{ start, end: start + 10 }],
      edges: [],
      callees: [start + 0x500],
      strings: [],
      imports: [],
    }, () => false);
  const moved = [fn(0x1000, 7), fn(0x3000, 7)] as const;
  assert.equal(moved[0].bytes_hash, moved[1].bytes_hash);
  const changed = fn(0x1000, 9);
  assert.notEqual(changed.bytes_hash, moved[0].bytes_hash);
  assert.equal(changed.mnem_hash, moved[0].mnem_hash);
  assert.deepEqual(changed.constants, [0x109]);
});
