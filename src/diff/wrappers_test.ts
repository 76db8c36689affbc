import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";
import { bestInA, WRAPPER_DEFAULTS, wrapperRound } from "./wrappers.ts";

/**
 * Lua 5.3's luaO_arith against 5.4's, in small: in `a` the constant folder and lua_arith call
 * arith, which calls luaT_trybinTM and tointeger; in `b` the folder calls rawarith (the old
 * body) directly, lua_arith calls the wrapper arith, and the wrapper calls rawarith and
 * luaT_trybinTM. Indices: 0 fold, 1 lua_arith, 2 trybinTM, 3 tointeger, 4 arith; in `b` 5 is
 * rawarith. With `logs`, a matched `log` (a[5], b[6]) that only b's wrapper calls.
 */
function luaArith(logs = false) {
  const a = [
    fn("fold"),
    fn("lua_arith"),
    fn("trybinTM"),
    fn("tointeger"),
    fn("sub_arith", { instructions: 150 }),
    ...(logs ? [fn("log")] : []),
  ];
  const b = [
    fn("fold"),
    fn("lua_arith"),
    fn("trybinTM"),
    fn("tointeger"),
    fn("sub_wrapper", { instructions: 30 }),
    fn("sub_rawarith", { instructions: 120 }),
    ...(logs ? [fn("log")] : []),
  ];
  calls(a[0]!, a[4]!);
  calls(a[1]!, a[4]!);
  calls(a[4]!, a[2]!, a[3]!);
  calls(b[0]!, b[5]!);
  calls(b[1]!, b[4]!);
  calls(b[4]!, b[5]!, b[2]!, ...(logs ? [b[6]!] : []));
  calls(b[5]!, b[3]!);
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 3]) s.pair(k, k, "bytes");
  if (logs) s.pair(5, 6, "bytes");
  return s;
}

Deno.test("wrapperRound() moves the old function from the new helper to the wrapper that kept its place", () => {
  const s = luaArith();
  s.pair(4, 5, "anchors");
  assert.equal(wrapperRound(s, WRAPPER_DEFAULTS), 1);
  assert.equal(s.partnerA[4], 4);
  assert.equal(s.partnerB[5], -1);
  assert.equal(s.matches.at(-1)!.round, "wrappers");
  // The pair taken back is not made again.
  assert.ok(s.banned.has(4 * s.b.length + 5));
});

Deno.test("wrapperRound() leaves a pair whose helper's caller calls what the old function never did", () => {
  // The caller also calls a matched logging function that arith never called: a function with
  // a role of its own, not the old function's new shell.
  const s = luaArith(true);
  s.pair(4, 5, "anchors");
  assert.equal(wrapperRound(s, WRAPPER_DEFAULTS), 0);
  assert.equal(s.partnerA[4], 5);
});

Deno.test("wrapperRound() moves only pairs of the rounds it is given", () => {
  const s = luaArith();
  s.pair(4, 5, "mnemonics");
  assert.equal(wrapperRound(s, WRAPPER_DEFAULTS), 0);
  assert.equal(s.partnerA[4], 5);
});

Deno.test("wrapperRound() leaves the pair when another free function of a stands where the wrapper stands", () => {
  // a has the wrapper as well (lua_arith → arith_w → arith): it, not arith, is the wrapper's
  // partner, and the helper pair stays as it is.
  const s0 = luaArith();
  const wA = fn("sub_wrapperA", { instructions: 30 });
  const a = [...s0.a, wA];
  a[1]!.callees = [wA.start];
  calls(wA, a[4]!, a[2]!);
  a[4]!.callees = [a[3]!.start];
  const s = new MatchState(a, s0.b);
  for (const k of [0, 1, 2, 3]) s.pair(k, k, "bytes");
  s.pair(4, 5, "anchors");
  s.partnerA[4] = -1;
  s.partnerB[5] = -1;
  assert.equal(bestInA(s, 4), 5);
  s.partnerA[4] = 5;
  s.partnerB[5] = 4;
  assert.equal(wrapperRound(s, WRAPPER_DEFAULTS), 0);
  assert.equal(s.partnerA[4], 5);
});

/**
 * Lua 5.3's luaB_costatus against 5.4's, in small: a (0) calls tothread, pushstring, argerror
 * and status; b's costatus (4) calls tothread, pushstring, typeerror and auxstatus (5), which
 * calls status and is called by close (6) as well. Leaves 0–4 in `a` match 0–4 in `b` by name,
 * except that a's argerror (3) matches b's typeerror (3) and a's costatus is a[5].
 */
function luaCostatus(calleesOfCostatusInA: number[]) {
  const a = [fn("tothread"), fn("pushstring"), fn("status"), fn("argerror"), fn("typeerror")];
  const b = [fn("tothread"), fn("pushstring"), fn("status"), fn("argerror"), fn("typeerror")];
  a.push(fn("sub_costatus", { instructions: 64 }));
  b.push(
    fn("sub_costatus", { instructions: 27 }),
    fn("sub_auxstatus", { instructions: 34 }),
    fn("sub_close", { instructions: 54 }),
  );
  calls(a[5]!, ...calleesOfCostatusInA.map((k) => a[k]!));
  calls(b[5]!, b[0]!, b[6]!, b[1]!, b[4]!);
  calls(b[6]!, b[2]!);
  calls(b[7]!, b[6]!, b[1]!);
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 3, 4]) s.pair(k, k, "bytes");
  s.pair(5, 6, "anchors:weak");
  return s;
}

Deno.test("wrapperRound() allows the wrapper a call the old function never made when its callers and callees count like the old function's", () => {
  // 5.3's costatus called argerror (3); 5.4's calls typeerror (4): one stranger of three, and
  // like 5.3's it has no caller, where the helper has two.
  const s = luaCostatus([0, 1, 2, 3]);
  assert.equal(wrapperRound(s, WRAPPER_DEFAULTS), 1);
  assert.equal(s.partnerA[5], 5);
  assert.equal(s.partnerB[6], -1);
  // Not when strangers are not allowed.
  const t = luaCostatus([0, 1, 2, 3]);
  assert.equal(wrapperRound(t, { ...WRAPPER_DEFAULTS, maxStrangers: 0 }), 0);
  assert.equal(t.partnerA[5], 6);
});
