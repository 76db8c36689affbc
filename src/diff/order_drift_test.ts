import assert from "node:assert/strict";
import { fn, sameOrder } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";
import { OrderDrift, strayPairs } from "./order_drift.ts";

Deno.test("OrderDrift measures a partner's distance from where its neighbours' partners are", () => {
  // Free a[50] between matched 46–49 and 51–54: their partners' median is b[51].
  const s = sameOrder(120, [50, 110]);
  const d = new OrderDrift(s);
  // The median of eight neighbours is the upper of the middle two: one off in perfect order.
  assert.equal(d.noise, 1);
  assert.equal(d.drift(50, 50), 1);
  assert.equal(d.drift(50, 110), 59);
  assert.equal(d.strays(50, 50, 8, 40), false);
  assert.equal(d.strays(50, 110, 8, 40), true);
});

Deno.test("OrderDrift allows more where the two binaries keep less order", () => {
  // b's functions in another order (a single-file program by another compiler): the trusted
  // pairs themselves stray, and so may a candidate.
  const n = 120;
  const a = Array.from({ length: n }, (_, k) => fn(`f${k}`));
  const b = Array.from({ length: n }, (_, k) => fn(`g${k}`));
  const s = new MatchState(a, b);
  // a[k] ↔ b[(k * 37) % n]: neighbours in a are scattered across b.
  for (let k = 0; k < n; k++) if (k !== 50) s.pair(k, (k * 37) % n, "bytes");
  const d = new OrderDrift(s);
  assert.ok(d.noise > 20);
  const j = (50 * 37) % n;
  assert.equal(d.strays(50, j, 8, 40), false);
});

Deno.test("OrderDrift says nothing of a function with no matched neighbour", () => {
  const s = sameOrder(3, [0, 1, 2]);
  assert.equal(new OrderDrift(s).drift(1, 1), undefined);
  assert.equal(new OrderDrift(s).strays(1, 2, 8, 0), false);
});

Deno.test("strayPairs() finds the pairs of the given rounds far from their neighbours' partners", () => {
  const s = sameOrder(200, [50, 150, 60, 61]);
  s.pair(50, 150, "anchors:weak");
  s.pair(60, 61, "anchors");
  s.pair(61, 60, "strings");
  // a[50] ↔ b[150] is a hundred functions off; the crossed neighbours 60/61 are one off.
  assert.deepEqual([...strayPairs(s, ["anchors"], 12, 64)].map((m) => [m.a, m.b]), [[50, 150]]);
  // Only the rounds asked for.
  assert.equal(strayPairs(s, ["strings"], 12, 64).size, 0);
  // Nothing is taken back: the caller withdraws what it gets.
  assert.equal(s.partnerA[50], 150);
});

Deno.test("strayPairs() does not take pairs of blind rounds for neighbours", () => {
  // a[100] ↔ b[10] sits far from its neighbours' partners; a[96]–a[104], freed and paired by a
  // table with b[6]–b[14], would make it look in place.
  const near = [96, 97, 98, 99, 101, 102, 103, 104];
  const s = sameOrder(200, [100, 10, ...near, ...near.map((k) => k - 90)]);
  s.pair(100, 10, "anchors");
  for (const k of near) s.pair(k, k - 90, "tables");
  assert.equal(strayPairs(s, ["anchors"], 12, 64).size, 0);
  assert.deepEqual(
    [...strayPairs(s, ["anchors"], 12, 64, ["tables"])].map((m) => [m.a, m.b]),
    [[100, 10]],
  );
});
