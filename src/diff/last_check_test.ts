import assert from "node:assert/strict";
import { fn, sameOrder } from "./_test_features.ts";
import { lastCheck, type LastCheckOptions } from "./last_check.ts";
import { MatchState } from "./match_state.ts";

const OPTS: LastCheckOptions = {
  round: "call_sites",
  outscored: { rounds: ["anchors"], margin: 0.1 },
  stray: { rounds: ["anchors"], factor: 12, floor: 64 },
};

Deno.test("lastCheck() withdraws and bans a position pair far from its neighbours' order", () => {
  const s = sameOrder(200, [50, 150, 60, 61]);
  s.pair(50, 150, "anchors:last");
  s.pair(60, 61, "anchors");
  s.pair(61, 60, "strings");
  const out = lastCheck(s, OPTS);
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

Deno.test("lastCheck() leaves the pairs of other rounds wherever they are", () => {
  const s = sameOrder(200, [50, 150]);
  s.pair(50, 150, "strings");
  assert.deepEqual(lastCheck(s, OPTS), []);
  assert.equal(s.partnerA[50], 150);
});

Deno.test("lastCheck() withdraws a position pair a free candidate now outscores", () => {
  // a0 and b0, b1 call nothing; callers p, q, r of a0 are matched to those of b1, and only one
  // of them calls b0: b1 is placed far better, yet a0 was paired with b0.
  const a0 = fn("x", { instructions: 20 });
  const b0 = fn("y", { instructions: 20 });
  const b1 = fn("x2", { instructions: 20 });
  const pa = [fn("p"), fn("q"), fn("r")];
  const pb = [fn("p"), fn("q"), fn("r")];
  for (const p of pa) p.callees = [a0.start];
  pb[0]!.callees = [b0.start, b1.start];
  pb[1]!.callees = [b1.start];
  pb[2]!.callees = [b1.start];
  const s = new MatchState([a0, ...pa], [b0, b1, ...pb]);
  for (let k = 0; k < 3; k++) s.pair(1 + k, 2 + k, "bytes");
  s.pair(0, 0, "anchors");
  const out = lastCheck(s, OPTS);
  assert.deepEqual(out.map((m) => [m.a, m.b]), [[0, 0]]);
  assert.equal(s.partnerA[0], -1);
});
