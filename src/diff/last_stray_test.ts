import assert from "node:assert/strict";
import { fn } from "./_test_features.ts";
import { lastStrayCheck } from "./last_stray.ts";
import { MatchState } from "./match_state.ts";

/** Two builds of `n` functions in the same order, all but `free` paired with their own copy. */
function sameOrder(n: number, free: number[]): MatchState {
  const a = Array.from({ length: n }, (_, k) => fn(`f${k}`));
  const b = Array.from({ length: n }, (_, k) => fn(`f${k}`));
  const s = new MatchState(a, b);
  for (let k = 0; k < n; k++) if (!free.includes(k)) s.pair(k, k, "bytes");
  return s;
}

Deno.test("lastStrayCheck() withdraws and bans a position pair far from its neighbours' order", () => {
  const s = sameOrder(200, [50, 150, 60, 61]);
  s.pair(50, 150, "anchors:last");
  s.pair(60, 61, "anchors");
  s.pair(61, 60, "strings");
  const out = lastStrayCheck(s, { rounds: ["anchors"], factor: 12, floor: 64 });
  assert.deepEqual(out.map((m) => [m.a, m.b]), [[50, 150]]);
  assert.equal(s.partnerA[50], -1);
  assert.equal(s.partnerB[150], -1);
  // Never made again.
  s.pair(50, 150, "anchors");
  assert.equal(s.partnerA[50], -1);
  // The crossed neighbours one place off stay.
  assert.equal(s.partnerA[60], 61);
  assert.equal(s.partnerA[61], 60);
});

Deno.test("lastStrayCheck() leaves the pairs of other rounds wherever they are", () => {
  const s = sameOrder(200, [50, 150]);
  s.pair(50, 150, "strings");
  assert.deepEqual(lastStrayCheck(s, { rounds: ["anchors"], factor: 12, floor: 64 }), []);
  assert.equal(s.partnerA[50], 150);
});
