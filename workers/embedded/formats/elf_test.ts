import assert from "node:assert/strict";
import { parseElf } from "./elf.ts";
import { fixture, isElfFile, num, readelf, readOrSkip, records } from "./_testing.ts";

/** A few system ELF files: /bin/ls, some /usr/bin tools and shared libraries. */
function systemElfs(): string[] {
  const picks = ["/bin/ls", "/usr/bin/readelf", "/usr/bin/find", "/usr/bin/tar"];
  try {
    const libs = [...Deno.readDirSync("/usr/lib/x86_64-linux-gnu")]
      .filter((e) => e.isFile && /^lib(c|z|ssl|crypto|stdc\+\+)\.so/.test(e.name))
      .map((e) => `/usr/lib/x86_64-linux-gnu/${e.name}`)
      .slice(0, 4);
    picks.push(...libs);
  } catch { /* no multiarch lib folder */ }
  return picks.filter(isElfFile);
}

function readelfSections(path: string): { name: string; addr: number; size: number }[] | undefined {
  const out = readelf(["-S", path], "readelf sections");
  if (out === undefined) return undefined;
  const rows: { name: string; addr: number; size: number }[] = [];
  for (const line of out.split("\n")) {
    const m = line.match(
      /^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)/,
    );
    if (!m || m[1] === "0") continue;
    rows.push({ name: m[2]!, addr: parseInt(m[4]!, 16), size: parseInt(m[6]!, 16) });
  }
  return rows;
}

Deno.test("parseElf() matches readelf on system binaries: sections, entry, needed, build-id", () => {
  const files = systemElfs();
  if (files.length === 0) return void console.error("skipped: no system ELF files");
  for (const path of files) {
    const bytes = readOrSkip(path, "system ELF");
    if (!bytes) continue;
    const img = parseElf(bytes);
    assert.deepEqual(img.info.warnings, [], path);
    const secs = readelfSections(path);
    if (!secs) return;
    assert.deepEqual(img.sections.map((s) => s.name), secs.map((s) => s.name), path);
    for (const s of secs) {
      const mine = img.sections.find((x) => x.name === s.name)!;
      if (mine.kind !== "other") assert.equal(mine.start, s.addr, `${path} ${s.name}`);
    }
    const header = readelf(["-h", path], "readelf header")!;
    const entry = parseInt(header.match(/Entry point address:\s+0x([0-9a-f]+)/)![1]!, 16);
    assert.equal(img.entry ?? 0, entry, path);
    const dynamic = readelf(["-d", path], "readelf dynamic")!;
    const needed = [...dynamic.matchAll(/Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
    assert.deepEqual(img.info.needed ?? [], needed, path);
    const notes = readelf(["-n", path], "readelf notes")!;
    const id = notes.match(/Build ID: ([0-9a-f]+)/)?.[1];
    assert.equal(img.info.build_id, id, path);
    // Every JUMP_SLOT relocation's symbol is an import at a PLT stub or GOT slot.
    const relocs = readelf(["-r", path], "readelf relocs")!;
    const slots = [
      ...relocs.matchAll(/^([0-9a-f]+)\s+\S+\s+R_X86_64_JUMP_SLOT\s+\S+\s+([^@\s]+)/gm),
    ];
    for (const [, slot, name] of slots) {
      const imp = img.imports.find((i) => i.slot === parseInt(slot!, 16));
      assert.equal(imp?.name, name, `${path} slot ${slot}`);
    }
  }
});

Deno.test("parseElf() finds one function hint per .eh_frame FDE like readelf", () => {
  const bytes = readOrSkip("/bin/ls", "eh_frame");
  const out = bytes && readelf(["--debug-dump=frames", "/bin/ls"], "eh_frame");
  if (!bytes || out === undefined) return;
  const fdes = [...out.matchAll(/FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g)]
    .map((m) => `${parseInt(m[1]!, 16)}-${parseInt(m[2]!, 16)}`);
  const img = parseElf(bytes);
  assert.deepEqual(img.functionHints.map((h) => `${h.start}-${h.end}`), fdes);
});

Deno.test("parseElf() names PLT stubs on every fixture ISA like objdump", () => {
  for (
    const name of [
      "elf_x86_64_gcc_O2",
      "elf_x86_64_clang_O2",
      "elf_i386_gcc_O2",
      "elf_aarch64_gcc_O2",
      "elf_arm_gcc_O2",
      "elf_riscv64_gcc_O2",
      "elf_ppc64le_gcc_O2",
    ]
  ) {
    const f = fixture(name, "PLT naming");
    if (!f) continue;
    const img = parseElf(f.bytes);
    const byAddr = new Map(img.imports.map((i) => [i.address, i.name]));
    for (const p of records(f.truth.plt)) {
      assert.equal(byAddr.get(num(p.address)), p.name, `${name} ${String(p.address)}`);
    }
    assert.equal(img.entry, num(f.truth.entry) & ~1, name);
  }
});

Deno.test("parseElf() reads fixture sections, symbols and imports per the truth files", () => {
  for (
    const name of ["elf_x86_64_gcc_O0", "elf_mips_gcc_O2", "elf_arm_gcc_O2", "elf_riscv64_gcc_O2"]
  ) {
    const f = fixture(name, "ELF fixtures");
    if (!f) continue;
    const img = parseElf(f.bytes);
    for (const s of records(f.truth.sections)) {
      const mine = img.sections.find((x) => x.name === s.name);
      assert.ok(mine, `${name} ${String(s.name)}`);
      if (String(s.flags).includes("A")) {
        assert.equal(mine.start, num(s.addr), `${name} ${String(s.name)}`);
      }
    }
    for (const fn of records(f.truth.functions)) {
      const sym = img.symbols.find((s) => s.name === fn.name && s.address === num(fn.address));
      assert.ok(sym, `${name} function ${String(fn.name)}`);
      assert.equal(sym.kind, "function");
    }
    const importNames = new Set(img.imports.map((i) => i.name));
    for (const imp of records(f.truth.imports)) {
      if (imp.type !== "FUNC") continue;
      assert.ok(
        importNames.has(String(imp.name).split("@")[0]!),
        `${name} import ${String(imp.name)}`,
      );
    }
    assert.deepEqual(img.info.warnings, [], name);
  }
});

Deno.test("parseElf() knows Thumb code on ARM from mapping symbols", () => {
  const f = fixture("elf_arm_gcc_O2", "Thumb");
  if (!f) return;
  const img = parseElf(f.bytes);
  assert.equal(img.thumb, true);
  for (const fn of records(f.truth.functions)) {
    if (fn.thumb === true) assert.equal(img.isThumb?.(num(fn.address)), true, String(fn.name));
  }
  // The PLT is ARM code.
  const plt = img.sections.find((s) => s.name === ".plt")!;
  assert.equal(img.isThumb?.(plt.start + 20), false);
});

Deno.test("parseElf() uses .eh_frame_hdr when sections are gone and records init arrays", () => {
  const f = fixture("elf_x86_64_gcc_O2_stripped", "eh_frame_hdr");
  if (!f) return;
  const img = parseElf(f.bytes);
  assert.ok(img.functionHints.length > 10);
  assert.ok(img.entryPoints.some((e) => e.kind === "init" && e.name === "init_array_0"));
  assert.equal(img.info.interpreter, "/lib64/ld-linux-x86-64.so.2");
});

Deno.test("parseElf() refuses a 64-bit segment at or above 2^53", () => {
  const f = fixture("elf_x86_64_gcc_O2", "2^53");
  if (!f) return;
  const b = f.bytes.slice();
  const dv = new DataView(b.buffer);
  const phoff = Number(dv.getBigUint64(32, true));
  for (let i = 0; i < dv.getUint16(56, true); i++) {
    const o = phoff + i * 56;
    if (dv.getUint32(o, true) === 1) dv.setBigUint64(o + 16, 0xffffffff80000000n, true);
  }
  assert.throws(() => parseElf(b), (e: unknown) => e instanceof Error && /2\^53/.test(e.message));
});

// How fast is bench/'s business (tests must pass on a busy machine): this one checks that the
// largest library parses at all, with its symbols, exports and unwind entries.
Deno.test("parseElf() parses the largest system shared library", () => {
  let best: { path: string; size: number } | undefined;
  try {
    for (const e of Deno.readDirSync("/usr/lib/x86_64-linux-gnu")) {
      if (!e.isFile || !/\.so(\.|$)/.test(e.name)) continue;
      const path = `/usr/lib/x86_64-linux-gnu/${e.name}`;
      const size = Deno.statSync(path).size;
      if (size <= 200e6 && (!best || size > best.size) && isElfFile(path)) best = { path, size };
    }
  } catch { /* folder absent */ }
  if (!best) return void console.error("skipped: no system shared libraries");
  const bytes = Deno.readFileSync(best.path);
  const img = parseElf(bytes);
  assert.ok(img.symbols.length > 0 && img.functionHints.length > 0, best.path);
  assert.ok(img.exports.length > 0, best.path);
});
