import assert from "node:assert/strict";
import { parsePe } from "./pe.ts";
import { fixture, num, records } from "./_testing.ts";
import { hostilePe } from "./_hostile_pe.ts";
import { CODE_ZERO_FILL } from "./_extent.ts";

const PE_FIXTURES = [
  "pe_i386_O2.exe",
  "pe_x86_64_O2.exe",
  "pe_x86_64_dlluser.exe",
  "remcp_dll.dll",
];

Deno.test("parsePe() reads headers and sections per the truth files", () => {
  for (const name of PE_FIXTURES) {
    const f = fixture(name, "PE headers");
    if (!f) continue;
    const img = parsePe(f.bytes);
    assert.equal(img.imageBase, num(f.truth.image_base), name);
    assert.equal(img.entry, num(f.truth.entry), name);
    assert.equal(img.bits, f.truth.pe32plus ? 64 : 32, name);
    for (const s of records(f.truth.sections)) {
      const mine = img.sections.find((x) => x.start === num(s.addr));
      assert.ok(mine, `${name} ${String(s.name)}`);
      assert.equal(mine.fileOffset, num(s.offset), `${name} ${String(s.name)}`);
      assert.equal(mine.end - mine.start, num(s.virtual_size), `${name} ${String(s.name)}`);
    }
    assert.deepEqual(img.info.warnings, [], name);
  }
});

Deno.test("parsePe() lists imports by name and by ordinal with their IAT slots", () => {
  for (const name of PE_FIXTURES) {
    const f = fixture(name, "PE imports");
    if (!f) continue;
    const img = parsePe(f.bytes);
    for (const dll of records(f.truth.imports)) {
      const syms = records(dll.symbols);
      syms.forEach((s, i) => {
        const slot = img.imageBase + num(dll.iat_rva) + i * (img.bits / 8);
        const imp = img.imports.find((x) => x.slot === slot);
        assert.ok(imp, `${name} ${String(dll.dll)} #${i}`);
        assert.equal(imp.library, dll.dll);
        if (s.name !== undefined) assert.equal(imp.name, s.name);
        else assert.equal(imp.ordinal, s.ordinal);
      });
    }
  }
});

Deno.test("parsePe() lists exports by name, ordinal only and forwarders", () => {
  const f = fixture("remcp_dll.dll", "PE exports");
  if (!f) return;
  const img = parsePe(f.bytes);
  const truth = records(f.truth.exports);
  assert.equal(img.exports.length, truth.length);
  for (const t of truth) {
    const e = img.exports.find((x) => x.ordinal === t.ordinal);
    assert.ok(e, `ordinal ${String(t.ordinal)}`);
    assert.equal(e.address, img.imageBase + num(t.rva));
    if (t.name !== undefined) assert.equal(e.name, t.name);
    assert.equal(e.forwarder, t.forwarder);
  }
  assert.equal(img.info.dll, true);
  assert.equal(img.info.dll_name, "remcp_dll.dll");
});

Deno.test("parsePe() turns .pdata into function ranges and keeps mingw COFF symbols", () => {
  const f = fixture("pe_x86_64_O2.exe", "PE pdata");
  if (!f) return;
  const img = parsePe(f.bytes);
  assert.ok(img.functionHints.length > 10);
  for (const h of img.functionHints) {
    assert.equal(h.source, "pdata");
    assert.ok(h.end !== undefined && h.end > h.start && img.sectionAt(h.start)?.kind === "code");
  }
  for (const fn of records(f.truth.functions).slice(0, 50)) {
    assert.ok(
      img.symbols.some((s) => s.name === fn.name && s.address === num(fn.address)),
      String(fn.name),
    );
  }
  assert.ok(img.entryPoints.some((e) => e.kind === "tls"), "mingw images have TLS callbacks");
  assert.ok(img.relocations.some((r) => r.target !== undefined));
});

Deno.test("parsePe() keeps one page past the file's bytes of a section claiming 4 GiB", () => {
  const f = fixture("pe_x86_64_O2.exe", "hostile PE");
  if (!f) return;
  for (const sizeOfImage of [false, true]) {
    const img = parsePe(hostilePe(f.bytes, { sizeOfImage }));
    const text = img.sections.find((s) => s.name === ".text")!;
    assert.ok(
      text.end - text.start <= 6 * 1024 + CODE_ZERO_FILL,
      `.text kept ${text.end - text.start}`,
    );
    assert.match(JSON.stringify(img.info.warnings), /\.text claims 0xffffffff bytes/);
  }
});
