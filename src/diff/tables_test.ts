import assert from "node:assert/strict";
import { fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";
import { type FunctionPointer, TABLE_DEFAULTS, tableRound } from "./tables.ts";

/** A table of `fs` at `at`, one entry every `stride` bytes (a name pointer between, say). */
function table(at: number, fs: FunctionFeatures[], stride = 16): FunctionPointer[] {
  return fs.map((f, k) => [at + k * stride, f.start] as const);
}

/** libfuse's `fuse_ll_ops` in small: five handlers, the fourth rewritten, b's table moved. */
function handlers() {
  const a = ["init", "lookup", "forget", "getattr", "setattr"].map((n) => fn(`do_${n}`));
  const b = ["init", "lookup", "forget", "getattr2", "setattr"].map((n) => fn(`do_${n}`));
  return { a, b, pa: table(0x9000, a), pb: table(0x7000, b) };
}

Deno.test("tableRound() pairs the free functions at the same place of lined-up tables", () => {
  const { a, b, pa, pb } = handlers();
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 4]) s.pair(k, k, "bytes");
  assert.equal(tableRound(s, { a: pa, b: pb }, TABLE_DEFAULTS), 1);
  assert.equal(s.partnerA[3], 3);
  assert.equal(s.matches.at(-1)!.round, "tables");
});

Deno.test("tableRound() does nothing without pointers or with too few votes", () => {
  const { a, b, pa, pb } = handlers();
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 4]) s.pair(k, k, "bytes");
  assert.equal(tableRound(s, undefined, TABLE_DEFAULTS), 0);
  const few = new MatchState(a, b);
  for (const k of [0, 1]) few.pair(k, k, "bytes");
  assert.equal(tableRound(few, { a: pa, b: pb }, TABLE_DEFAULTS), 0);
});

Deno.test("tableRound() leaves tables a matched pair contradicts", () => {
  const { a, b, pa, pb } = handlers();
  // a's setattr paired elsewhere than the function facing it.
  const other = fn("elsewhere");
  const s2 = new MatchState(a, [...b, other]);
  for (const k of [0, 1, 2]) s2.pair(k, k, "bytes");
  s2.pair(4, 5, "bytes");
  s2.pair(3, 4, "bytes");
  const pb2 = [...pb, [0x8000, other.start] as const];
  assert.equal(tableRound(s2, { a: pa, b: pb2 }, TABLE_DEFAULTS), 0);
});

Deno.test("tableRound() leaves a free function two slots would pair differently", () => {
  // Two tables on each side, each lined up by three pairs; a's free `x` faces b's free `y` in the
  // first and b's free `z` in the second.
  const a = ["a0", "a1", "a2", "x", "c0", "c1", "c2"].map((n) => fn(n));
  const b = ["a0", "a1", "a2", "y", "c0", "c1", "c2", "z"].map((n) => fn(n));
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 4, 5, 6]) s.pair(k, k, "bytes");
  const pa = [
    ...table(0x9000, [a[0]!, a[1]!, a[2]!, a[3]!]),
    ...table(0xa000, [a[4]!, a[5]!, a[6]!, a[3]!]),
  ];
  const pb = [
    ...table(0x7000, [b[0]!, b[1]!, b[2]!, b[3]!]),
    ...table(0x8000, [b[4]!, b[5]!, b[6]!, b[7]!]),
  ];
  assert.equal(tableRound(s, { a: pa, b: pb }, TABLE_DEFAULTS), 0);
  // With `z` gone from b's second table, `x` faces `y` alone.
  const pb1 = [
    ...table(0x7000, [b[0]!, b[1]!, b[2]!, b[3]!]),
    ...table(0x8000, [b[4]!, b[5]!, b[6]!]),
  ];
  assert.equal(tableRound(s, { a: pa, b: pb1 }, TABLE_DEFAULTS), 1);
  assert.equal(s.partnerA[3], 3);
});
