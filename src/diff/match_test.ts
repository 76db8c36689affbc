import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { matchFunctions, matchSteps } from "./match.ts";

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
