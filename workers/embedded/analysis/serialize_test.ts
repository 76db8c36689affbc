import assert from "node:assert/strict";
import { deserializeAnalysis, serializeAnalysis } from "./serialize.ts";
import { analyzeFixture, openFixture } from "./_test_fixtures.ts";
import { Analysis } from "./analysis.ts";
import { ANALYSIS_VERSION, type AnalysisData, type NameEntry } from "./types.ts";
import { XrefTable } from "./xref_table.ts";

/**
 * The data as plain values: functions read from the cache make blocks and edges lazily, and
 * cross-reference columns come back as u32 when the addresses fit.
 */
function plain(d: AnalysisData) {
  const x = d.xrefs;
  return {
    ...d,
    xrefs: { from: [...x.from], to: [...x.to], kind: [...x.kind], byTo: [...x.byTo] },
    functions: d.functions.map((f) => ({
      start: f.start,
      end: f.end,
      name: f.name,
      source: f.source,
      flags: f.flags,
      blocks: f.blocks,
      chunks: f.chunks,
      edges: f.edges,
    })),
  };
}

Deno.test("deserializeAnalysis() restores what serializeAnalysis() wrote", async () => {
  const a = await analyzeFixture("elf_x86_64_gcc_O2");
  const bytes = serializeAnalysis(a);
  const b = deserializeAnalysis(bytes, openFixture("elf_x86_64_gcc_O2"));
  assert.deepEqual(plain(b.data), plain(a.data));
  const main = b.functionByName("main")!;
  assert.deepEqual(
    b.callees(main).map((f) => f.name),
    a.callees(a.functionByName("main")!).map((f) => f.name),
  );
  assert.deepEqual(b.xrefsTo(main.start), a.xrefsTo(a.functionByName("main")!.start));
  // A blob at an odd offset of a bigger buffer (as a database driver may hand it over).
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  const c = deserializeAnalysis(shifted.subarray(3), openFixture("elf_x86_64_gcc_O2"));
  assert.deepEqual(plain(c.data), plain(a.data));
});

Deno.test("deserializeAnalysis() rejects another format, version or a truncated blob", async () => {
  const image = openFixture("elf_x86_64_gcc_O2");
  // The JSON of the format before typed columns.
  const old = new TextEncoder().encode(JSON.stringify({ v: 4, f: [] }));
  assert.throws(() => deserializeAnalysis(old, image), TypeError);
  const bytes = serializeAnalysis(await analyzeFixture("elf_x86_64_gcc_O2"));
  assert.throws(() => deserializeAnalysis(bytes.subarray(0, bytes.length - 9), image), TypeError);
  const other = bytes.slice();
  new DataView(other.buffer).setUint32(4, 999, true);
  assert.throws(() => deserializeAnalysis(other, image), TypeError);
});

Deno.test("addresses past 4 GiB survive the cache (as f64 columns)", () => {
  const image = openFixture("elf_x86_64_gcc_O2");
  const at = 0x1_0000_1000;
  const data: AnalysisData = {
    version: ANALYSIS_VERSION,
    arch: "x86_64",
    functions: [{
      start: at,
      end: at + 8,
      name: "far",
      source: "symbol",
      flags: ["leaf"],
      blocks: [{ start: at, end: at + 8 }],
      chunks: [],
      edges: [{ from: at, to: at + 4, kind: "case", value: 3 }],
    }],
    xrefs: XrefTable.of([{ from: at, to: at + 0x100, kind: "read" }]),
    strings: [],
    names: [{ address: at, name: "far", kind: "function" }, {
      address: at + 4,
      name: `loc_${(at + 4).toString(16).toUpperCase()}`,
      kind: "label",
    }],
    seconds: 0.5,
  };
  const b = deserializeAnalysis(serializeAnalysis(new Analysis(data, image)), image);
  assert.deepEqual(plain(b.data), plain(data));
  assert.deepEqual(b.xrefsTo(at + 0x100), [{ from: at, to: at + 0x100, kind: "read" }]);
});

Deno.test("names answer alike fresh and from the cache, as a map of every name would", async () => {
  const a = await analyzeFixture("elf_x86_64_gcc_O0_stripped");
  const b = deserializeAnalysis(serializeAnalysis(a), openFixture("elf_x86_64_gcc_O0_stripped"));
  // The reference: every entry in a map, the best kind per address, the first entry per name.
  const rank = ["function", "import", "symbol", "object", "import_slot", "string", "label"];
  const best = new Map<number, NameEntry>();
  const first = new Map<string, number>();
  for (const n of a.data.names) {
    const cur = best.get(n.address);
    if (cur === undefined || rank.indexOf(n.kind) < rank.indexOf(cur.kind)) best.set(n.address, n);
    if (!first.has(n.name)) first.set(n.name, n.address);
  }
  assert.ok(a.data.names.some((n) => n.kind === "label"), "the fixture has labels");
  for (const x of [a, b]) {
    for (const [address, n] of best) assert.equal(x.nameAt(address), n.name);
    for (const [name, address] of first) assert.equal(x.lookup(name), address);
    assert.equal(x.nameAt(0x7fffffff), undefined);
    assert.equal(x.lookup("loc_ABC"), 0xabc);
  }
});
