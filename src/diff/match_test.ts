import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { matchFunctions, matchSteps } from "./match.ts";
import { dependents, MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

Deno.test("matchFunctions() pairs equal names, then equal bytes wherever the code moved", () => {
  const a = [fn("main"), fn("sub_1100", { bytes_hash: "X" })];
  const b = [fn("sub_9000", { bytes_hash: "X" }), fn("main")];
  const r = matchFunctions(a, b);
  assert.deepEqual(
    r.matches.map((m) => [m.a, m.b, m.round]).sort(),
    [[0, 1, "name"], [1, 0, "bytes"]],
  );
  assert.equal(r.matches.find((m) => m.round === "bytes")!.similarity, 1);
});

Deno.test("matchFunctions() leaves ties unmatched", () => {
  const twin = { bytes_hash: "T", mnem_hash: "M", mnem_set_hash: "S" };
  const a = [fn("sub_1", twin), fn("sub_2", twin)];
  const b = [fn("sub_3", twin), fn("sub_4", twin)];
  const r = matchFunctions(a, b);
  assert.equal(r.matches.length, 0);
  assert.deepEqual(r.onlyA, [0, 1]);
  assert.deepEqual(r.onlyB, [0, 1]);
});

Deno.test("matchFunctions() resolves a global tie through the call graph", () => {
  const twin = { bytes_hash: "T", mnem_hash: "M", mnem_set_hash: "S" };
  const a = [fn("sub_a1", twin), fn("sub_a2", twin), fn("caller1"), fn("caller2")];
  const b = [fn("sub_b1", twin), fn("sub_b2", twin), fn("caller1"), fn("caller2")];
  a[2]!.callees = [a[0]!.start];
  a[3]!.callees = [a[1]!.start];
  b[2]!.callees = [b[1]!.start];
  b[3]!.callees = [b[0]!.start];
  const r = matchFunctions(a, b);
  const of = (i: number) => r.matches.find((m) => m.a === i);
  assert.equal(of(0)?.b, 1);
  assert.equal(of(1)?.b, 0);
  assert.match(of(0)!.round, /^call_graph:/);
});

Deno.test("matchFunctions() matches a changed function by similarity, not a different one", () => {
  const a = [fn("sub_1", { histogram: [10, 2, 7], instructions: 30, blocks: 6, edges: 8 })];
  const b = [
    // The same mnemonics in another order and one more edge: no exact key, but alike.
    fn("sub_2", {
      histogram: [10, 2, 7],
      instructions: 30,
      blocks: 6,
      edges: 9,
      cfg_sig: "6.9.0.1e",
      mnem_set_hash: "set-sub_1",
    }),
    fn("sub_3", { histogram: [0, 20, 0], instructions: 12, blocks: 2, edges: 1, cfg_sig: "2" }),
  ];
  const r = matchFunctions(a, b);
  assert.equal(r.matches.length, 1);
  assert.equal(r.matches[0]!.b, 0);
  assert.equal(r.matches[0]!.round, "similarity");
  assert.ok(r.matches[0]!.similarity < 1);
  assert.deepEqual(r.onlyB, [1]);
});

Deno.test("matchFunctions() stops with the signal's reason", () => {
  const abort = new AbortController();
  abort.abort(new Error("stop"));
  assert.throws(() => matchFunctions([fn("x")], [fn("x")], { signal: abort.signal }), /stop/);
});

Deno.test("matchSteps() pauses once per round and ends with matchFunctions()'s result", () => {
  const make = () => {
    const a = [fn("main"), fn("sub_1100", { bytes_hash: "X" })];
    const b = [fn("sub_9000", { bytes_hash: "X" }), fn("main")];
    return [a, b] as const;
  };
  const rounds: string[] = [];
  const steps = matchSteps(...make(), { onRound: (round) => rounds.push(round) });
  let pauses = 0;
  let step = steps.next();
  for (; !step.done; step = steps.next()) {
    pauses++;
    assert.equal(rounds.length, pauses);
  }
  assert.ok(pauses > 8);
  assert.deepEqual(step.value, matchFunctions(...make()));
});

Deno.test("matchFunctions() with broad pairs by matched callers and callees alone", () => {
  // Another compiler's body (nothing alike) in another place of the layout, but called by the
  // same matched function and calling the same matched leaf; main also calls a second function
  // in b, so x is not the only one placed there (which precise matching would pair).
  const body = { instructions: 40, histogram: [40, 0], blocks: 12, edges: 14, cfg_sig: "12" };
  const other = { instructions: 100, size: 400, histogram: [0, 100], loops: 2, cfg_sig: "2" };
  const make = () => {
    const b0 = fn("sub_y", { ...other, blocks: 2, edges: 1 });
    const a = [fn("main"), fn("leaf"), fn("sub_x", body)];
    const b = [b0, fn("main"), fn("leaf"), fn("sub_z", { ...other, mnem_hash: "z" })];
    calls(a[0]!, a[2]!);
    calls(a[2]!, a[1]!);
    calls(b[1]!, b[0]!, b[3]!);
    calls(b[0]!, b[2]!);
    return [a, b] as const;
  };
  const precise = matchFunctions(...make());
  assert.deepEqual(precise.onlyA, [2], "precise leaves the rewritten function alone");
  const broad = matchFunctions(...make(), { broad: true });
  const m = broad.matches.find((x) => x.a === 2);
  assert.equal(m?.b, 0);
  assert.equal(m?.round, "anchors:broad");
});

Deno.test("matchFunctions() takes back a pair of shared strings that a free function placed better outscores", () => {
  // Lua 5.3's db_upvalueid held checkupval inlined: it has the strings of 5.4's checkupval,
  // while 5.4's db_upvalueid, without them, calls what 5.3's called and sits where it sat.
  const leaves = ["checkinteger", "checktype", "upvalueid", "pushlightuserdata"];
  const a = [
    ...leaves.map((n) => fn(n)),
    fn("sub_a4", { strings: ["invalid upvalue index"], instructions: 34 }),
    fn("upvaluejoin"),
  ];
  const b = [
    ...leaves.map((n) => fn(n)),
    fn("sub_b4", { strings: ["invalid upvalue index"], instructions: 42 }),
    fn("sub_b5", { instructions: 32 }),
    fn("upvaluejoin"),
  ];
  calls(a[4]!, a[0]!, a[1]!, a[2]!, a[3]!);
  calls(a[5]!, a[0]!, a[1]!);
  calls(b[5]!, b[0]!, b[1]!, b[2]!, b[3]!);
  calls(b[4]!, b[0]!, b[1]!);
  calls(b[6]!, b[4]!);
  const r = matchFunctions(a, b);
  const of = (i: number) => r.matches.find((m) => m.a === i);
  assert.equal(of(4)?.b, 5);
  assert.ok(r.rounds.some((x) => x.round === "withdrawn" && x.matched < 0));
  assert.ok(!r.matches.some((m) => m.b === 4));
});

/**
 * nghttp2 1.40 → 1.52: fields moved, so 1.40's `remote` setter has exactly the bytes of 1.52's
 * `local` one. The bytes round pairs those two, which leaves the other two alone in their
 * mnemonics group; the call-site check withdraws the bytes pair, and the pair that rested on it
 * goes too, so the remote setters pair again by their caller.
 */
function setters(remoteBytes: string, localBytes: string) {
  const body = { instructions: 14, mnem_hash: "setter", mnem_set_hash: "setter" };
  const fs = [
    fn("apply_remote"),
    fn("before"),
    fn("after"),
    fn("apply_local"),
    fn("sub_5000", { ...body, bytes_hash: remoteBytes }),
    fn("sub_5100", { ...body, bytes_hash: localBytes }),
  ];
  // Only the remote setter has a caller the call-site check reads: the pair of the local ones is
  // contradicted by nothing but its reason to exist.
  calls(fs[0]!, fs[1]!, fs[4]!, fs[2]!);
  return fs;
}

Deno.test("matchFunctions() takes back a pair whose key was unique only through a withdrawn one", () => {
  const r = matchFunctions(setters("0xbc", "0xcc"), setters("0xac", "0xbc"));
  const of = (i: number) => r.matches.find((m) => m.a === i);
  assert.equal(of(4)?.b, 4);
  // Without the rule 1.40's local setter stayed paired with 1.52's remote one.
  assert.notEqual(of(5)?.b, 4);
});

Deno.test("dependents() follows pairs that rested on a withdrawn pair, unless clearly closer", () => {
  const s = new MatchState(
    [fn("sub_1"), fn("sub_2"), fn("sub_3"), fn("sub_4", { mnem_hash: "x" })],
    [
      fn("sub_5"),
      fn("sub_6"),
      fn("sub_7"),
      fn("sub_8", { mnem_hash: "x" }),
    ],
  );
  const n = 4;
  for (let k = 0; k < n; k++) s.pair(k, k, k === 0 ? "bytes" : "mnemonics");
  const [m0, m1, m2, m3] = s.matches;
  // m1 took what m0 left; m2 in turn what m1 left; m3 too, but its rival is far less similar.
  s.dependsOn.set(m1!, [{ side: "a", index: 0, pair: 0 * n + 0 }]);
  s.dependsOn.set(m2!, [{ side: "b", index: 1, pair: 1 * n + 1 }]);
  s.dependsOn.set(m3!, [{ side: "a", index: 0, pair: 0 * n + 0 }]);
  const sim = (x: number, y: number) => similarity(s.a[x]!, s.b[y]!);
  assert.ok(m3!.similarity >= sim(0, 3) + 0.1);
  assert.deepEqual(dependents(s, [m0!], 0.1).map((m) => m.a), [1, 2]);
  assert.deepEqual(dependents(s, [m2!], 0.1), []);
});
