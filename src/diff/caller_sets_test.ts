import assert from "node:assert/strict";
import { CALLER_SET_DEFAULTS, callerSetRound } from "./caller_sets.ts";
import { calls, fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";

/** One side: `names` in address order, every body its own (nothing alike across sides). */
const side = (tag: string, names: string[]) =>
  names.map((n) => fn(`sub_${tag}${n}`, { bytes_hash: `${tag}${n}`, mnem_hash: `${tag}${n}` }));

/** A state with the functions at the same index in `a` and `b` paired, for each of `given`. */
function state(a: FunctionFeatures[], b: FunctionFeatures[], given: number[]) {
  const s = new MatchState(a, b);
  for (const k of given) s.pair(k, k, "given");
  return s;
}

const made = (s: MatchState) =>
  s.matches.filter((m) => m.round === CALLER_SET_DEFAULTS.round).map((m) => [m.a, m.b]);

Deno.test("callerSetRound() pairs the only unmatched callees of the same matched callers", () => {
  // x is called by p and q on both sides; y by p only.
  const a = side("a", ["p", "q", "x", "y"]);
  const b = side("b", ["p", "q", "x", "y"]);
  for (const s of [a, b]) {
    calls(s[0]!, s[2]!, s[3]!);
    calls(s[1]!, s[2]!);
  }
  const s = state(a, b, [0, 1]);
  assert.equal(callerSetRound(s, CALLER_SET_DEFAULTS), 2);
  assert.deepEqual(made(s).sort(), [[2, 2], [3, 3]]);
});

Deno.test("callerSetRound() leaves callers that call two unmatched functions alone", () => {
  // b's p calls two functions that p alone calls: which one is a's x is a guess.
  const a = side("c", ["p", "x"]);
  const b = side("d", ["p", "x", "x2"]);
  calls(a[0]!, a[1]!);
  calls(b[0]!, b[1]!, b[2]!);
  const s = state(a, b, [0]);
  assert.equal(callerSetRound(s, CALLER_SET_DEFAULTS), 0);
});

Deno.test("callerSetRound() leaves a function with an unmatched caller", () => {
  const a = side("e", ["p", "x", "r"]);
  const b = side("f", ["p", "x", "r"]);
  for (const s of [a, b]) calls(s[0]!, s[1]!);
  calls(a[2]!, a[1]!);
  const s = state(a, b, [0]);
  assert.equal(callerSetRound(s, CALLER_SET_DEFAULTS), 0);
});

Deno.test("callerSetRound() leaves a pair whose matched callees are elsewhere", () => {
  // Both x are called by p alone, but a's x calls the matched helper h and b's x does not.
  const a = side("g", ["p", "x", "h"]);
  const b = side("h", ["p", "x", "h"]);
  for (const s of [a, b]) calls(s[0]!, s[1]!);
  calls(a[1]!, a[2]!);
  const s = state(a, b, [0, 2]);
  assert.equal(callerSetRound(s, CALLER_SET_DEFAULTS), 0);
});
