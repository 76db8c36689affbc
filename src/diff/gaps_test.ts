import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { GAP_DEFAULTS, gapRound, inOrder, leansOn, neighboursAgree, twinsByPlace } from "./gaps.ts";
import { MatchState } from "./match_state.ts";
import type { FunctionFeatures } from "./features.ts";

/** One side: functions in address order, each with its own body (nothing alike across sides). */
function side(tag: string, names: string[]): FunctionFeatures[] {
  return names.map((n) => fn(`sub_${tag}${n}`, { bytes_hash: `${tag}${n}`, histogram: [1, 9] }));
}

/** A state with the functions at `given` (index in a, index in b) already paired. */
function state(a: FunctionFeatures[], b: FunctionFeatures[], given: [number, number][]) {
  const s = new MatchState(a, b);
  for (const [i, j] of given) s.pair(i, j, "given");
  return s;
}

const made = (s: MatchState) =>
  s.matches.filter((m) => m.round === GAP_DEFAULTS.round).map((m) => [m.a, m.b]);

Deno.test("gapRound() pairs an equal gap between two matched pairs place by place", () => {
  const a = side("a", ["first", "x", "y", "last"]);
  const b = side("b", ["first", "x", "y", "last"]);
  const s = state(a, b, [[0, 0], [3, 3]]);
  assert.equal(gapRound(s, GAP_DEFAULTS), 2);
  assert.deepEqual(made(s), [[1, 1], [2, 2]]);
});

Deno.test("gapRound() leaves gaps of different lengths and gaps at either end", () => {
  // a: first x last tail; b: first x extra last tail tail2 — the inner gaps differ (1 vs 2), and
  // what follows the last pair is bounded on one end only.
  const a = side("c", ["first", "x", "last", "tail"]);
  const b = side("d", ["first", "x", "extra", "last", "tail", "tail2"]);
  const s = state(a, b, [[0, 0], [2, 3]]);
  assert.equal(gapRound(s, GAP_DEFAULTS), 0);
});

Deno.test("gapRound() leaves a place whose matched neighbours disagree", () => {
  // a's x calls the matched helper; b's x calls nothing matched: a removed function and an
  // added one may sit at the same place.
  const a = side("e", ["first", "x", "y", "last", "helper"]);
  const b = side("f", ["first", "x", "y", "last", "helper"]);
  calls(a[1]!, a[4]!);
  calls(b[2]!, b[4]!);
  const s = state(a, b, [[0, 0], [3, 3], [4, 4]]);
  assert.equal(neighboursAgree(s, 1, 1), false);
  assert.equal(neighboursAgree(s, 2, 2), false);
  assert.equal(gapRound(s, GAP_DEFAULTS), 0);
});

Deno.test("gapRound() pairs a place whose matched neighbours are each other's partners", () => {
  const a = side("g", ["first", "x", "last", "helper"]);
  const b = side("h", ["first", "x", "last", "helper"]);
  calls(a[1]!, a[3]!);
  calls(b[1]!, b[3]!);
  const s = state(a, b, [[0, 0], [2, 2], [3, 3]]);
  assert.equal(neighboursAgree(s, 1, 1), true);
  assert.equal(gapRound(s, GAP_DEFAULTS), 1);
  assert.deepEqual(made(s), [[1, 1]]);
});

Deno.test("gapRound() leaves gaps longer than maxGap", () => {
  const a = side("i", ["first", "x", "y", "z", "last"]);
  const b = side("j", ["first", "x", "y", "z", "last"]);
  const s = state(a, b, [[0, 0], [4, 4]]);
  assert.equal(gapRound(s, { ...GAP_DEFAULTS, maxGap: 2 }), 0);
});

Deno.test("gapRound() does not bound a gap by a pair out of order", () => {
  // The pair (last, first) crosses: the only in-order pair is first ↔ last's place, no gap
  // between two in-order pairs is left.
  const a = side("k", ["first", "x", "last"]);
  const b = side("l", ["first", "x", "last"]);
  const s = state(a, b, [[0, 2], [2, 0]]);
  assert.equal(gapRound(s, GAP_DEFAULTS), 0);
});

Deno.test("gapRound() does not make a pair the consistency check withdrew", () => {
  const a = side("m", ["first", "x", "last"]);
  const b = side("n", ["first", "x", "last"]);
  const s = state(a, b, [[0, 0], [1, 1], [2, 2]]);
  s.withdraw(new Set([s.matches[1]!]));
  assert.equal(gapRound(s, GAP_DEFAULTS), 0);
  assert.equal(s.partnerA[1], -1);
});

Deno.test("gapRound() leaves a gap that holds a pair out of order", () => {
  // a: first x moved y last; b: first x y last moved — moved sits in a's gap, paired after last.
  const a = side("o", ["first", "x", "moved", "y", "last"]);
  const b = side("p", ["first", "x", "y", "last", "moved"]);
  const s = state(a, b, [[0, 0], [2, 4], [4, 3]]);
  assert.equal(gapRound(s, GAP_DEFAULTS), 0);
});

Deno.test("gapRound() pairs a place where one side only gained calls, when alike enough", () => {
  // b's x calls the matched helper as a's does, and a second matched function a's x never
  // called: a new version's x grew a call. At 0.4 similarity and more that is enough.
  const a = side("q", ["first", "x", "last", "helper", "extra"]);
  const b = side("r", ["first", "x", "last", "helper", "extra"]);
  calls(a[1]!, a[3]!);
  calls(b[1]!, b[3]!, b[4]!);
  const s = state(a, b, [[0, 0], [2, 2], [3, 3], [4, 4]]);
  assert.equal(neighboursAgree(s, 1, 1), false);
  assert.equal(leansOn(s, 1, 1), true);
  assert.equal(gapRound(s, GAP_DEFAULTS), 1);
  // Less alike than minLeaning: left.
  const t = state(a, b, [[0, 0], [2, 2], [3, 3], [4, 4]]);
  assert.equal(gapRound(t, { ...GAP_DEFAULTS, minLeaning: 1.01 }), 0);
});

Deno.test("gapRound() pairs unlike places that lean on the call graph in a gap that all does", () => {
  // Two places, each grown a call in b (as in the test above) and rewritten beyond minLeaning:
  // alone such a place is left; in a gap whose every place leans, each vouches for the other.
  const make = (names: string[], n: number) => {
    const a = side("ac", names);
    const b = side("ad", names).map((f, k) =>
      k >= 1 && k <= n ? { ...f, instructions: 90, blocks: 20, edges: 30, histogram: [9, 1] } : f
    );
    return { a, b };
  };
  const two = make(["first", "x", "y", "last", "helper", "extra"], 2);
  for (const k of [1, 2]) {
    calls(two.a[k]!, two.a[4]!);
    calls(two.b[k]!, two.b[4]!, two.b[5]!);
  }
  const given: [number, number][] = [[0, 0], [3, 3], [4, 4], [5, 5]];
  const s = state(two.a, two.b, given);
  assert.equal(leansOn(s, 1, 1), true);
  assert.equal(gapRound(s, GAP_DEFAULTS), 2);
  assert.deepEqual(made(s), [[1, 1], [2, 2]]);
  // One such place alone: left.
  const one = make(["first", "x", "last", "helper", "extra"], 1);
  calls(one.a[1]!, one.a[3]!);
  calls(one.b[1]!, one.b[3]!, one.b[4]!);
  const t = state(one.a, one.b, [[0, 0], [2, 2], [3, 3], [4, 4]]);
  assert.equal(gapRound(t, GAP_DEFAULTS), 0);
  // Beside a place the call graph speaks against: left as well.
  const mixed = make(["first", "x", "y", "last", "helper", "extra"], 2);
  calls(mixed.a[1]!, mixed.a[4]!);
  calls(mixed.b[1]!, mixed.b[4]!, mixed.b[5]!);
  calls(mixed.a[2]!, mixed.a[4]!);
  calls(mixed.b[2]!, mixed.b[5]!);
  const u = state(mixed.a, mixed.b, given);
  assert.equal(gapRound(u, GAP_DEFAULTS), 0);
});

Deno.test("leansOn() needs a shared matched neighbour and one side without contradiction", () => {
  const a = side("s", ["x", "h1", "h2"]);
  const b = side("t", ["x", "h1", "h2"]);
  // a's x calls h1, b's x calls h2: nothing shared, each contradicts the other.
  calls(a[0]!, a[1]!);
  calls(b[0]!, b[2]!);
  const s = state(a, b, [[1, 1], [2, 2]]);
  assert.equal(leansOn(s, 0, 0), false);
  // No matched neighbour at all: no evidence to lean on.
  const u = side("u", ["x"]);
  const v = side("v", ["x"]);
  assert.equal(leansOn(new MatchState(u, v), 0, 0), false);
});

Deno.test("gapRound() leaves a place whose code has an unmatched twin outside the gap", () => {
  // b's x has the code of a free function elsewhere in b (two `ret`s): the place alone would
  // choose between them.
  const a = side("w", ["first", "x", "last"]);
  const b = side("x", ["first", "x", "last", "elsewhere"]);
  b[1]!.bytes_hash = b[3]!.bytes_hash = "ret";
  const s = state(a, b, [[0, 0], [2, 2]]);
  assert.equal(gapRound(s, GAP_DEFAULTS), 0);
  // Twins that both sit in the gap are told apart by their places.
  const c = side("y", ["first", "x", "x64", "last"]);
  const d = side("z", ["first", "x", "x64", "last"]);
  c[1]!.bytes_hash = c[2]!.bytes_hash = "twin";
  const t = state(c, d, [[0, 0], [3, 3]]);
  assert.equal(gapRound(t, GAP_DEFAULTS), 2);
});

Deno.test("gapRound() pairs twins that each sit at a place of their own", () => {
  // Two copies of one code on each side, each in its own gap of one: the places leave no copy
  // to guess, whether or not b's two are copies of each other. A third copy in a, at no place,
  // leaves every copy a guess again.
  const make = (third: boolean, twinsInB = true) => {
    const names = ["first", "t1", "mid", "t2", "last", ...(third ? ["t3"] : [])];
    const a = side("ae", names);
    const b = side("af", ["first", "t1", "mid", "t2", "last"]);
    for (const k of [1, 3, 5]) if (a[k]) a[k]!.bytes_hash = "twinA";
    if (twinsInB) { for (const k of [1, 3]) b[k]!.bytes_hash = "twinB"; }
    return state(a, b, [[0, 0], [2, 2], [4, 4]]);
  };
  const u = make(false, false);
  assert.equal(gapRound(u, GAP_DEFAULTS), 2);
  const s = make(false);
  assert.deepEqual([...twinsByPlace(s, [[1, 1], [3, 3]])], [1, 3]);
  assert.equal(gapRound(s, GAP_DEFAULTS), 2);
  assert.deepEqual(made(s), [[1, 1], [3, 3]]);
  const t = make(true);
  assert.deepEqual([...twinsByPlace(t, [[1, 1], [3, 3]])], []);
  assert.equal(gapRound(t, GAP_DEFAULTS), 0);
});

Deno.test("gapRound() leaves a place called on one side only", () => {
  // a's x has an (unmatched) caller, b's x none: a helper replaced by a callback.
  const a = side("aa", ["first", "x", "last", "caller"]);
  const b = side("ab", ["first", "x", "last", "caller"]);
  calls(a[3]!, a[1]!);
  const s = state(a, b, [[0, 0], [2, 2]]);
  assert.equal(gapRound(s, GAP_DEFAULTS), 0);
});

Deno.test("inOrder() keeps the longest run of pairs in order on both sides", () => {
  // a's second function moved far ahead in b: it is left out, not every pair after it.
  assert.deepEqual(inOrder([0, 9, 1, -1, 2, 3]), [[0, 0], [2, 1], [4, 2], [5, 3]]);
  assert.deepEqual(inOrder([-1, -1]), []);
});
