import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";
import { MUTUAL_LEAD_DEFAULTS, mutualLeadRound } from "./mutual_lead.ts";
import { similarity } from "./similarity.ts";

/** Bodies of three shapes: alike within a shape (similarity about 0.8), unlike across. */
const SHAPES: Record<string, Partial<FunctionFeatures>> = {
  loop: { histogram: [9, 1], mnem_hash: "loop", instructions: 40, blocks: 9, edges: 12 },
  flat: { histogram: [1, 9], mnem_hash: "flat", instructions: 12, blocks: 1, edges: 0 },
  call: { histogram: [5, 5, 5], mnem_hash: "call", instructions: 20, blocks: 4, edges: 4 },
};

/** A function of `shape`, its bytes its own. */
const body = (name: string, shape: string, over: Partial<FunctionFeatures> = {}) =>
  fn(`sub_${name}`, { ...SHAPES[shape], bytes_hash: name, ...over });

const made = (s: MatchState) =>
  s.matches.filter((m) => m.round === MUTUAL_LEAD_DEFAULTS.round).map((m) => [m.a, m.b]);

Deno.test("mutualLeadRound() pairs leftovers that pick each other by a clear lead", () => {
  const a = [body("a-loop", "loop"), body("a-flat", "flat")];
  const b = [body("b-flat", "flat"), body("b-loop", "loop")];
  const s = new MatchState(a, b);
  assert.ok(similarity(a[0]!, b[1]!) < 1);
  assert.equal(mutualLeadRound(s, MUTUAL_LEAD_DEFAULTS), 2);
  assert.deepEqual(made(s).sort(), [[0, 1], [1, 0]]);
});

Deno.test("mutualLeadRound() leaves a function with a rival as alike", () => {
  // Two loops in b, equally like a's loop: no lead.
  const a = [body("c-loop", "loop")];
  const b = [body("d-loop", "loop"), body("d-loop2", "loop")];
  const s = new MatchState(a, b);
  assert.equal(mutualLeadRound(s, MUTUAL_LEAD_DEFAULTS), 0);
});

Deno.test("mutualLeadRound() leaves a pair whose matched neighbours are elsewhere", () => {
  // a's loop calls the matched helper; b's loop calls nothing matched, another b function does.
  const a = [body("e-loop", "loop"), body("e-helper", "call")];
  const b = [body("f-loop", "loop"), body("f-helper", "call"), body("f-other", "flat")];
  calls(a[0]!, a[1]!);
  calls(b[2]!, b[1]!);
  const s = new MatchState(a, b);
  s.pair(1, 1, "given");
  assert.equal(mutualLeadRound(s, MUTUAL_LEAD_DEFAULTS), 0);
  assert.deepEqual(made(s), []);
});

Deno.test("mutualLeadRound() leaves bodies under its least size", () => {
  const tiny = { instructions: 4, blocks: 1, edges: 0 };
  const a = [body("g-tiny", "flat", tiny)];
  const b = [body("h-tiny", "flat", tiny)];
  const s = new MatchState(a, b);
  assert.equal(mutualLeadRound(s, MUTUAL_LEAD_DEFAULTS), 0);
  assert.equal(mutualLeadRound(s, { ...MUTUAL_LEAD_DEFAULTS, minInstructions: 1 }), 1);
});
