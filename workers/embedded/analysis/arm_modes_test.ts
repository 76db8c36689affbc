/** ARM/Thumb modes learnt in stripped binaries, where no mapping symbol tells them apart. */
import assert from "node:assert/strict";
import { type ModeMark, modesOver } from "./_arm_modes.ts";
import {
  a32Odds,
  a32PaddingAt,
  ArmModes,
  plausibleA32,
  switchesMode,
  thumbPrologueAt,
} from "./_arm_modes.ts";
import { analyzeFixture, openFixture, truthOf } from "./_test_fixtures.ts";
import { deserializeAnalysis, serializeAnalysis } from "./serialize.ts";

const le32 = (...words: number[]) => {
  const b = new Uint8Array(words.length * 4);
  const v = new DataView(b.buffer);
  words.forEach((w, i) => v.setUint32(i * 4, w, true));
  return b;
};
const le16 = (...halves: number[]) => {
  const b = new Uint8Array(halves.length * 2);
  const v = new DataView(b.buffer);
  halves.forEach((h, i) => v.setUint16(i * 2, h, true));
  return b;
};

// clang -O2 A32: push {r4, r5, r6, lr}; sub sp, sp, #16; mov r5, r0; … (main of the fixture).
const A32 = le32(
  0xe92d4070,
  0xe24dd010,
  0xe1a05000,
  0xe3a00002,
  0xe58d0004,
  0xe3500000,
  0x03a00001,
  0xe12fff1e,
);
// gcc -O2 Thumb-2: push {r3-r7, lr}; mov r5, r0; ldr r4, [pc, #…]; adds; … read as words.
const THUMB = le16(
  0xb5f8,
  0x4605,
  0x4c0b,
  0x2000,
  0x447c,
  0xf8d4,
  0x3000,
  0x1c6b,
  0xdb05,
  0x6823,
  0x4293,
  0xd1f8,
  0xf04f,
  0x30ff,
  0xbdf8,
  0xbf00,
);

Deno.test("A32 code reads as A32 and Thumb code does not", () => {
  assert.equal(plausibleA32(0x1000, A32), true);
  assert.equal(plausibleA32(0x1000, THUMB), false);
  assert.equal(plausibleA32(0x1002, A32), false, "A32 code is word-aligned");
  assert.ok(a32Odds(0x1000, THUMB) < 0);
  assert.equal(plausibleA32(0x1000, le32(0, 0, 0, 0, 0, 0, 0, 0)), false, "zeros are padding");
  assert.equal(thumbPrologueAt(THUMB), true);
  assert.equal(thumbPrologueAt(le16(0xe92d, 0x4ff0)), true, "push.w {r4-r11, lr}");
  assert.equal(thumbPrologueAt(A32), false);
  // A32 pads with zero words and nops; `cmp r0, #0` starts with a zero halfword but is code.
  assert.equal(a32PaddingAt(le32(0), 0, 0x1000), 4);
  assert.equal(a32PaddingAt(le32(0xe320f000), 0, 0x1000), 4);
  assert.equal(a32PaddingAt(le32(0xe3500000), 0, 0x1000), 0);
});

Deno.test("blx imm switches the mode of its target, bl keeps it", () => {
  assert.equal(switchesMode(le32(0xfa000036), false), true, "A32 blx");
  assert.equal(switchesMode(le32(0xfb00001f), false), true, "A32 blx with H set");
  assert.equal(switchesMode(le32(0xebfffff0), false), false, "A32 bl");
  assert.equal(switchesMode(le16(0xf7ff, 0xef4a), true), true, "Thumb blx");
  assert.equal(switchesMode(le16(0xf7ff, 0xff4a), true), false, "Thumb bl");
});

/** A stripped-ELF-like image: no mapping symbols, Thumb entry. */
function thumbEntryImage(known = false) {
  const image = openFixture("elf_arm_modes_clang_O2_stripped");
  if (known) image.armModesKnown = true;
  return image;
}

Deno.test("a learnt mode holds up to the next mark, and forgetting it restores the one before", () => {
  const modes = new ArmModes(thumbEntryImage());
  assert.equal(modes.isThumb(0x600), true, "the entry's mode without marks");
  assert.deepEqual(modes.learn(0x500, false), { start: 0x500, end: Infinity });
  assert.equal(modes.learn(0x700, true)?.start, 0x700);
  assert.equal(modes.isThumb(0x600), false);
  assert.equal(modes.isThumb(0x700), true);
  assert.equal(modes.learn(0x500, true), undefined, "the first word on an address wins");
  assert.deepEqual(modes.forget(0x500), { start: 0x500, end: 0x700 });
  assert.equal(modes.isThumb(0x600), true);
  const marks: ModeMark[] = [{ addr: 0x500, thumb: false }];
  assert.equal(modesOver(marks, () => true)(0x600), false);
  assert.equal(modesOver(marks, () => true)(0x400), true);
});

Deno.test("mapping symbols decide every mode: nothing is learnt", () => {
  const modes = new ArmModes(thumbEntryImage(true));
  assert.equal(modes.fixed, true);
  assert.equal(modes.learn(0x500, false), undefined);
  assert.equal(modes.isThumb(0x500), true);
});

/** Truth starts of an arm_modes fixture: address → [name, Thumb]. */
function starts(name: string): Map<number, [string, boolean]> {
  const out = new Map<number, [string, boolean]>();
  for (const f of truthOf(name).functions as { name: string; address: string; thumb?: boolean }[]) {
    out.set(Number(f.address), [f.name, f.thumb === true]);
  }
  return out;
}

for (const cc of ["clang", "gcc"]) {
  const name = `elf_arm_modes_${cc}_O2_stripped`;
  Deno.test(`${name}: A32 functions between Thumb crt code are found in their own mode`, async () => {
    const a = await analyzeFixture(name);
    const truth = starts(name);
    const image = openFixture(name);
    const text = image.sections.find((s) => s.name === ".text")!;
    const found = a.functions().filter((f) => f.start >= text.start && f.start < text.end);
    // Every function, and no Thumb-sized fragments of A32 code.
    for (const [start, [fn]] of truth) {
      if (start < text.start || start >= text.end) continue;
      assert.ok(a.functionStartingAt(start) !== undefined, `${fn} at 0x${start.toString(16)}`);
    }
    for (const f of found) assert.ok(truth.has(f.start), `false start 0x${f.start.toString(16)}`);
    const isThumb = modesOver(a.data.armModes ?? [], () => image.thumb === true);
    for (const [start, [fn, thumb]] of truth) assert.equal(isThumb(start), thumb, fn);
    // main's first instruction is A32 `push {…, lr}`: one block of 4-byte instructions.
    const main = [...truth].find(([, [fn]]) => fn === "main")![0];
    const entry = a.functionStartingAt(main)!;
    assert.ok(entry.end - entry.start >= 0x40, `main ends at 0x${entry.end.toString(16)}`);
    // The A32 jump table (clang: `add pc, r2, r1` over offsets; gcc: `ldrls pc, [pc, r0, lsl #2]`)
    // is read: eight case edges, and no case block is a function (checked above).
    const sw = [...truth].find(([, [fn]]) => fn === "remcp_mode_switch")![0];
    const cases = a.functionStartingAt(sw)!.edges.filter((e) => e.kind === "case");
    assert.equal(new Set(cases.map((e) => e.value)).size, 8);
  });
}

Deno.test("with mapping symbols the analysis learns nothing and finds the same starts", async () => {
  const full = await analyzeFixture("elf_arm_modes_clang_O2");
  const stripped = await analyzeFixture("elf_arm_modes_clang_O2_stripped");
  assert.equal(full.data.armModes, undefined);
  const text = openFixture("elf_arm_modes_clang_O2").sections.find((s) => s.name === ".text")!;
  const inText = (a: typeof full) =>
    a.functions().filter((f) => f.start >= text.start && f.start < text.end).map((f) => f.start);
  assert.deepEqual(inText(stripped), inText(full));
});

Deno.test("learnt modes survive the analysis cache", async () => {
  const name = "elf_arm_modes_clang_O2_stripped";
  const a = await analyzeFixture(name);
  assert.ok((a.data.armModes?.length ?? 0) > 0);
  const b = deserializeAnalysis(serializeAnalysis(a), openFixture(name));
  assert.deepEqual(b.data.armModes, a.data.armModes);
});
