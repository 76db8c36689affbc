import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";
import { OUTLINED_DEFAULTS, outlinedRound } from "./outlined.ts";

/**
 * a: c calls f, f calls x (f holds the helper inlined). b: c calls f, f calls h, h calls x (the
 * helper outlined). f in b is f of a (alike), h only a part of it. c and x are paired by name, f
 * of a with h as `round`.
 */
function program(round = "anchors") {
  const big = { instructions: 60, blocks: 12, edges: 14, histogram: [30, 30] };
  const a = [fn("c"), fn("sub_f", big), fn("x")];
  const b = [fn("c"), fn("sub_f2", big), fn("sub_h"), fn("x")];
  calls(a[0]!, a[1]!);
  calls(a[1]!, a[2]!);
  calls(b[0]!, b[1]!);
  calls(b[1]!, b[2]!);
  calls(b[2]!, b[3]!);
  return { a, b, round };
}

function state({ a, b, round }: ReturnType<typeof program>) {
  const s = new MatchState(a, b);
  s.pair(0, 0, "name");
  s.pair(2, 3, "name");
  s.pair(1, 2, round);
  return s;
}

Deno.test("outlinedRound() moves a pair from an outlined helper to its caller", () => {
  const s = state(program());
  assert.equal(outlinedRound(s, OUTLINED_DEFAULTS), 1);
  assert.equal(s.partnerA[1], 1);
  assert.equal(s.partnerB[2], -1);
  assert.equal(s.matches.find((m) => m.a === 1)?.round, "outlined");
});

Deno.test("outlinedRound() leaves the pair when a matched caller calls the helper itself", () => {
  const p = program();
  calls(p.b[0]!, p.b[2]!);
  const s = state(p);
  assert.equal(outlinedRound(s, OUTLINED_DEFAULTS), 0);
  assert.equal(s.partnerA[1], 2);
});

Deno.test("outlinedRound() leaves the pair when the caller is less alike than the helper", () => {
  const p = program();
  p.b[2] = { ...p.a[1]!, name: "sub_h", start: p.b[2]!.start, callees: p.b[2]!.callees };
  const s = state(p);
  assert.equal(outlinedRound(s, OUTLINED_DEFAULTS), 0);
  assert.equal(s.partnerA[1], 2);
});

Deno.test("outlinedRound() leaves the pair when the helper has two free callers", () => {
  const p = program();
  const other = fn("sub_g");
  calls(other, p.b[2]!);
  const s = state({ ...p, b: [...p.b, other] });
  assert.equal(outlinedRound(s, OUTLINED_DEFAULTS), 0);
});

Deno.test("outlinedRound() never moves a pair of equal code", () => {
  const s = state(program("bytes"));
  assert.equal(outlinedRound(s, OUTLINED_DEFAULTS), 0);
});

Deno.test("outlinedRound() moves a pair from a helper the old side outlined to its caller", () => {
  // The mirror of program(): a calls the helper, b holds it inlined.
  const { a, b } = program();
  const s = new MatchState(b, a);
  s.pair(0, 0, "name");
  s.pair(3, 2, "name");
  s.pair(2, 1, "anchors");
  assert.equal(outlinedRound(s, OUTLINED_DEFAULTS), 1);
  assert.equal(s.partnerB[1], 1);
  assert.equal(s.partnerA[2], -1);
});
