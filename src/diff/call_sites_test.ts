import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { callSiteCheck, placeIn } from "./call_sites.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";

/**
 * zstd's `HUF_compressCTable_internal` calls `HUF_compress1X_usingCTable` or `…4X…`, each one
 * tail call whose bytes are equal once the target is masked: [caller, pre, one, four, post].
 */
function side(tag: string): FunctionFeatures[] {
  const tail = { instructions: 2, bytes_hash: "xor;jmp", mnem_hash: "tail", mnem_set_hash: "tail" };
  const fs = [
    fn(`caller_${tag}`),
    fn(`pre_${tag}`),
    fn(`one_${tag}`, tail),
    fn(`four_${tag}`, tail),
    fn(`post_${tag}`),
  ];
  calls(fs[0]!, fs[1]!, fs[2]!, fs[3]!, fs[4]!);
  return fs;
}

const pairs = (s: MatchState) => s.matches.map((m) => [m.a, m.b, m.round]);

Deno.test("callSiteCheck() moves a pair of twins to where the matched caller calls it", () => {
  const s = new MatchState(side("a"), side("b"));
  for (const k of [0, 1, 4]) s.pair(k, k, "name");
  s.pair(2, 3, "call_graph:bytes");
  const gone = callSiteCheck(s, "call_sites");
  assert.deepEqual(gone.map((m) => [m.a, m.b]), [[2, 3]]);
  assert.deepEqual(pairs(s).slice(3), [[2, 2, "call_sites"]]);
});

Deno.test("callSiteCheck() keeps a pair its call sites confirm and pairs of other rounds", () => {
  const s = new MatchState(side("a"), side("b"));
  for (const k of [0, 1, 4]) s.pair(k, k, "name");
  s.pair(2, 2, "bytes");
  s.pair(3, 3, "anchors");
  assert.deepEqual(callSiteCheck(s, "call_sites"), []);
  assert.equal(s.matches.length, 5);
});

Deno.test("callSiteCheck() withdraws a pair whose call sites disagree: a tie", () => {
  const a = side("a");
  const b = side("b");
  // A second matched caller calls only `four` in a but `one` in b.
  const second = [fn("second_a"), fn("second_b")];
  calls(second[0]!, a[3]!);
  calls(second[1]!, b[2]!);
  const s = new MatchState([...a, second[0]!], [...b, second[1]!]);
  for (const k of [0, 1, 4, 5]) s.pair(k, k, "name");
  s.pair(3, 3, "bytes");
  const gone = callSiteCheck(s, "call_sites");
  assert.deepEqual(gone.map((m) => [m.a, m.b]), [[3, 3]]);
  assert.equal(s.partnerA[3], -1);
  assert.equal(s.partnerB[3], -1);
});

Deno.test("placeIn() needs a gap of equal length around the call", () => {
  const none = () => -1;
  assert.equal(placeIn([1, 2, 3], [11, 12, 13], 2, none), 12);
  assert.equal(placeIn([1, 2, 3], [11, 12], 2, none), undefined);
  // 1 ↔ 11 anchors; 2 sits right after it on both sides, whatever follows.
  const anchored = (k: number) => k === 1 ? 11 : -1;
  assert.equal(placeIn([1, 2], [11, 12, 13, 14], 2, anchored), undefined);
  assert.equal(placeIn([0, 1, 2, 3], [10, 11, 12, 13], 2, anchored), 12);
  assert.equal(placeIn([1, 3], [11, 12], 2, anchored), undefined);
});
