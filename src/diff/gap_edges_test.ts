import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { GAP_EDGE_DEFAULTS, gapEdgeRound } from "./gap_edges.ts";
import { MatchState } from "./match_state.ts";

/** A body of one shape: functions of the same shape are alike, of different shapes unlike. */
const SHAPES: Record<string, Partial<FunctionFeatures>> = {
  loop: { histogram: [9, 1], mnem_hash: "loop", instructions: 40, blocks: 9, edges: 12 },
  flat: { histogram: [1, 9], mnem_hash: "flat", instructions: 8, blocks: 1, edges: 0 },
  call: { histogram: [5, 5, 5], mnem_hash: "call", instructions: 20, blocks: 4, edges: 4 },
};

/** One side: functions in address order, `name:shape` each, every body its own bytes. */
function side(tag: string, specs: string[]): FunctionFeatures[] {
  return specs.map((spec) => {
    const [name, shape] = spec.split(":");
    return fn(`sub_${tag}${name}`, { bytes_hash: `${tag}${name}`, ...SHAPES[shape!] });
  });
}

/** A state with the functions at `given` (index in a, index in b) already paired. */
function state(a: FunctionFeatures[], b: FunctionFeatures[], given: [number, number][]) {
  const s = new MatchState(a, b);
  for (const [i, j] of given) s.pair(i, j, "given");
  return s;
}

const made = (s: MatchState) =>
  s.matches.filter((m) => m.round === GAP_EDGE_DEFAULTS.round).map((m) => [m.a, m.b]);

Deno.test("gapEdgeRound() pairs the first functions of a gap the new release lengthened", () => {
  // b added a function after x: the gap holds one function in a and two in b.
  const a = side("a", ["first:call", "x:loop", "last:call"]);
  const b = side("b", ["first:call", "x:loop", "added:flat", "last:call"]);
  const s = state(a, b, [[0, 0], [2, 3]]);
  assert.equal(gapEdgeRound(s, GAP_EDGE_DEFAULTS), 1);
  assert.deepEqual(made(s), [[1, 1]]);
});

Deno.test("gapEdgeRound() pairs the last functions of a gap from its end", () => {
  // b added a function before y: the front edges are unlike, the back ones alike.
  const a = side("c", ["first:call", "y:loop", "last:call"]);
  const b = side("d", ["first:call", "added:flat", "y:loop", "last:call"]);
  const s = state(a, b, [[0, 0], [2, 3]]);
  assert.equal(gapEdgeRound(s, GAP_EDGE_DEFAULTS), 1);
  assert.deepEqual(made(s), [[1, 2]]);
});

Deno.test("gapEdgeRound() leaves an edge with a rival in the gap as alike", () => {
  const a = side("e", ["first:call", "x:loop", "last:call"]);
  const b = side("f", ["first:call", "x:loop", "copy:loop", "last:call"]);
  const s = state(a, b, [[0, 0], [2, 3]]);
  assert.equal(gapEdgeRound(s, GAP_EDGE_DEFAULTS), 0);
});

Deno.test("gapEdgeRound() leaves an edge whose matched neighbours speak against it", () => {
  // a's x calls the matched helper, b's x calls nothing matched.
  const a = side("g", ["first:call", "x:loop", "last:call", "helper:flat"]);
  const b = side("h", ["first:call", "x:loop", "added:flat", "last:call", "helper:flat"]);
  calls(a[1]!, a[3]!);
  const s = state(a, b, [[0, 0], [2, 3], [3, 4]]);
  assert.equal(gapEdgeRound(s, GAP_EDGE_DEFAULTS), 0);
});

Deno.test("gapEdgeRound() does not walk inwards from its own pairs", () => {
  // After x pairs, y sits at the edge of what is left, next to the pair just made: b added two
  // functions after x, and y is alike the first of them. The second call pairs nothing.
  const a = side("i", ["first:call", "x:loop", "y:call", "last:flat"]);
  const b = side("j", ["first:call", "x:loop", "new1:call", "new2:flat", "z:flat", "last:flat"]);
  const s = state(a, b, [[0, 0], [3, 5]]);
  assert.equal(gapEdgeRound(s, GAP_EDGE_DEFAULTS), 1);
  assert.deepEqual(made(s), [[1, 1]]);
  assert.equal(gapEdgeRound(s, GAP_EDGE_DEFAULTS), 0);
});

Deno.test("gapEdgeRound() leaves gaps of equal length to the gaps round", () => {
  const a = side("k", ["first:call", "x:loop", "last:call"]);
  const b = side("l", ["first:call", "x:loop", "last:call"]);
  const s = state(a, b, [[0, 0], [2, 2]]);
  assert.equal(gapEdgeRound(s, GAP_EDGE_DEFAULTS), 0);
});
