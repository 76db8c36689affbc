import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { agreement, CONSISTENCY_DEFAULTS, withdrawContradicted } from "./consistency.ts";
import { matchFunctions } from "./match.ts";
import { MatchState } from "./match_state.ts";

/**
 * Four named callers call x in a; in b only the first calls y, the other three call z. x and y
 * share a string and little else.
 */
function program() {
  const a = [fn("c1"), fn("c2"), fn("c3"), fn("c4"), fn("sub_x", { strings: ["s"] })];
  const b = [
    fn("c1"),
    fn("c2"),
    fn("c3"),
    fn("c4"),
    fn("sub_y", { strings: ["s"] }),
    fn("sub_z", { instructions: 90, blocks: 20, histogram: [0, 90], cfg_sig: "z" }),
  ];
  for (const c of a.slice(0, 4)) calls(c, a[4]!);
  calls(b[0]!, b[4]!);
  for (const c of b.slice(1, 4)) calls(c, b[5]!);
  return { a, b };
}

Deno.test("agreement() is the share of matched callers and callees that correspond", () => {
  const { a, b } = program();
  const s = new MatchState(a, b);
  assert.equal(agreement(s, 4, 4), undefined);
  for (const k of [0, 1, 2, 3]) s.pair(k, k, "given");
  // c1 agrees; c2..c4 call x in a but not y in b: 2·1 / (4 + 1).
  assert.equal(agreement(s, 4, 4), 0.4);
});

Deno.test("withdrawContradicted() takes back a pair its matched neighbours place elsewhere", () => {
  const { a, b } = program();
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 3]) s.pair(k, k, "given");
  s.pair(4, 4, "strings");
  assert.deepEqual(withdrawContradicted(s, CONSISTENCY_DEFAULTS).map((m) => m.a), [4]);
  assert.equal(s.partnerA[4], -1);
  assert.equal(s.partnerB[4], -1);
  assert.equal(s.matches.length, 4);
});

Deno.test("withdrawContradicted() keeps pairs of address order and near-identical pairs", () => {
  for (const round of ["sequence", "given"]) {
    const { a, b } = program();
    if (round === "given") b[4] = { ...a[4]!, start: b[4]!.start, callees: b[4]!.callees };
    const s = new MatchState(a, b);
    for (const k of [0, 1, 2, 3]) s.pair(k, k, "given");
    s.pair(4, 4, round);
    assert.deepEqual(withdrawContradicted(s, CONSISTENCY_DEFAULTS), [], round);
    assert.equal(s.matches.length, 5);
  }
});

Deno.test("matchFunctions() leaves a pair unmatched when its matched neighbours disagree", () => {
  const { a, b } = program();
  const r = matchFunctions(a, b);
  assert.equal(r.matches.find((m) => m.a === 4), undefined);
  assert.deepEqual(r.rounds.filter((x) => x.round === "withdrawn").map((x) => x.matched), [-1, 0]);
  // Broad matching keeps it.
  assert.equal(matchFunctions(a, b, { broad: true }).matches.find((m) => m.a === 4)?.b, 4);
});

Deno.test("matchFunctions() pairs a withdrawn function again where its neighbours place it", () => {
  const { a, b } = program();
  // z is x in b, without the string: once x is free again, its callers c2..c4 place it at z.
  b[5] = fn("sub_z", { start: b[5]!.start, callees: [] });
  const r = matchFunctions(a, b);
  assert.equal(r.matches.find((m) => m.a === 4)?.b, 5);
  assert.equal(r.matches.find((m) => m.b === 4), undefined);
});
