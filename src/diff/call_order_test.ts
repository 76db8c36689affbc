import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { CALL_ORDER_DEFAULTS, callOrderRound } from "./call_order.ts";
import { matchFunctions } from "./match.ts";
import { MatchState } from "./match_state.ts";

// Three getters that differ only in the field they read: alike in every feature.
const getter = { instructions: 2, blocks: 1, edges: 0, mnem_hash: "G", mnem_set_hash: "GS" };

/**
 * main calls open, three getters, then close; the getters' bytes differ by side and field. In b
 * the getters lie after close, so address order says nothing about them.
 */
function program(side: string) {
  const main = fn("main");
  const open = fn("open");
  const close = side === "a" ? undefined : fn("close");
  const getters = [1, 2, 3].map((k) =>
    fn(`sub_${side}${k}`, { ...getter, bytes_hash: `${side}${k}` })
  );
  const fs = [main, open, ...getters, close ?? fn("close")];
  calls(main, ...fs.slice(1));
  return fs;
}

Deno.test("matchFunctions() tells look-alike callees apart by the order their caller calls them", () => {
  const r = matchFunctions(program("a"), program("b"));
  const getters = r.matches.filter((m) => m.a >= 2 && m.a <= 4);
  assert.deepEqual(getters.map((m) => [m.a, m.b, m.round]), [
    [2, 2, "call_order"],
    [3, 3, "call_order"],
    [4, 4, "call_order"],
  ]);
});

Deno.test("callOrderRound() fills only gaps of equal length between callees in the same order", () => {
  const a = program("a");
  const b = program("b");
  // b's main calls a fourth getter: four unmatched callees against three, which is which unsure.
  const extra = fn("sub_b4", { ...getter, bytes_hash: "b4" });
  b[0]!.callees = [b[1]!.start, b[2]!.start, extra.start, b[3]!.start, b[4]!.start, b[5]!.start];
  const s = new MatchState(a, [...b, extra]);
  for (const k of [0, 1, 5]) s.pair(k, k, "given");
  assert.equal(callOrderRound(s, CALL_ORDER_DEFAULTS), 0);
});

Deno.test("callOrderRound() leaves a callee that other matched functions place elsewhere", () => {
  const a = program("a");
  const b = program("b");
  // Three matched functions call a's second getter; in b they call something else instead.
  const user = [fn("user1"), fn("user2"), fn("user3")];
  const userB = [fn("user1"), fn("user2"), fn("user3")];
  const other = fn("sub_other", { instructions: 60, blocks: 9, histogram: [1, 50] });
  for (const u of user) calls(u, a[3]!);
  for (const u of userB) calls(u, other);
  const s = new MatchState([...a, ...user], [...b, ...userB, other]);
  for (const k of [0, 1, 5, 6, 7, 8]) s.pair(k, k, "given");
  assert.equal(callOrderRound(s, CALL_ORDER_DEFAULTS), 0);
});
