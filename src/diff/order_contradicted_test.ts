import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";
import { ORDER_CONTRADICTED_DEFAULTS, orderContradicted } from "./order_contradicted.ts";

/**
 * `n` named callers call x in a; in b only the first `agreeing` of them call y, the rest call z.
 * The callers are paired by name; x ↔ y is given as `round`.
 */
function program(n: number, agreeing: number, round: string, similar = false) {
  const callers = () => Array.from({ length: n }, (_, k) => fn(`c${k}`));
  const a = [...callers(), fn("sub_x")];
  // Similar: y has x's features (its own address).
  const y = similar ? { ...a[n]!, name: "sub_y", start: fn("sub_y").start } : fn("sub_y");
  const b = [...callers(), y, fn("sub_z")];
  for (const c of a.slice(0, n)) calls(c, a[n]!);
  b.slice(0, n).forEach((c, k) => calls(c, k < agreeing ? b[n]! : b[n + 1]!));
  const s = new MatchState(a, b);
  for (let k = 0; k < n; k++) s.pair(k, k, "name");
  s.pair(n, n, round);
  return { s, pair: s.matches.at(-1)! };
}

Deno.test("orderContradicted() names a pair of address order most of many neighbours disagree with", () => {
  const { s, pair } = program(10, 1, "sequence:similarity");
  assert.deepEqual(orderContradicted(s, ORDER_CONTRADICTED_DEFAULTS), [pair]);
  // It takes nothing back itself.
  assert.equal(s.matches.length, 11);
});

Deno.test("orderContradicted() trusts address order where the call graph has little to say", () => {
  // Three callers, none agreeing: too few neighbours to outweigh address order.
  assert.deepEqual(orderContradicted(program(3, 0, "sequence").s, ORDER_CONTRADICTED_DEFAULTS), []);
});

Deno.test("orderContradicted() keeps pairs that enough neighbours agree with", () => {
  // 4 of 10 callers agree: 2·4 / (10 + 4) = 0.57.
  assert.deepEqual(
    orderContradicted(program(10, 4, "sequence").s, ORDER_CONTRADICTED_DEFAULTS),
    [],
  );
});

Deno.test("orderContradicted() looks only at its rounds and below its trusted similarity", () => {
  const other = program(10, 1, "anchors");
  assert.deepEqual(orderContradicted(other.s, ORDER_CONTRADICTED_DEFAULTS), []);
  const alike = program(10, 1, "sequence", true);
  assert.ok(alike.pair.similarity >= ORDER_CONTRADICTED_DEFAULTS.trustSimilarity);
  assert.deepEqual(orderContradicted(alike.s, ORDER_CONTRADICTED_DEFAULTS), []);
});
