import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import {
  GLOBAL_IMPORT_LEAF_DEFAULTS,
  globalImportLeafRound,
  IMPORT_LEAF_DEFAULTS,
  importLeafRound,
} from "./import_leaves.ts";
import { MatchState } from "./match_state.ts";

/**
 * c-ares' socket wrappers in small: a matched caller (index 0) calls three leaves, wrappers of
 * `socket`, `connect` and `close` (1, 2, 3), and on each side an extra callee as given.
 */
function sockets(extraA = fn("x"), extraB = fn("y")) {
  const leaf = (name: string, imports: string[]) => fn(name, { imports });
  const a = [
    fn("sortaddrinfo"),
    leaf("open", ["socket"]),
    leaf("connect", ["connect"]),
    leaf("close", ["close"]),
    extraA,
  ];
  const b = [
    fn("sortaddrinfo"),
    leaf("open2", ["socket"]),
    leaf("connect2", ["connect"]),
    leaf("close2", ["close"]),
    extraB,
  ];
  calls(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!);
  calls(b[0]!, b[1]!, b[2]!, b[3]!, b[4]!);
  return { a, b };
}

Deno.test("importLeafRound() pairs a matched caller's unmatched leaves by the imports they call", () => {
  const { a, b } = sockets();
  const s = new MatchState(a, b);
  s.pair(0, 0, "bytes");
  assert.equal(importLeafRound(s, IMPORT_LEAF_DEFAULTS), 3);
  assert.deepEqual([...s.partnerA.slice(1, 4)], [1, 2, 3]);
  assert.equal(s.matches.at(-1)!.round, "import_leaves");
});

Deno.test("importLeafRound() leaves imports another callee of the caller shares on one side", () => {
  // A second function calling `close` among b's callees: which one is a's wrapper is a guess.
  const { a, b } = sockets(fn("x"), fn("shutdown", { imports: ["close"] }));
  const s = new MatchState(a, b);
  s.pair(0, 0, "bytes");
  assert.equal(importLeafRound(s, IMPORT_LEAF_DEFAULTS), 2);
  assert.equal(s.partnerA[3], -1);
});

Deno.test("importLeafRound() leaves a callee that calls functions of its own binary", () => {
  const { a, b } = sockets();
  calls(a[3]!, a[4]!);
  calls(b[3]!, b[4]!);
  const s = new MatchState(a, b);
  s.pair(0, 0, "bytes");
  assert.equal(importLeafRound(s, IMPORT_LEAF_DEFAULTS), 2);
  assert.equal(s.partnerA[3], -1);
});

Deno.test("importLeafRound() leaves a leaf that two matched callers would pair differently", () => {
  // A second matched caller reaches a's `close` wrapper and, in b, another `close` wrapper.
  const { a, b } = sockets(fn("x"), fn("y"));
  const a2 = fn("destroy");
  const b2 = fn("destroy");
  const other = fn("close3", { imports: ["close"] });
  calls(a2, a[3]!);
  calls(b2, other);
  const s = new MatchState([...a, a2], [...b, b2, other]);
  s.pair(0, 0, "bytes");
  s.pair(5, 5, "bytes");
  assert.equal(importLeafRound(s, IMPORT_LEAF_DEFAULTS), 2);
  assert.equal(s.partnerA[3], -1);
});

Deno.test("importLeafRound() leaves a pair less similar than the floor", () => {
  const { a, b } = sockets();
  b[1] = {
    ...b[1]!,
    instructions: 30,
    size: 200,
    blocks: 12,
    edges: 20,
    loops: 2,
    cfg_sig: "12.20.2.ff",
    histogram: [1, 29],
  };
  const s = new MatchState(a, b);
  s.pair(0, 0, "bytes");
  assert.equal(importLeafRound(s, IMPORT_LEAF_DEFAULTS), 2);
  assert.equal(s.partnerA[1], -1);
});

Deno.test("globalImportLeafRound() pairs leaves whose imports no other function calls, with no matched caller", () => {
  const { a, b } = sockets();
  const s = new MatchState(a, b);
  assert.equal(globalImportLeafRound(s, GLOBAL_IMPORT_LEAF_DEFAULTS), 3);
  assert.deepEqual([...s.partnerA.slice(1, 4)], [1, 2, 3]);
  assert.equal(s.matches.at(-1)!.round, "import_leaves:global");
});

Deno.test("globalImportLeafRound() leaves imports that a second function anywhere calls", () => {
  // A function calling only `close` anywhere in b, even one that calls other functions too.
  const { a, b } = sockets();
  const s = new MatchState(a, [...b, fn("teardown", { imports: ["close"] })]);
  assert.equal(globalImportLeafRound(s, GLOBAL_IMPORT_LEAF_DEFAULTS), 2);
  assert.equal(s.partnerA[3], -1);
});

Deno.test("globalImportLeafRound() leaves a function that calls functions of its own binary", () => {
  const { a, b } = sockets();
  calls(b[3]!, b[4]!);
  const s = new MatchState(a, b);
  assert.equal(globalImportLeafRound(s, GLOBAL_IMPORT_LEAF_DEFAULTS), 2);
  assert.equal(s.partnerA[3], -1);
});
