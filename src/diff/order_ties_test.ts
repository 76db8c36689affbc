import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";
import { ORDER_TIE_DEFAULTS, orderTieRound } from "./order_ties.ts";

// Two look-alikes (a sweep over keys, one over values) that differ only in their bytes.
const sweep = { instructions: 50, blocks: 12, edges: 16, mnem_hash: "S", mnem_set_hash: "SS" };

/**
 * A collector step calls both sweeps, and both call the same helper: the two sweeps share every
 * matched neighbour. `order` is the order the step calls them in.
 */
function program(side: string, order: ("keys" | "values")[]) {
  const step = fn("step");
  const helper = fn("helper");
  const keys = fn(`sub_${side}keys`, { ...sweep, bytes_hash: `${side}k` });
  const values = fn(`sub_${side}values`, { ...sweep, bytes_hash: `${side}v` });
  const byName = { keys, values };
  calls(step, ...order.map((n) => byName[n]));
  calls(keys, helper);
  calls(values, helper);
  return [step, helper, keys, values];
}

/** A state with the step and the helper matched, the sweeps not. */
function tied(a: ReturnType<typeof program>, b: ReturnType<typeof program>) {
  const s = new MatchState(a, b);
  s.pair(0, 0, "given");
  s.pair(1, 1, "given");
  return s;
}

Deno.test("orderTieRound() pairs tied look-alikes by the order their common caller calls them", () => {
  const s = tied(program("a", ["keys", "values"]), program("b", ["keys", "values"]));
  assert.equal(orderTieRound(s, ORDER_TIE_DEFAULTS), 2);
  assert.deepEqual(s.matches.slice(2).map((m) => [m.a, m.b, m.round]), [
    [2, 2, "ties:order"],
    [3, 3, "ties:order"],
  ]);
});

Deno.test("orderTieRound() pairs the first called with the first called", () => {
  // b's step calls values first: a's first (keys) goes with it, whatever the names say.
  const s = tied(program("a", ["keys", "values"]), program("b", ["values", "keys"]));
  assert.equal(orderTieRound(s, ORDER_TIE_DEFAULTS), 2);
  assert.deepEqual(s.matches.slice(2).map((m) => [m.a, m.b]), [[2, 3], [3, 2]]);
});

Deno.test("orderTieRound() follows the call order, not the address order", () => {
  const a = program("a", ["keys", "values"]);
  const b = program("b", ["keys", "values"]);
  // b's step calls the later function first: its keys sweep sits after its values sweep.
  [b[2]!.start, b[3]!.start] = [b[3]!.start, b[2]!.start];
  b[0]!.callees = [b[2]!.start, b[3]!.start];
  b[2]!.callees = [b[1]!.start];
  b[3]!.callees = [b[1]!.start];
  const s = tied(a, b);
  assert.equal(orderTieRound(s, ORDER_TIE_DEFAULTS), 2);
  assert.deepEqual(s.matches.slice(2).map((m) => [m.a, m.b]), [[2, 2], [3, 3]]);
});

Deno.test("orderTieRound() leaves a tie when common callers order it differently", () => {
  const a = program("a", ["keys", "values"]);
  const b = program("b", ["keys", "values"]);
  // A second matched caller calls them the other way round in b only.
  const other = fn("other");
  const otherB = fn("other");
  calls(other, a[2]!, a[3]!);
  calls(otherB, b[3]!, b[2]!);
  const s = new MatchState([...a, other], [...b, otherB]);
  for (const k of [0, 1, 4]) s.pair(k, k, "given");
  assert.equal(orderTieRound(s, ORDER_TIE_DEFAULTS), 0);
});

Deno.test("orderTieRound() leaves a tie that no common caller orders", () => {
  const a = program("a", ["keys", "values"]);
  const b = program("b", ["keys", "values"]);
  // The step is unmatched: the helper is the only anchor, and it orders nothing.
  const s = new MatchState(a, b);
  s.pair(1, 1, "given");
  assert.equal(orderTieRound(s, { ...ORDER_TIE_DEFAULTS, minCommon: 1 }), 0);
});
