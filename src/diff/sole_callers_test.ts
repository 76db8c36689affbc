import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { MatchState } from "./match_state.ts";
import { SOLE_CALLER_DEFAULTS, soleCallerRound } from "./sole_callers.ts";

/**
 * libfuse's fallocate in small: a matched helper only one function calls on each side (0 calls
 * 1), and a hub (2) that caller calls along with others.
 */
function fallocate() {
  const a = [fn("lib_fallocate"), fn("fs_fallocate"), fn("reply_err"), fn("lib_rmdir")];
  const b = [fn("lib_fallocate2"), fn("fs_fallocate"), fn("reply_err"), fn("lib_rmdir2")];
  calls(a[0]!, a[1]!, a[2]!);
  calls(a[3]!, a[2]!);
  calls(b[0]!, b[1]!, b[2]!);
  calls(b[3]!, b[2]!);
  return { a, b };
}

Deno.test("soleCallerRound() pairs the only callers of a matched pair", () => {
  const { a, b } = fallocate();
  const s = new MatchState(a, b);
  s.pair(1, 1, "bytes");
  s.pair(2, 2, "bytes");
  assert.equal(soleCallerRound(s, SOLE_CALLER_DEFAULTS), 1);
  assert.equal(s.partnerA[0], 0);
  assert.equal(s.partnerA[3], -1);
  assert.equal(s.matches.at(-1)!.round, "sole_callers");
});

Deno.test("soleCallerRound() leaves a callee with a second caller on one side", () => {
  const { a, b } = fallocate();
  calls(b[3]!, b[1]!);
  const s = new MatchState(a, b);
  s.pair(1, 1, "bytes");
  assert.equal(soleCallerRound(s, SOLE_CALLER_DEFAULTS), 0);
});

Deno.test("soleCallerRound() leaves a caller that two pairs would pair differently", () => {
  // a's lib_fallocate is also the only caller of a matched `log` whose only caller in b is rmdir.
  const { a, b } = fallocate();
  const logA = fn("log");
  const logB = fn("log");
  calls(a[0]!, logA);
  calls(b[3]!, logB);
  const s = new MatchState([...a, logA], [...b, logB]);
  s.pair(1, 1, "bytes");
  s.pair(4, 4, "bytes");
  assert.equal(soleCallerRound(s, SOLE_CALLER_DEFAULTS), 0);
});

Deno.test("soleCallerRound() leaves callers less similar than the floor", () => {
  const { a, b } = fallocate();
  b[0] = {
    ...b[0]!,
    instructions: 300,
    size: 1200,
    blocks: 40,
    edges: 60,
    loops: 3,
    cfg_sig: "40.60.3.ff",
    histogram: [1, 299],
  };
  const s = new MatchState(a, b);
  s.pair(1, 1, "bytes");
  assert.equal(soleCallerRound(s, SOLE_CALLER_DEFAULTS), 0);
});
