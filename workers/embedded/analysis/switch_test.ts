/**
 * Jump tables in every form the x86-64, x86-32 and AArch64 compilers emit (tests/fixtures/src/switch_forms.c), and
 * the rule that an exception table bounds functions: switch cases are never functions.
 */
import assert from "node:assert/strict";
import { createDecoder } from "../arch/decoder.ts";
import type { BinaryImage } from "../formats/image.ts";
import { analyze } from "./analyze.ts";
import type { Analysis } from "./analysis.ts";
import { analyzeFixture, openFixture, truthOf } from "./_test_fixtures.ts";

const FORMS = [
  "gcc_O0", // lea; mov eax,[rdx+rax]; cdqe; lea; add; jmp rax — index*4 and base apart
  "gcc_O0_cet", // the same with notrack jmp
  "gcc_O0_nopie", // mov rax,[rax*8+T]; jmp rax
  "gcc_O2", // the byte switch: movzx edi, dil bounds a table with no range check
  "gcc_O2_nopie", // jmp [rax*8+T]
  "clang_O2", // lea; movsxd rax,[rcx+rax*4]; add rax,rcx; jmp rax, range check folded in an add
  "clang_O3_nopie",
].map((f) => `elf_x86_64_switch_${f}`).concat(
  // x86-32: shl eax, 2; add eax, T; mov eax, [eax]; jmp eax (the table summed in a register)
  "elf_i386_switch_gcc_O0_nopie",
  // mov edx, [edx+eax-T']; add edx, eax; jmp edx (eax the GOT base from the PC thunk)
  "elf_i386_switch_gcc_O0",
  "elf_i386_switch_gcc_O2",
  "elf_i386_switch_clang_O2",
  // adrp+add T; ldrb [T, w0, uxtw]; adr B; add x1, B, w1, sxtb #2; br (range check: b.ls)
  "elf_aarch64_switch_gcc_O2",
  // adr B; ldrsw x9, [T, x11, lsl #2]; add x8, B, x9 (byte offsets); br
  "elf_aarch64_switch_clang_O0",
  // Thumb-2: cmp r0, #19; bhi; tbb [pc, r0] (tbh for the byte switch), the table inline
  "elf_arm_switch_gcc_O2",
  // Thumb: adr r2, T; ldr.w r3, [r2, r3, lsl #2]; add r2, r3; bx r2 (entries carry the Thumb bit)
  "elf_arm_switch_gcc_O0",
  // A32: cmp r0, #19; addls pc, pc, r0, lsl #2; b default; b case0; ...
  "elf_arm_switch_gcc_O2_marm",
  // lw v0, %got_page(T)($gp); addiu; addu; lw v0, 0(v0); addu v0, v0, $gp; jr (gp-relative)
  "elf_mips_switch_gcc_O2",
  // lui; addiu; addu; lw; jr (absolute entries), range check sltiu + beqz
  "elf_mips_switch_gcc_O2_nopic",
  // auipc+addi T; slli/srli; add; lw; add T; jr (offsets from T), range check li + bltu
  "elf_riscv64_switch_gcc_O2",
  // lui+addi T; lw; jr (absolute 32-bit entries)
  "elf_riscv64_switch_gcc_O2_nopie",
  // addis+addi T from r2 (.got + 0x8000); lwax; add; mtctr; bctr — the table inside .text
  "elf_ppc64le_switch_gcc_O2",
);

/** Analyse `name` as if stripped: no symbols, and without unwind entries unless `keepHints`. */
async function analyzeStripped(name: string, keepHints: boolean): Promise<[BinaryImage, Analysis]> {
  const image = openFixture(name);
  image.symbols = [];
  if (!keepHints) image.functionHints = [];
  const decoder = await createDecoder(image.arch, { endian: image.endian });
  const thumb = image.arch === "arm"
    ? await createDecoder("arm", { thumb: true, endian: image.endian })
    : undefined;
  return [image, await analyze(image, decoder, thumb === undefined ? {} : { thumbDecoder: thumb })];
}

function textStarts(image: BinaryImage, starts: Iterable<number>): number[] {
  const text = image.sections.find((s) => s.name === ".text")!;
  return [...starts].filter((a) => a >= text.start && a < text.end).sort((x, y) => x - y);
}

const hex = (a: number[]) => a.map((x) => `0x${x.toString(16)}`);

for (const name of FORMS) {
  Deno.test(`${name}: every switch's table is read, its cases are inside the function`, async () => {
    const a = await analyzeFixture(name);
    for (const [fn, cases] of [["remcp_sw_chars", 20], ["remcp_sw_small", 12]] as const) {
      const f = a.functionByName(fn)!;
      assert.ok(f.flags.includes("switch"), `${fn} ${f.flags}`);
      assert.ok(!f.flags.includes("leaf"), `${fn}: its cases call`);
      const values = new Set(f.edges.filter((e) => e.kind === "case").map((e) => e.value));
      assert.equal(values.size, cases, fn);
    }
    // A byte index bounds this one (gcc handles case 0 apart on AArch64); the compilers that
    // turn it into a lookup table of pointers have no jump to resolve.
    const byte = a.functionByName("remcp_sw_byte")!;
    if (byte.flags.includes("switch")) {
      const cases = byte.edges.filter((e) => e.kind === "case");
      assert.ok([255, 256].includes(new Set(cases.map((e) => e.value)).size), `${cases.length}`);
      for (const e of cases) assert.ok(e.to > byte.start && e.to < byte.end);
    }
    // No range check bounds this table: what is read must still stay inside the function.
    // (gcc for AArch64 compiles this switch to compares, not a table.)
    const u = a.functionByName("remcp_sw_unbounded")!;
    if (name === "elf_aarch64_switch_gcc_O2") return assert.ok(!u.flags.includes("switch"));
    const targets = u.edges.filter((e) => e.kind === "case").map((e) => e.to);
    assert.ok(new Set(targets).size >= 8, `${targets.length} cases`);
    for (const t of targets) assert.ok(t > u.start && t < u.end, `case 0x${t.toString(16)}`);
  });

  // The x86-32 builds are here for their tables: their crt code (the PC thunks, which the
  // truth lists apart from the functions) is another question than switch cases.
  if (name.startsWith("elf_i386_")) continue;
  Deno.test(`${name}: stripped, with and without .eh_frame, no switch case is a function`, async () => {
    // `.cold` parts are chunks; a lone `ret` nobody references (_dl_relocate_static_pie in a
    // non-PIE) reads as padding without its unwind entry.
    const fns = truthOf(name).functions.filter((f) => !/\.cold/.test(f.name));
    const labels = new Set(
      openFixture(name).symbols.filter((s) => s.kind === "other" && /^[a-z_]/i.test(s.name))
        .map((s) => s.address),
    );
    for (const f of fns) labels.delete(Number(f.address));
    for (const keepHints of [true, false]) {
      const truth = fns.filter((f) => keepHints || f.size !== 1).map((f) => Number(f.address));
      const [image, a] = await analyzeStripped(name, keepHints);
      // Import stubs are no symbol's function (PowerPC64 links its call stubs into .text), nor
      // are code labels without a function type (RISC-V's load_gp, __glink_PLTresolve).
      const found = textStarts(
        image,
        a.functions().filter((f) => f.source !== "import" && !labels.has(f.start))
          .map((f) => f.start),
      );
      assert.deepEqual(hex(found), hex(textStarts(image, truth)), `eh_frame: ${keepHints}`);
    }
  });
}

Deno.test("no function starts strictly inside another function's exception-table range", async () => {
  const forms = FORMS.filter((f) => !f.startsWith("elf_i386_"));
  for (const name of [...forms, "elf_x86_64_gcc_O0", "elf_x86_64_gcc_O2", "elf_x86_64_clang_O2"]) {
    const [image, a] = await analyzeStripped(name, true);
    const starts = a.functions().filter((f) => f.source !== "import").map((f) => f.start)
      .sort((x, y) => x - y);
    for (const h of image.functionHints) {
      // One unwind entry covers a whole PLT; its stubs are the imports.
      if (h.end === undefined || /^\.plt/.test(image.sectionAt(h.start)?.name ?? "")) continue;
      const inside = starts.filter((s) => s > h.start && s < h.end!);
      assert.deepEqual(hex(inside), [], `${name}: inside 0x${h.start.toString(16)}`);
    }
  }
});

Deno.test("a call target inside another function's unwind extent stays a function, flagged nested", async () => {
  const name = "elf_x86_64_gcc_O2";
  const truth = truthOf(name);
  const image = openFixture(name);
  image.symbols = [];
  // Stretch the unwind entry before remcp_fact over it: remcp_fact is still called by main.
  const fact = Number(truth.functions.find((f) => f.name === "remcp_fact")!.address);
  const hints = image.functionHints.sort((x, y) => x.start - y.start);
  const i = hints.findIndex((h) => h.start === fact);
  assert.ok(i > 0);
  hints[i - 1]!.end = hints[i]!.end!;
  hints.splice(i, 1);
  const a = await analyze(image, await createDecoder(image.arch, { endian: image.endian }));
  const f = a.functionStartingAt(fact);
  assert.ok(f !== undefined);
  assert.equal(f.source, "call");
  assert.ok(f.flags.includes("nested"), `${f.flags}`);
  assert.ok(!a.functionStartingAt(hints[i - 1]!.start)!.flags.includes("nested"));
});

const GOTOS: [name: string, fn: string, labels: number][] = [
  ["elf_x86_64_goto_gcc_O2", "remcp_interp", 9],
  ["elf_mips_goto_gcc_O2", "remcp_interp", 9],
  ["elf_ppc64le_goto_gcc_O2", "remcp_interp", 9],
  // adrp+add T at the entry; and x0, x1, #0xf; ldr x0, [T, x0, lsl #3]; br x0 (index in x0)
  ["elf_aarch64_goto_gcc_O2", "remcp_interp", 9],
  // ldr r3, [pc, #n]; add r3, pc (T from a literal); ldr.w r3, [r3, r2, lsl #2]; orr #1; bx r3
  ["elf_arm_goto_gcc_O2", "remcp_interp", 9],
  // T spilled to [sp, #8] at the entry and reloaded before each dispatch, across a call; the
  // function is reached only through a pointer stored after the table
  ["elf_arm_goto_spill", "remcp_vm", 8],
];

for (const [name, interpName, minLabels] of GOTOS) {
  Deno.test(`${name}: a computed goto's labels are blocks of the interpreter, not functions`, async () => {
    const fns = truthOf(name).functions.filter((f) => !/\.cold/.test(f.name));
    const truth = fns.map((f) => Number(f.address));
    const [image, a] = await analyzeStripped(name, false);
    const found = textStarts(
      image,
      a.functions().filter((f) => f.source !== "import").map((f) => f.start),
    );
    // Labels of the loop, not functions; crt helpers without .eh_frame may be missed.
    const extra = found.filter((s) => !truth.includes(s));
    assert.deepEqual(hex(extra), []);
    const interp = Number(fns.find((f) => f.name === interpName)!.address) & ~1;
    const f = a.functionStartingAt(interp)!;
    assert.ok(f.flags.includes("switch"), `${f.flags}`);
    const labels = new Set(f.edges.filter((e) => e.kind === "case").map((e) => e.to));
    assert.ok(labels.size >= minLabels, `${labels.size} labels`);
    for (const t of labels) assert.ok(t >= f.start && t < f.end, `label 0x${t.toString(16)}`);
  });
}

Deno.test("elf_mips_long_branch: `jr $at` through the GOT page is a jump within the function", async () => {
  // far_jump: beqz a0 → near; lw at,16(fp); lw at,%got(far)(at); addiu at,at,%lo(far); jr at.
  // The far label is reached only through the long branch: without it the block is lost, and
  // in a function over 128 KiB (pcre2's `match` at -O0) everything after it became functions.
  const [image, a] = await analyzeStripped("elf_mips_long_branch", false);
  const fn = Number(
    truthOf("elf_mips_long_branch").functions.find((f) => f.name === "far_jump")!.address,
  );
  const f = a.functionStartingAt(fn)!;
  // The source fixes the layout: the block of the long branch starts at +0x24 (after .cpload, the
  // frame set-up and beqz's delay slot) and the far label is at +0x48.
  const jr = f.edges.find((e) => e.from === f.start + 0x24 && e.to === f.start + 0x48);
  assert.ok(jr?.kind === "jump", JSON.stringify(f.edges));
  assert.ok(f.blocks.some((b) => b.start === jr.to), "the far block belongs to far_jump");
  assert.ok(jr.to > f.start && jr.to < f.end);
  const starts = textStarts(image, a.functions().map((g) => g.start));
  assert.ok(!starts.includes(jr.to), "the far label is not a function");
});

Deno.test("elf_aarch64_switch_loop_clang_O2: a table whose address is set before the loop is read", async () => {
  // adrp+add T before the loop; in it ldrb [T, I]; adr B; add, lsl #2; br. The first is
  // bounded by `cmp; b.hi` (5 cases), the second by its index, a byte shifted right by 5 (8).
  const a = await analyzeFixture("elf_aarch64_switch_loop_clang_O2");
  for (const [fn, cases] of [["remcp_sw_loop", 5], ["remcp_sw_loop_shift", 8]] as const) {
    const f = a.functionByName(fn)!;
    assert.ok(f.flags.includes("switch"), `${fn} ${f.flags}`);
    const edges = f.edges.filter((e) => e.kind === "case");
    assert.equal(new Set(edges.map((e) => e.value)).size, cases, fn);
    for (const e of edges) {
      assert.ok(e.to > f.start && e.to < f.end, `${fn} 0x${e.to.toString(16)}`);
    }
  }
});

Deno.test("elf_x86_64_switch_hoist_gcc_O2: a table whose base is set before the loop is read", async () => {
  // lea r12, T before the loop, 19 instructions before `movsxd rax, [r12+rcx*4]; add rax, r12;
  // jmp rax`, and one path to the jump goes through a call (Lua 5.3's luaV_execute).
  const name = "elf_x86_64_switch_hoist_gcc_O2";
  const [image, a] = await analyzeStripped(name, false);
  const truth = truthOf(name).functions.map((f) => Number(f.address));
  const extra = textStarts(image, a.functions().map((f) => f.start)).filter((s) =>
    !truth.includes(s)
  );
  assert.deepEqual(hex(extra), []);
  const vm = Number(truthOf(name).functions.find((f) => f.name === "remcp_vm")!.address);
  const f = a.functionStartingAt(vm)!;
  assert.ok(f.flags.includes("switch"), `${f.flags}`);
  const edges = f.edges.filter((e) => e.kind === "case");
  assert.equal(new Set(edges.map((e) => e.value)).size, 12);
  for (const e of edges) assert.ok(e.to > f.start && e.to < f.end, `0x${e.to.toString(16)}`);
});

Deno.test("elf_i386_switch_topbits_gcc_O2: a byte's top bits bound a table with no range check", async () => {
  // shr dl, 5; movzx edx, dl; jmp [edx*4+T]: eight cases, and the next function's table right
  // after this one holds code addresses too.
  const a = await analyzeFixture("elf_i386_switch_topbits_gcc_O2");
  const f = a.functionByName("remcp_sw_top3")!;
  assert.ok(f.flags.includes("switch"), `${f.flags}`);
  const edges = f.edges.filter((e) => e.kind === "case");
  assert.deepEqual([...new Set(edges.map((e) => e.value))].sort((x, y) => x! - y!), [
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
  ]);
  for (const e of edges) assert.ok(e.to > f.start && e.to < f.end, `0x${e.to.toString(16)}`);
  assert.ok(a.functionByName("remcp_sw_after")!.flags.includes("switch"));
});
