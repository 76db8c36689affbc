import assert from "node:assert/strict";
import { createDecoder } from "../arch/decoder.ts";
import type { Decoder } from "../arch/types.ts";
import { openImage } from "../formats/open_image.ts";
import { analyze, riscvPairPointer } from "./analyze.ts";
import { analyzeFixture, openFixture, truthOf } from "./_test_fixtures.ts";

const X64 = "elf_x86_64_gcc_O2";

/** Truth functions in code, without split-off `.cold` parts (chunks, not functions). */
function truthStarts(name: string): Map<number, { name: string; size: number }> {
  const out = new Map<number, { name: string; size: number }>();
  for (const f of truthOf(name).functions) {
    if (/\.cold/.test(f.name)) continue;
    out.set(Number(f.address), { name: f.name, size: f.size ?? 0 });
  }
  return out;
}

for (
  const name of [
    X64,
    "elf_x86_64_gcc_O0",
    "elf_x86_64_clang_O2",
    "elf_i386_gcc_O2",
    "elf_aarch64_gcc_O2",
    "elf_arm_gcc_O2",
    "elf_mips_gcc_O2",
    "elf_riscv64_gcc_O2",
    "elf_ppc64le_gcc_O2",
  ]
) {
  Deno.test(`analyze() finds every function of ${name} with its start and end`, async () => {
    const a = await analyzeFixture(name);
    for (const [start, t] of truthStarts(name)) {
      const f = a.functionStartingAt(start);
      assert.ok(f !== undefined, `${t.name} at 0x${start.toString(16)} not found`);
      if (t.size > 0) {
        assert.ok(
          Math.abs(f.end - (start + t.size)) <= 16,
          `${t.name}: end 0x${f.end.toString(16)} vs 0x${(start + t.size).toString(16)}`,
        );
      }
    }
  });
}

Deno.test("analyze() reports main's direct callees from the truth file", async () => {
  const a = await analyzeFixture(X64);
  const main = a.functionByName("main");
  assert.ok(main !== undefined);
  const want = new Set(truthOf(X64).direct_calls!["main"]!.map((n) => n.replace(/@.*$/, "")));
  const cold = new Set(truthOf(X64).direct_calls!["main.cold"]!.map((n) => n.replace(/@.*$/, "")));
  const got = new Set(a.callees(main).map((f) => f.name));
  for (const n of want) assert.ok(got.has(n), `missing callee ${n}`);
  // main.cold is a chunk of main, so its callees are main's too.
  for (const n of got) assert.ok(want.has(n) || cold.has(n), `unexpected callee ${n}`);
  assert.ok(main.chunks.length >= 1, "main.cold should be a chunk of main");
  assert.equal(a.functionByName("main.cold"), undefined);
});

Deno.test("analyze() links the print function to its strings and back", async () => {
  const a = await analyzeFixture(X64);
  const f = a.functionByName("remcp_print_strings")!;
  const hello = a.stringsOf(f).find((s) => s.text === "Hello, remcp!");
  assert.ok(hello !== undefined);
  assert.ok(a.codeRefsToString(hello.address).some((r) => r.function === f));
  // The symbol `remcp_hello` names the address; the generated string name sits beside it.
  assert.equal(a.nameAt(hello.address), "remcp_hello");
  assert.ok(a.namesAt(hello.address).some((n) => n.kind === "string" && n.name === "aHelloRemcp"));
  assert.ok(a.strings().some((s) => s.encoding === "utf16le" && s.text === "wide string here"));
});

Deno.test("analyze() turns the x86-64 jump table into 18 case edges", async () => {
  const a = await analyzeFixture(X64);
  const f = a.functionByName("remcp_switch")!;
  assert.ok(a.edgesOf(f).filter((e) => e.kind === "case").length >= 18);
  assert.ok(f.flags.includes("switch"));
  assert.ok(a.cyclomaticComplexity(f) >= 18);
});

Deno.test("analyze() follows ADRP+ADD to strings on AArch64", async () => {
  const a = await analyzeFixture("elf_aarch64_gcc_O2");
  const f = a.functionByName("remcp_print_strings")!;
  assert.ok(a.stringsOf(f).some((s) => s.text === "Hello, remcp!"));
});

Deno.test("analyze() names PLT stubs after imports and stops at noreturn calls", async () => {
  const a = await analyzeFixture(X64);
  const printf = a.functionByName("printf")!;
  assert.ok(printf.flags.includes("import"));
  assert.ok(a.lookup("__imp_printf") !== undefined);
  assert.ok(a.functionByName("remcp_fatal")!.flags.includes("noreturn"));
  assert.ok(a.callers(printf).some((f) => f.name === "main"));
  const main = a.functionByName("main")!;
  assert.deepEqual(a.nearestName(main.start + 4), { name: "main", address: main.start, offset: 4 });
});

Deno.test("analyze() finds the same starts in a stripped binary as in its twin", async () => {
  const full = await analyzeFixture(X64);
  const stripped = await analyzeFixture("elf_x86_64_gcc_O2_stripped");
  const starts = (a: typeof full) => a.functions().map((f) => f.start);
  assert.deepEqual(starts(stripped), starts(full));
});

Deno.test("analyze() without eh_frame still finds every function start", async () => {
  const a = await analyzeFixture("elf_x86_64_gcc_O2_stripped_noehframe");
  for (const [start, t] of truthStarts("elf_x86_64_gcc_O2_stripped_noehframe")) {
    assert.ok(a.functionStartingAt(start) !== undefined, `${t.name} not found`);
  }
});

Deno.test("analyze() yields to the event loop and honours abort", async () => {
  const image = openFixture(X64);
  const decoder = await createDecoder(image.arch);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const progress: number[] = [];
  await analyze(image, decoder, { yieldEvery: 0, onProgress: (f) => progress.push(f) });
  clearInterval(timer);
  assert.ok(ticks > 0, "no timer ran during analysis");
  assert.equal(progress[progress.length - 1], 1);
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(analyze(image, decoder, { signal: controller.signal }), /stop/);
});

Deno.test("an unwind entry over a whole PLT (.plt, CET .plt.sec) makes no function of it", async () => {
  for (const name of ["elf_x86_64_cet", "elf_x86_64_gcc_O2_stripped"]) {
    const image = openFixture(name);
    const a = await analyzeFixture(name);
    const fns = a.functions();
    for (const f of fns) {
      const inside = fns.find((g) => g.start > f.start && g.start < f.end);
      assert.equal(inside, undefined, `${name}: ${f.name} overlaps ${inside?.name}`);
      if (/^\.plt/.test(image.sectionAt(f.start)?.name ?? "")) {
        assert.ok(f.flags.includes("import"), `${name}: ${f.name} in the PLT is an import stub`);
        assert.ok(f.flags.includes("thunk"), `${name}: ${f.name} is a thunk`);
        assert.ok(f.end - f.start <= 16, `${name}: ${f.name} is one PLT entry long`);
      }
    }
    const stubs = image.imports.filter((i) =>
      /^\.plt/.test(image.sectionAt(i.address)?.name ?? "")
    );
    assert.ok(stubs.length >= 4, name);
  }
});

Deno.test("xrefs to an import are its callers, not the stub's own jump", async () => {
  const image = openFixture("elf_x86_64_cet");
  const a = await analyzeFixture("elf_x86_64_cet");
  const puts = image.imports.find((i) => i.name === "puts")!;
  const stub = a.functionStartingAt(puts.address)!;
  const refs = a.xrefsTo(puts.address);
  assert.ok(refs.length > 0);
  for (const x of refs) {
    assert.ok(x.from < stub.start || x.from >= stub.end, `0x${x.from.toString(16)} is the stub`);
  }
  assert.equal(a.functionAt(refs[0]!.from)?.name, "main");
});

Deno.test("a string right after a printable byte of other data starts where code uses it", async () => {
  const a = await analyzeFixture("elf_x86_64_cet");
  const texts = a.strings().map((s) => s.text);
  assert.ok(texts.includes("memory exhausted"), JSON.stringify(texts));
  assert.ok(!texts.some((t) => t.endsWith("memory exhausted") && t !== "memory exhausted"));
});

Deno.test("the time budget stops analyze() in its first phase once the deadline is past", async () => {
  const image = openFixture(X64);
  const decoder = await createDecoder(image.arch, { endian: image.endian });
  const phases: string[] = [];
  await assert.rejects(
    analyze(image, decoder, {
      deadline: performance.now() - 1,
      onProgress: (_f, m) => phases.push(m),
    }),
    (e: unknown) => e instanceof Error && e.name === "TimeoutError",
  );
  assert.deepEqual(phases, []);
});

Deno.test("the time budget stops even one long synchronous exploration that never yields", async () => {
  // 16 MB of nops: one function with millions of instructions. With yields switched off only
  // the checks inside exploration can stop it.
  const image = openImage(new Uint8Array(16 << 20).fill(0x90), {
    raw: true,
    arch: "x86_64",
    base: 0x1000,
  });
  const decoder = await createDecoder(image.arch, { endian: image.endian });
  await assert.rejects(
    analyze(image, decoder, { yieldEvery: 1e9, deadline: performance.now() + 50 }),
    (e: unknown) => e instanceof Error && e.name === "TimeoutError",
  );
});

Deno.test("a jmp straight before alignment padding is a tail call to the function after it", async () => {
  // 0x1000: call 0x1010; ret — 0x1010: mov esi, 1; jmp 0x1020; nop padding — 0x1020: push rbx;
  // mov eax, esi; pop rbx; ret. No symbols, no unwind entries.
  const b = new Uint8Array(0x30).fill(0x90);
  b.set([0xe8, 0x0b, 0, 0, 0, 0xc3], 0);
  b.set([0xbe, 1, 0, 0, 0, 0xeb, 0x09], 0x10);
  b.set([0x53, 0x89, 0xf0, 0x5b, 0xc3], 0x20);
  const image = openImage(b, { raw: true, arch: "x86_64", base: 0x1000 });
  const a = await analyze(image, await createDecoder("x86_64", {}));
  const starts = a.functions().map((f) => f.start.toString(16));
  assert.deepEqual(starts, ["1000", "1010", "1020"]);
  assert.equal(a.functionStartingAt(0x1010)!.end, 0x1017);
});

Deno.test("zero-filled code costs work in proportion to its size on every ISA", async () => {
  // Zeros decode as `add [rax], al` on x86, `udf` on AArch64, `nop` on MIPS, invalid on RISC-V
  // and PowerPC: each ISA takes a different path through exploration and the gap scan.
  for (const arch of ["x86_64", "aarch64", "arm", "mips", "riscv64", "ppc64"]) {
    const work: number[] = [];
    for (const kib of [64, 256]) {
      const image = openImage(new Uint8Array(kib << 10), { raw: true, arch, base: 0x10000 });
      const inner = await createDecoder(image.arch, { endian: image.endian });
      let n = 0;
      // Every instruction decoded or formatted is work; a quadratic path re-decodes.
      const decoder: Decoder = {
        arch: inner.arch,
        mode: inner.mode,
        decode: (bytes, address, options) => {
          const out = inner.decode(bytes, address, options);
          n += out.length;
          return out;
        },
        format: (bytes, address, insn) => {
          n++;
          return inner.format(bytes, address, insn);
        },
        dispose: () => inner.dispose(),
      };
      await analyze(image, decoder);
      work.push(n);
      inner.dispose();
    }
    const [small, big] = work as [number, number];
    assert.ok(big <= 4 * small * 1.25 + 1024, `${arch}: ${small} then ${big} instructions`);
  }
});

Deno.test("RISC-V: a lui/addi pair is an address only where the file loads at a fixed address", () => {
  // lui a5, 0x20; addi a5, a5, 32 = 0x20020 (zstd's masks); auipc a5, 0; addi a5, a5, 32 = pc + 32.
  const pair = (hi: number) => {
    const b = new Uint8Array(8);
    const v = new DataView(b.buffer);
    v.setUint32(0, hi, true);
    v.setUint32(4, 0x02078793, true); // addi a5, a5, 32
    return b;
  };
  const insn = { address: 0x1004, size: 4 } as Parameters<typeof riscvPairPointer>[1];
  const files: [string, string][] = [
    ["elf_riscv64_switch_gcc_O2", "DYN"],
    ["elf_riscv64_switch_gcc_O2_nopie", "EXEC"],
  ];
  for (const [name, type] of files) {
    const image = openFixture(name);
    assert.equal(image.info.elf_type, type);
    image.read = () => pair(0x000207b7); // lui a5, 0x20
    assert.equal(riscvPairPointer(image, insn), type === "DYN" ? undefined : 0x20020, name);
    image.read = () => pair(0x00000797); // auipc a5, 0
    assert.equal(riscvPairPointer(image, insn), 0x1000 + 32, name);
  }
});
