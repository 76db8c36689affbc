import assert from "node:assert/strict";
import {
  AddressOrder,
  ANCHOR_DEFAULTS,
  ANCHOR_WEAK,
  anchorRound,
  breakTie,
  outscoredPairs,
  soleCandidateRound,
} from "./anchors.ts";
import { calls, fn } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";

const OPTS = ANCHOR_DEFAULTS;

/** Pairs each `a[i]` with `b[i]` for the listed indices, as earlier rounds would have. */
function matched(s: MatchState, ...is: number[]): void {
  for (const i of is) s.pair(i, i, "given");
}

Deno.test("anchorRound() pairs a rewritten function whose matched caller and callees correspond", () => {
  // Same place in both call graphs (main → x → two leaves), nothing else in common: another
  // compiler's body, 40 instructions against 25.
  const a = [fn("main"), fn("leaf1"), fn("leaf2"), fn("sub_x", { instructions: 40 })];
  const b = [
    fn("main"),
    fn("leaf1"),
    fn("leaf2"),
    fn("sub_y", { instructions: 25, histogram: [9, 2] }),
    fn("sub_lonely", { instructions: 25, histogram: [9, 2] }),
  ];
  calls(a[0]!, a[3]!);
  calls(a[3]!, a[1]!, a[2]!);
  calls(b[0]!, b[3]!);
  calls(b[3]!, b[1]!, b[2]!);
  const s = new MatchState(a, b);
  matched(s, 0, 1, 2);
  assert.equal(anchorRound(s, OPTS), 1);
  assert.equal(s.partnerA[3], 3);
  assert.equal(s.partnerB[4], -1);
  assert.equal(s.matches.at(-1)!.round, "anchors");
});

Deno.test("anchorRound() leaves two equally placed candidates unmatched", () => {
  // main calls x in a, and two look-alikes in b: which one is x's is a guess.
  const a = [fn("main"), fn("leaf"), fn("sub_x", { instructions: 40 })];
  const b = [fn("main"), fn("leaf"), fn("sub_y1"), fn("sub_y2")];
  calls(a[0]!, a[2]!);
  calls(a[2]!, a[1]!);
  calls(b[0]!, b[2]!, b[3]!);
  calls(b[2]!, b[1]!);
  calls(b[3]!, b[1]!);
  const s = new MatchState(a, b);
  matched(s, 0, 1);
  assert.equal(anchorRound(s, OPTS), 0);
  assert.equal(s.partnerA[2], -1);
});

Deno.test("anchorRound() needs two anchors between tiny functions", () => {
  const a = [fn("main"), fn("sub_x", { instructions: 3 })];
  const b = [fn("main"), fn("sub_y", { instructions: 3 })];
  calls(a[0]!, a[1]!);
  calls(b[0]!, b[1]!);
  const s = new MatchState(a, b);
  matched(s, 0);
  assert.equal(anchorRound(s, OPTS), 0);
});

Deno.test("breakTie() tells identical duplicates apart by their matched callers", () => {
  const twin = { bytes_hash: "T", mnem_hash: "M", mnem_set_hash: "S" };
  const a = [fn("c1"), fn("c2"), fn("sub_t1", twin), fn("sub_t2", twin)];
  const b = [fn("c1"), fn("c2"), fn("sub_u1", twin), fn("sub_u2", twin)];
  calls(a[0]!, a[2]!);
  calls(a[1]!, a[3]!);
  // Laid out the other way round in b.
  calls(b[0]!, b[3]!);
  calls(b[1]!, b[2]!);
  const s = new MatchState(a, b);
  matched(s, 0, 1);
  assert.equal(breakTie(s, [2, 3], [2, 3], "ties:bytes"), 2);
  assert.equal(s.partnerA[2], 3);
  assert.equal(s.partnerA[3], 2);
});

Deno.test("breakTie() leaves duplicates with the same callers unmatched", () => {
  const twin = { bytes_hash: "T", mnem_hash: "M", mnem_set_hash: "S" };
  const a = [fn("c"), fn("sub_t1", twin), fn("sub_t2", twin)];
  const b = [fn("c"), fn("sub_u1", twin), fn("sub_u2", twin)];
  calls(a[0]!, a[1]!, a[2]!);
  calls(b[0]!, b[1]!, b[2]!);
  const s = new MatchState(a, b);
  matched(s, 0);
  assert.equal(breakTie(s, [1, 2], [1, 2], "ties:bytes"), 0);
});

Deno.test("AddressOrder.between() bounds a function by its matched neighbours' partners", () => {
  const a = [fn("first"), fn("sub_x"), fn("last"), fn("sub_tail")];
  const b = [fn("first"), fn("sub_y"), fn("last"), fn("sub_z")];
  const s = new MatchState(a, b);
  matched(s, 0, 2);
  const order = new AddressOrder(s);
  assert.deepEqual([0, 1, 2, 3].map(order.between(1)), [false, true, false, false]);
  // After the last matched pair the upper end is open.
  assert.deepEqual([0, 1, 2, 3].map(order.between(3)), [false, false, false, true]);
});

/**
 * A function that a new version rewrote (one block against twelve, nothing in common but its
 * place) and moved to the front of the file: a caller and `callees` callees, all matched, on
 * both sides.
 */
function rewritten(callees: number) {
  const side = (name: string, body: Partial<Parameters<typeof fn>[1]>, first: boolean) => {
    const early = first ? fn(name, body) : undefined;
    const fs = [fn("main"), ...Array.from({ length: 3 }, (_, k) => fn(`leaf${k}`))];
    const x = early ?? fn(name, body);
    calls(fs[0]!, x);
    calls(x, ...fs.slice(1, 1 + callees));
    return [...fs, x];
  };
  const a = side("sub_x", { instructions: 9, blocks: 1, edges: 0, histogram: [9, 0] }, false);
  const b = side(
    "sub_y",
    { instructions: 120, blocks: 12, edges: 16, loops: 2, cfg_sig: "12", histogram: [10, 110] },
    true,
  );
  return new MatchState(a, b);
}

Deno.test("ANCHOR_WEAK pairs a rewritten function by its place alone, with three anchors", () => {
  const s = rewritten(2);
  matched(s, 0, 1, 2, 3);
  // Too unlike for the first pass, placed clearly enough for the weaker one.
  assert.equal(anchorRound(s, OPTS), 0);
  assert.equal(anchorRound(s, ANCHOR_WEAK), 1);
  assert.equal(s.matches.at(-1)!.round, "anchors:weak");
});

Deno.test("ANCHOR_WEAK leaves a rewritten function with two anchors", () => {
  const s = rewritten(1);
  matched(s, 0, 1, 2, 3);
  assert.equal(anchorRound(s, ANCHOR_WEAK), 0);
});

/**
 * main calls x in a, and y and z in b; x was paired with y (by the round "anchors") when only
 * main was matched. Now x's two callees are matched too: in b they are the callees of `owner`
 * (3 for y, 4 for z).
 */
function pairedEarly(owner: 3 | 4) {
  const a = [fn("main"), fn("leaf1"), fn("leaf2"), fn("sub_x")];
  const b = [fn("main"), fn("leaf1"), fn("leaf2"), fn("sub_y"), fn("sub_z")];
  calls(a[0]!, a[3]!);
  calls(a[3]!, a[1]!, a[2]!);
  calls(b[0]!, b[3]!, b[4]!);
  calls(b[owner]!, b[1]!, b[2]!);
  const s = new MatchState(a, b);
  s.pair(3, 3, "anchors");
  matched(s, 0, 1, 2);
  return s;
}

Deno.test("outscoredPairs() finds a pair that a free candidate now outscores", () => {
  const s = pairedEarly(4);
  const out = outscoredPairs(s, 0.1, ["anchors"]);
  assert.deepEqual([...out].map((m) => [m.a, m.b]), [[3, 3]]);
  // Pairs of other rounds are not looked at.
  assert.equal(outscoredPairs(s, 0.1, ["bytes"]).size, 0);
  // Nor changed: the caller withdraws what it gets.
  assert.equal(s.partnerA[3], 3);
});

Deno.test("outscoredPairs() keeps a pair placed as well as any free candidate", () => {
  assert.equal(outscoredPairs(pairedEarly(3), 0.1, ["anchors"]).size, 0);
});

/**
 * The mirror of pairedEarly(4): main calls x and w in a, and y in b; x was paired with y when
 * only main was matched, and y's two callees are now matched to w's.
 */
function pairedEarlyInA() {
  const a = [fn("main"), fn("leaf1"), fn("leaf2"), fn("sub_x"), fn("sub_w")];
  const b = [fn("main"), fn("leaf1"), fn("leaf2"), fn("sub_y")];
  calls(a[0]!, a[3]!, a[4]!);
  calls(a[4]!, a[1]!, a[2]!);
  calls(b[0]!, b[3]!);
  calls(b[3]!, b[1]!, b[2]!);
  const s = new MatchState(a, b);
  s.pair(3, 3, "anchors");
  matched(s, 0, 1, 2);
  return s;
}

Deno.test("outscoredPairs() with a reverse margin finds a pair that a free function of a now outscores", () => {
  // Lua 5.2's lua_replace went to 5.3's lua_copy while 5.2's own lua_copy stayed free.
  const s = pairedEarlyInA();
  assert.equal(outscoredPairs(s, 0.1, ["anchors"]).size, 0);
  const out = outscoredPairs(s, 0.1, ["anchors"], 0.2);
  assert.deepEqual([...out].map((m) => [m.a, m.b]), [[3, 3]]);
  // A margin the free function does not clear keeps the pair.
  assert.equal(outscoredPairs(s, 0.1, ["anchors"], 5).size, 0);
  assert.equal(s.partnerA[3], 3);
});

/** main calls `inA` tiny functions in a and `inB` in b; only main is matched. */
function tinyCallees(inA: number, inB: number) {
  const tiny = { instructions: 4, blocks: 1, edges: 0 };
  const a = [fn("main"), ...Array.from({ length: inA }, (_, k) => fn(`sub_a${k}`, tiny))];
  const b = [fn("main"), ...Array.from({ length: inB }, (_, k) => fn(`sub_b${k}`, tiny))];
  calls(a[0]!, ...a.slice(1));
  calls(b[0]!, ...b.slice(1));
  const s = new MatchState(a, b);
  matched(s, 0);
  return s;
}

Deno.test("soleCandidateRound() pairs each other's only candidate, however small", () => {
  const s = tinyCallees(1, 1);
  // One anchor between tiny functions is not enough for the position rounds…
  assert.equal(anchorRound(s, OPTS), 0);
  // …but nothing else is placed there on either side.
  assert.equal(soleCandidateRound(s, 0.65, "anchors:sole"), 1);
  assert.deepEqual(s.matches.at(-1)!.round, "anchors:sole");
  assert.equal(s.partnerA[1], 1);
});

Deno.test("soleCandidateRound() leaves a candidate that either side shares", () => {
  assert.equal(soleCandidateRound(tinyCallees(2, 1), 0.65, "anchors:sole"), 0);
  assert.equal(soleCandidateRound(tinyCallees(1, 2), 0.65, "anchors:sole"), 0);
});

Deno.test("anchorRound() with a drift limit leaves a pair far from its neighbours' partners in address order", () => {
  // a: 120 functions in order; x (a[30]) sits among them and calls a[0..2]. b: the same 120,
  // and x's look-alike y, 90 functions further on, calls the same three.
  const n = 120;
  const a = Array.from({ length: n }, (_, k) => fn(`f${k}`));
  const b = Array.from({ length: n }, (_, k) => fn(`f${k}`));
  const x = a[30]!;
  x.name = "sub_30";
  calls(x, a[0]!, a[1]!, a[2]!);
  const y = fn("sub_far", { instructions: 10 });
  b.push(y);
  calls(y, b[0]!, b[1]!, b[2]!);
  b[30]!.name = "sub_gone";
  const run = (drift: boolean) => {
    const s = new MatchState(a, b);
    for (let k = 0; k < n; k++) if (k !== 30) s.pair(k, k, "bytes");
    const { drift: _, ...noDrift } = ANCHOR_WEAK;
    return { made: anchorRound(s, drift ? ANCHOR_WEAK : noDrift), s };
  };
  const loose = run(false);
  assert.equal(loose.made, 1);
  assert.equal(loose.s.partnerA[30], n);
  const strict = run(true);
  assert.equal(strict.made, 0);
  assert.equal(strict.s.partnerA[30], -1);
});
