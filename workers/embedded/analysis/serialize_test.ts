import assert from "node:assert/strict";
import { deserializeAnalysis, serializeAnalysis } from "./serialize.ts";
import { analyzeFixture, openFixture } from "./_test_fixtures.ts";
import { Analysis } from "./analysis.ts";
import { ANALYSIS_VERSION, type AnalysisData } from "./types.ts";
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
