import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { matchFunctions } from "./match.ts";
import { MatchState } from "./match_state.ts";
import { SMALL_BYTES_DEFAULTS, smallBytesRound } from "./small_bytes.ts";

/**
 * Expat's handler setters (`test rdi; je; mov [rdi+off], rsi; ret`) between two larger
 * functions: setter k stores at offset `base + 8k`; nothing calls them.
 */
function setters(tag: string, base: number, n: number): FunctionFeatures[] {
  const shape = { instructions: 4, blocks: 2, edges: 2, cfg_sig: "2.2.0.1e", histogram: [1, 1, 1] };
  return [
    fn(`${tag}_create`, { bytes_hash: "create", instructions: 40 }),
    ...Array.from({ length: n }, (_, k) =>
      fn(`sub_${tag}${k}`, {
        ...shape,
        bytes_hash: `store+${base + 8 * k}`,
        mnem_hash: "setter",
        mnem_set_hash: "setter",
      })),
    fn(`${tag}_free`, { bytes_hash: "free", instructions: 40 }),
  ];
}

/** The pairs of setters as [a's k, b's k]. */
const setterPairs = (a: FunctionFeatures[], b: FunctionFeatures[]) =>
  matchFunctions(a, b).matches
    .filter((m) => a[m.a]!.instructions === 4)
    .map((m) => [m.a - 1, m.b - 1]);

Deno.test("matchFunctions() does not take equal bytes of tiny bodies as certain", () => {
  // b's parser has two more fields before the handlers: a's setter k has the bytes of b's
  // setter k - 2, unique on both sides.
  const a = setters("a", 0x100, 8);
  const b = setters("b", 0xf0, 8);
  const pairs = setterPairs(a, b);
  for (const [x, y] of pairs) assert.equal(x, y, `setter ${x} paired with ${y}`);
});

Deno.test("matchFunctions() still pairs unchanged tiny bodies in place", () => {
  const a = setters("a", 0x100, 6);
  const b = setters("b", 0x100, 6);
  assert.deepEqual(setterPairs(a, b), [0, 1, 2, 3, 4, 5].map((k) => [k, k]));
});

Deno.test("smallBytesRound() wants call-graph agreement or an address place, not bytes alone", () => {
  // main calls s0 / t0 (agreement); s1 and t1 sit between main and end alike (place); s2 has the
  // bytes of u, which sits two functions further from end than s2 does (neither).
  const a = [fn("main"), fn("s0", { bytes_hash: "x" }), fn("s1", { bytes_hash: "y" }), fn("end")];
  a.push(fn("s2", { bytes_hash: "z" }));
  const b = [fn("main"), fn("t0", { bytes_hash: "x" }), fn("t1", { bytes_hash: "y" }), fn("end")];
  b.push(fn("other"), fn("another"), fn("u", { bytes_hash: "z" }));
  calls(a[0]!, a[1]!);
  calls(b[0]!, b[1]!);
  const s = new MatchState(a, b);
  s.pair(0, 0, "name");
  s.pair(3, 3, "name");
  assert.equal(smallBytesRound(s, (f) => f.bytes_hash, SMALL_BYTES_DEFAULTS), 2);
  assert.deepEqual(s.matches.slice(2).map((m) => [m.a, m.b, m.round]), [
    [1, 1, "bytes:small"],
    [2, 2, "bytes:small"],
  ]);
  assert.equal(s.partnerA[4], -1);
});
