import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { matchFunctions } from "./match.ts";
import { MatchState } from "./match_state.ts";
import { STRING_SET_DEFAULTS, stringSetRound } from "./string_sets.ts";

/**
 * main calls log; b's log lost one message and gained another (two of four strings shared), and
 * its code changed enough that no exact key and no similarity round pairs it.
 */
function program(side: "a" | "b", extra: string) {
  const main = fn("main");
  const log = fn(`sub_log_${side}`, {
    instructions: 8,
    histogram: side === "a" ? [5, 5] : [6, 4],
    strings: ["cannot open %s", "out of memory", extra].sort(),
    cfg_sig: `cfg-${side}`,
  });
  calls(main, log);
  return [main, log];
}

Deno.test("matchFunctions() pairs functions whose string sets overlap most, in place", () => {
  const r = matchFunctions(program("a", "bad mode"), program("b", "bad format"));
  assert.deepEqual(r.matches.map((m) => [m.a, m.b, m.round]), [
    [0, 0, "name"],
    [1, 1, "string_sets"],
  ]);
});

Deno.test("stringSetRound() leaves two equally overlapping candidates unmatched", () => {
  const a = program("a", "bad mode");
  const b = program("b", "bad format");
  const twin = fn("sub_twin", { ...b[1]!, name: "sub_twin", start: 0x9_0000 });
  calls(b[0]!, twin);
  const s = new MatchState(a, [...b, twin]);
  s.pair(0, 0, "given");
  assert.equal(stringSetRound(s, STRING_SET_DEFAULTS), 0);
});

Deno.test("stringSetRound() refuses a pair its matched neighbours place elsewhere", () => {
  const a = program("a", "bad mode");
  const b = program("b", "bad format");
  // b's log is called by another function than a's: the one matched neighbour disagrees.
  const other = fn("other");
  const otherB = fn("other");
  calls(otherB, b[1]!);
  b[0]!.callees = [];
  const s = new MatchState([...a, other], [...b, otherB]);
  s.pair(0, 0, "given");
  s.pair(2, 2, "given");
  assert.equal(stringSetRound(s, STRING_SET_DEFAULTS), 0);
});

Deno.test("stringSetRound() refuses an uncalled function against a called one", () => {
  // a's log is an entry point nothing calls; b's is called by main: the strings of an inlined
  // helper, not the same function (b's main holds no other anchor either way).
  const a = program("a", "bad mode");
  a[0]!.callees = [];
  const b = program("b", "bad format");
  const helper = fn("helper");
  calls(a[1]!, helper);
  const helperB = fn("helper");
  calls(b[1]!, helperB);
  const s = new MatchState([...a, helper], [...b, helperB]);
  s.pair(0, 0, "given");
  s.pair(2, 2, "given");
  assert.equal(stringSetRound(s, STRING_SET_DEFAULTS), 0);
});
