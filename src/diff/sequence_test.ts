import assert from "node:assert/strict";
import { fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";
import { SEQUENCE_DEFAULTS, sequenceRound } from "./sequence.ts";

const OPTS = SEQUENCE_DEFAULTS;

/** A changed copy of `f`'s body under another name (similar, not identical). */
const changed = (name: string) => fn(name, { instructions: 11, histogram: [5, 6] });

Deno.test("sequenceRound() fills an equal gap between two matched pairs in order", () => {
  const a = [fn("first"), fn("sub_1"), fn("sub_2"), fn("last")];
  const b = [fn("first"), changed("sub_a"), changed("sub_b"), fn("last")];
  const s = new MatchState(a, b);
  s.pair(0, 0, "name");
  s.pair(3, 3, "name");
  assert.equal(sequenceRound(s, OPTS), 2);
  assert.deepEqual([s.partnerA[1], s.partnerA[2]], [1, 2]);
});

Deno.test("sequenceRound() leaves functions before the first matched pair alone", () => {
  const a = [fn("sub_1"), fn("last")];
  const b = [changed("sub_a"), fn("last")];
  const s = new MatchState(a, b);
  s.pair(1, 1, "name");
  assert.equal(sequenceRound(s, OPTS), 0);
});

Deno.test("sequenceRound() pairs twins only where the whole gap is the same code in order", () => {
  const twin = { bytes_hash: "T", mnem_hash: "M" };
  const other = { bytes_hash: "O", mnem_hash: "N" };
  const same = () => {
    const a = [fn("first"), fn("sub_1", twin), fn("sub_2", twin), fn("last")];
    const b = [fn("first"), fn("sub_a", twin), fn("sub_b", twin), fn("last")];
    return new MatchState(a, b);
  };
  const s = same();
  s.pair(0, 0, "name");
  s.pair(3, 3, "name");
  assert.equal(sequenceRound(s, OPTS), 2);

  // Twins beside a different function in b: which twin went where is a guess.
  const a = [fn("first"), fn("sub_1", twin), fn("sub_2", twin), fn("last")];
  const b = [fn("first"), fn("sub_a", other), fn("sub_b", twin), fn("last")];
  const t = new MatchState(a, b);
  t.pair(0, 0, "name");
  t.pair(3, 3, "name");
  sequenceRound(t, OPTS);
  assert.equal(t.partnerA[1], -1);
  assert.equal(t.partnerA[2], -1);
});

Deno.test("sequenceRound() searches an unequal gap by similarity", () => {
  // b gained a new, unlike function beside the changed one.
  const a = [fn("first"), fn("sub_1"), fn("last")];
  const b = [
    fn("first"),
    fn("sub_new", { instructions: 12, histogram: [0, 12], blocks: 1, edges: 0 }),
    changed("sub_a"),
    fn("last"),
  ];
  const s = new MatchState(a, b);
  s.pair(0, 0, "name");
  s.pair(2, 3, "name");
  assert.equal(sequenceRound(s, OPTS), 1);
  assert.equal(s.partnerA[1], 2);
  assert.equal(s.matches.at(-1)!.round, "sequence:similarity");
});

Deno.test("sequenceRound() leaves two tiny bodies of one length but other mnemonics alone", () => {
  // a's tiny function grew in b; b gained another tiny function of the same length beside it.
  const tiny = { instructions: 2, size: 8, blocks: 1, edges: 0, histogram: [1, 1] };
  const a = [fn("first"), fn("sub_1", tiny), fn("last")];
  const gap = (newcomer: Partial<FunctionFeatures>) => {
    const b = [
      fn("first"),
      fn("sub_grown", { instructions: 34, histogram: [20, 14], blocks: 6, edges: 8 }),
      fn("sub_new", { ...tiny, ...newcomer }),
      fn("last"),
    ];
    const s = new MatchState(a, b);
    s.pair(0, 0, "name");
    s.pair(2, 3, "name");
    return s;
  };
  // 0.81 similar on shape alone.
  assert.equal(sequenceRound(gap({}), OPTS), 0);
  // The same mnemonics (a constant changed): the same function.
  const t = gap({ mnem_hash: a[1]!.mnem_hash });
  assert.equal(sequenceRound(t, OPTS), 1);
  assert.equal(t.partnerA[1], 2);
});
