import assert from "node:assert/strict";
import { fn } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";
import { bestMutual } from "./mutual.ts";

Deno.test("bestMutual() pairs a clear mutual best and skips functions of another size", () => {
  const a = [fn("sub_1", { instructions: 100, histogram: [50, 50] })];
  const b = [
    // Identical histogram but a quarter of the size: outside the window, never compared.
    fn("sub_small", { instructions: 25, histogram: [50, 50], mnem_set_hash: "set-sub_1" }),
    fn("sub_b", { instructions: 104, histogram: [52, 50] }),
  ];
  const s = new MatchState(a, b);
  assert.equal(bestMutual(s, [0], [0, 1], 0.6, "similarity"), 1);
  assert.equal(s.partnerA[0], 1);
});

Deno.test("bestMutual() leaves a near tie unmatched", () => {
  const a = [fn("sub_1", { instructions: 100, histogram: [50, 50] })];
  const b = [
    fn("sub_b1", { instructions: 101, histogram: [50, 51] }),
    fn("sub_b2", { instructions: 101, histogram: [51, 50] }),
  ];
  const s = new MatchState(a, b);
  assert.equal(bestMutual(s, [0], [0, 1], 0.6, "similarity"), 0);
});
