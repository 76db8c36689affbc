import assert from "node:assert/strict";
import { fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";
import { type UniqueBytesKeys, uniqueBytesRound } from "./unique_bytes.ts";

const KEYS: UniqueBytesKeys = {
  round: "bytes:unique",
  bytes: (f) => `${f.bytes_hash}:${f.instructions}`,
  shape: (f) => `${f.mnem_hash}:${f.cfg_sig}`,
};

/** A 4-instruction setter of the field at `offset`: setters differ in their bytes only. */
const setter = (offset: number): Partial<FunctionFeatures> => ({
  instructions: 4,
  bytes_hash: `setter+${offset}`,
  mnem_hash: "setter",
});

Deno.test("uniqueBytesRound() pairs small bodies no other function of either side has", () => {
  const a = [fn("hook1", setter(8)), fn("hook2", setter(16)), fn("other")];
  const b = [fn("other"), fn("hook2", setter(16)), fn("hook1", setter(8))];
  const s = new MatchState(a, b);
  s.pair(2, 0, "bytes");
  assert.equal(uniqueBytesRound(s, KEYS), 2);
  assert.equal(s.partnerA[0], 2);
  assert.equal(s.partnerA[1], 1);
});

Deno.test("uniqueBytesRound() leaves bytes another function shares, matched or not", () => {
  const a = [fn("x", setter(8)), fn("y", setter(8))];
  const b = [fn("x", setter(8)), fn("y", setter(8))];
  const s = new MatchState(a, b);
  s.pair(1, 1, "ties:bytes");
  assert.equal(uniqueBytesRound(s, KEYS), 0);
  assert.equal(s.partnerA[0], -1);
});

Deno.test("uniqueBytesRound() refuses a shape whose functions are not all explained by bytes", () => {
  // b moved every field by 8: a's setter of the field at 16 has the bytes of b's setter of the
  // field at 16, which is another field; a's setter at 8 and b's at 24 match nothing.
  const a = [fn("f1", setter(8)), fn("f2", setter(16))];
  const b = [fn("f1", setter(16)), fn("f2", setter(24))];
  const s = new MatchState(a, b);
  assert.equal(uniqueBytesRound(s, KEYS), 0);
  assert.equal(s.partnerA[1], -1);
});
