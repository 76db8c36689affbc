import assert from "node:assert/strict";
import { budgetClock, WALL_RATE } from "./clock.ts";

Deno.test("budgetClock() never goes back and counts wall time at least at its reduced rate", () => {
  const clock = budgetClock();
  const wall0 = performance.now();
  let last = clock();
  // Work until the wall clock has moved on; every read is at least the previous one.
  while (performance.now() - wall0 < 20) {
    const t = clock();
    assert.ok(t >= last, `${t} after ${last}`);
    last = t;
  }
  const wall = performance.now() - wall0;
  assert.ok(clock() >= wall / WALL_RATE - 1e-9, "a third of the wall time at least");
});
