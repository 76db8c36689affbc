import assert from "node:assert/strict";
import { fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";
import { TABLE_CHECK_DEFAULTS, tableCheck } from "./table_check.ts";
import type { FunctionPointer } from "./table_lines.ts";

/** A table of `fs` at `at`, one entry every 16 bytes. */
function table(at: number, fs: FunctionFeatures[]): FunctionPointer[] {
  return fs.map((f, k) => [at + k * 16, f.start] as const);
}

/**
 * A VFS table in small: `a`'s `unlock` is a thin wrapper around `helper`; `b` inlined the helper
 * into `unlock`, and position paired `a`'s helper with `b`'s `unlock`.
 */
function inlinedIntoWrapper() {
  const a = ["open", "close", "lock", "unlock", "sync", "helper"].map((n) => fn(n));
  const b = ["open", "close", "lock", "unlock", "sync"].map((n) => fn(n));
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 4]) s.pair(k, k, "bytes");
  s.pair(5, 3, "anchors");
  return { s, pointers: { a: table(0x9000, a.slice(0, 5)), b: table(0x7000, b) } };
}

Deno.test("tableCheck() moves a pair the table contradicts to the function at the slot", () => {
  const { s, pointers } = inlinedIntoWrapper();
  const taken = tableCheck(s, pointers, TABLE_CHECK_DEFAULTS);
  assert.deepEqual(taken.map((m) => [m.a, m.b]), [[5, 3]]);
  assert.equal(s.partnerA[5], -1);
  assert.equal(s.partnerB[3], 3);
  assert.equal(s.matches.at(-1)!.round, "tables:check");
  // Banned: no later round pairs the helper with `b`'s unlock again.
  assert.ok(s.banned.has(5 * s.b.length + 3));
});

Deno.test("tableCheck() does nothing without pointers or with a confirming slot", () => {
  const { s, pointers } = inlinedIntoWrapper();
  assert.deepEqual(tableCheck(s, undefined, TABLE_CHECK_DEFAULTS), []);
  // Another table holds a's helper where it holds b's unlock: that table confirms the pair.
  const a = ["p", "q", "r"].map((n) => fn(n));
  const b = ["p", "q", "r"].map((n) => fn(n));
  const t = new MatchState([...s.a, ...a], [...s.b, ...b]);
  for (const m of s.matches) t.pair(m.a, m.b, m.round);
  for (const k of [0, 1, 2]) t.pair(6 + k, 5 + k, "bytes");
  const more = {
    a: [...pointers.a, ...table(0xa000, [...a, s.a[5]!])],
    b: [...pointers.b, ...table(0x8000, [...b, s.b[3]!])],
  };
  assert.deepEqual(tableCheck(t, more, TABLE_CHECK_DEFAULTS), []);
  assert.equal(t.partnerA[5], 3);
});

Deno.test("tableCheck() keeps a pair whose partner sits in the same edited run", () => {
  // Lua 5.3 dropped `bit32` from its list of libraries and added `utf8` after `math`: a's `math`
  // faces b's free `utf8`, b's `math` sits one slot before, between the same matched neighbours.
  const a = ["base", "table", "io", "bit32", "math", "debug"].map((n) => fn(n));
  const b = ["base", "table", "io", "math", "utf8", "debug"].map((n) => fn(n));
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 5]) s.pair(k, k, "bytes");
  s.pair(4, 3, "anchors");
  assert.deepEqual(
    tableCheck(s, { a: table(0x9000, a), b: table(0x7000, b) }, TABLE_CHECK_DEFAULTS),
    [],
  );
  assert.equal(s.partnerA[4], 3);
});

Deno.test("tableCheck() takes back without moving when the slot is not alone in its run", () => {
  // Two free slots between the matched neighbours: the pair crosses out of the run, but which
  // function of the run is whose is not certain.
  const a = ["f0", "f1", "f2", "x", "w", "f5", "helper"].map((n) => fn(n));
  const b = ["f0", "f1", "f2", "x", "w", "f5"].map((n) => fn(n));
  const s = new MatchState(a, b);
  for (const k of [0, 1, 2, 5]) s.pair(k, k, "bytes");
  s.pair(6, 4, "anchors");
  const taken = tableCheck(
    s,
    { a: table(0x9000, a.slice(0, 6)), b: table(0x7000, b) },
    TABLE_CHECK_DEFAULTS,
  );
  assert.deepEqual(taken.map((m) => [m.a, m.b]), [[6, 4]]);
  assert.equal(s.partnerB[4], -1);
  assert.equal(s.partnerA[4], -1);
});
