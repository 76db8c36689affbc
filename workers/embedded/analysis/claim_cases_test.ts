/** claimCases: which weakly found starts a resolved switch takes back as its cases. */
import assert from "node:assert/strict";
import { AddrSet } from "./_addr_set.ts";
import type { FunctionSeed } from "./_build.ts";
import { claimCases } from "./_claim_cases.ts";
import type { InsnEdge, SwitchTable, Trace } from "./_explore.ts";
import type { FunctionSource } from "./types.ts";

function trace(start: number, insns: number[], edges: InsnEdge[] = []): Trace {
  return {
    start,
    insns: new AddrSet(insns),
    leaders: new AddrSet([start]),
    enders: new AddrSet([]),
    edges,
    calls: [],
    codePointers: [],
    dataInCode: [],
    inlineTables: [],
    mayReturn: true,
    bad: false,
    switches: 0,
  };
}

/**
 * A switch function at 0x1000 (jump at 0x1010) whose cases 0x1100 and 0x1200 were found as data
 * pointers, 0x1180 a tail-jump start only the case at 0x1100 jumped to, a real function at 0x2000
 * found through a call and a pointer-found one at 0x3000 after it.
 */
function setUp(sw: SwitchTable) {
  const sources: [number, FunctionSource][] = [
    [0x1000, "call"],
    [0x1100, "data_pointer"],
    [0x1180, "tail_jump"],
    [0x1200, "data_pointer"],
    [0x2000, "call"],
    [0x3000, "data_pointer"],
  ];
  const seeds = new Map<number, FunctionSeed>(
    sources.map(([start, source]) => [start, { start, source, extra: [] }]),
  );
  const traces = new Map<number, Trace>(sources.map(([s]) => [s, trace(s, [s])]));
  traces.set(0x1000, trace(0x1000, [0x1000, 0x1010]));
  traces.set(0x1100, trace(0x1100, [0x1100], [{ from: 0x1100, to: 0x1180, kind: "tail" }]));
  const dropped: number[] = [];
  const rerun = claimCases({
    seeds,
    traces,
    switches: new Map([[0x1010, sw]]),
    // Without the cases as functions, the switch function reaches them all.
    run: (s) => trace(s.start, [s.start, 0x1010, 0x1100, 0x1180, 0x1200]),
    drop: (start) => {
      seeds.delete(start);
      dropped.push(start);
    },
  });
  return { dropped: dropped.sort((x, y) => x - y), rerun: [...rerun] };
}

Deno.test("claimCases() drops the weak starts among a bounded table's cases", () => {
  const { dropped, rerun } = setUp({ table: 0x9000, targets: [0x1100, 0x1200], bounded: true });
  assert.deepEqual(dropped, [0x1100, 0x1180, 0x1200]);
  assert.deepEqual(rerun, [0x1000]);
});

Deno.test("claimCases() keeps starts past the next well-founded one", () => {
  // An entry beyond the function (a misread table) claims nothing past the call target 0x2000.
  const sw = { table: 0x9000, targets: [0x1100, 0x3000], bounded: true };
  assert.deepEqual(setUp(sw).dropped, [0x1100, 0x1180]);
});

Deno.test("claimCases() trusts an unbounded table only when its index's mask caps it", () => {
  // Read while entries looked like code, the table may have run on into the next one.
  const loose = { table: 0x9000, targets: [0x1100, 0x1200], bounded: false };
  assert.deepEqual(setUp(loose).dropped, []);
  assert.deepEqual(setUp({ ...loose, capped: true }).dropped, [0x1100, 0x1180, 0x1200]);
});
