import assert from "node:assert/strict";
import { parseMacho } from "./macho.ts";
import { fixture, num, records } from "./_testing.ts";

for (const name of ["macho_x86_64", "macho_arm64"]) {
  Deno.test(`parseMacho() reads ${name} per its truth file`, () => {
    const f = fixture(name, "Mach-O");
    if (!f) return;
    const img = parseMacho(f.bytes);
    assert.equal(img.entry, num(f.truth.entry));
    assert.deepEqual(img.entryPoints[0], {
      name: "main",
      address: num(f.truth.entry),
      kind: "main",
    });
    assert.deepEqual(img.info.load_commands, f.truth.load_commands);
    assert.deepEqual(img.info.dylibs, f.truth.dylibs);
    for (const s of records(f.truth.segments)) {
      const seg = img.segments.find((x) => x.name === s.name);
      assert.ok(seg, String(s.name));
      assert.equal(seg.start, num(s.vmaddr));
      assert.equal(seg.end - seg.start, num(s.vmsize));
    }
    for (const s of records(f.truth.sections)) {
      const sec = img.sections.find((x) => x.name === `${String(s.segment)},${String(s.name)}`);
      assert.ok(sec, String(s.name));
      assert.equal(sec.start, num(s.addr));
    }
    for (const i of records(f.truth.imports)) {
      const imp = img.imports.find((x) => x.name === i.symbol);
      assert.ok(imp, String(i.symbol));
      assert.equal(imp.library, "/usr/lib/libSystem.B.dylib");
      if (i.section === "__la_symbol_ptr") {
        assert.equal(imp.slot, num(i.address));
        assert.equal(img.sectionAt(imp.address)?.name, "__TEXT,__stubs");
      }
    }
    const exports = new Map(img.exports.map((e) => [e.name, e.address]));
    for (const e of records(f.truth.exports)) {
      assert.equal(exports.get(String(e.name)), num(e.address));
    }
    const starts = img.functionHints.filter((h) => h.source === "function_starts").map((h) =>
      h.start
    );
    assert.deepEqual(starts, (f.truth.function_starts as string[]).map(num));
    assert.deepEqual(img.info.warnings, []);
    if (name === "macho_arm64") assert.ok(img.info.code_signature);
    assert.match(String(img.info.uuid), /^[0-9A-F-]{36}$/);
  });
}

Deno.test("parseMacho() maps __PAGEZERO as a segment but not as memory", () => {
  const f = fixture("macho_x86_64", "PAGEZERO");
  if (!f) return;
  const img = parseMacho(f.bytes);
  assert.ok(img.segments.some((s) => s.name === "__PAGEZERO"));
  assert.equal(img.isMapped(0x1000), false);
  assert.equal(img.read(0, 4), undefined);
  assert.deepEqual([...img.read(img.imageBase, 4)!], [0xcf, 0xfa, 0xed, 0xfe]);
});
