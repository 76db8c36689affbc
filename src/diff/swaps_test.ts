import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";
import { SWAP_DEFAULTS, swapCheck } from "./swaps.ts";

/**
 * zstd's twins: [caller, called, other, leaf] where `caller` calls `called`, nothing calls
 * `other`, and both call `leaf`; `called` and `other` look alike (`shape` of each).
 */
function side(tag: string, called: Partial<FunctionFeatures>, other: Partial<FunctionFeatures>) {
  const fs = [fn(`caller_${tag}`), fn(`called_${tag}`, called), fn(`other_${tag}`, other)];
  const leaf = fn(`leaf_${tag}`);
  calls(fs[0]!, fs[1]!);
  calls(fs[1]!, leaf);
  calls(fs[2]!, leaf);
  return [...fs, leaf];
}

const twin = { mnem_hash: "twin", mnem_set_hash: "twin", instructions: 30 };
const pairs = (s: MatchState) => s.matches.map((m) => [m.a, m.b, m.round]);

/** Both sides as in zstd, with `called` and `other` paired across each other. */
function crossed(a: FunctionFeatures[], b: FunctionFeatures[]): MatchState {
  const s = new MatchState(a, b);
  s.pair(0, 0, "name");
  s.pair(3, 3, "name");
  s.pair(1, 2, "mnemonics");
  s.pair(2, 1, "call_graph:cfg");
  return s;
}

Deno.test("swapCheck() swaps two crossed pairs of look-alikes that the call graph places", () => {
  const s = crossed(side("a", twin, twin), side("b", twin, twin));
  const gone = swapCheck(s, SWAP_DEFAULTS);
  assert.deepEqual(gone.map((m) => [m.a, m.b]), [[1, 2], [2, 1]]);
  assert.deepEqual(pairs(s).slice(2), [[1, 1, "swaps"], [2, 2, "swaps"]]);
  // Taken apart for good.
  assert.ok(s.banned.has(1 * 4 + 2));
});

Deno.test("swapCheck() keeps crossed pairs when swapping costs much similarity", () => {
  // Each pair is equal code; swapped, each would pair unlike bodies.
  const same = { ...twin, bytes_hash: "same" };
  const unlike = { instructions: 90, blocks: 20, edges: 30, bytes_hash: "x", mnem_hash: "x" };
  const s = crossed(side("a", same, unlike), side("b", unlike, same));
  assert.deepEqual(swapCheck(s, SWAP_DEFAULTS), []);
  assert.equal(s.matches.length, 4);
});

Deno.test("swapCheck() keeps crossed pairs when the swap leaves a neighbour disagreeing", () => {
  const a = side("a", twin, twin);
  const b = side("b", twin, twin);
  // A second matched caller calls `called` in a but `other` in b: the call graph is split.
  const second = [fn("second_a"), fn("second_b")];
  calls(second[0]!, a[1]!);
  calls(second[1]!, b[2]!);
  const s = crossed([...a, second[0]!], [...b, second[1]!]);
  s.pair(4, 4, "name");
  assert.deepEqual(swapCheck(s, SWAP_DEFAULTS), []);
});

Deno.test("swapCheck() leaves pairs the call graph confirms", () => {
  const s = new MatchState(side("a", twin, twin), side("b", twin, twin));
  for (const k of [0, 1, 2, 3]) s.pair(k, k, "name");
  assert.deepEqual(swapCheck(s, SWAP_DEFAULTS), []);
});
