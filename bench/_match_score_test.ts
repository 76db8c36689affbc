import assert from "node:assert/strict";
import { scoreMatches } from "./_match_score.ts";

Deno.test("scoreMatches() judges pairs with symbols on both sides and counts truth over found starts", () => {
  const symA = new Map([[1, "f"], [2, "g"], [3, "h"], [4, "k"]]);
  const symB = new Map([[10, "f"], [20, "g"], [30, "h"], [40, "k"]]);
  const s = scoreMatches(
    [[1, 10], [2, 30], [5, 20]],
    symA,
    symB,
    new Set([1, 2, 3]),
    new Set([10, 20, 30, 40]),
  );
  assert.equal(s.truth, 3);
  assert.equal(s.judged, 2);
  assert.equal(s.correct, 1);
  assert.deepEqual(s.wrong, [1]);
  assert.equal(s.precision, 0.5);
  assert.equal(s.recall, 1 / 3);
  assert.equal(s.f1, 0.4);
});
