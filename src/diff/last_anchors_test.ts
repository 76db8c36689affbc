import assert from "node:assert/strict";
import { calls, fn } from "./_test_features.ts";
import { LAST_ANCHOR_DEFAULTS, lastAnchorRound } from "./last_anchors.ts";
import { MatchState } from "./match_state.ts";
import type { FunctionFeatures } from "./features.ts";

/** A state with `a[k]` ↔ `b[k]` paired for each listed `k`. */
function state(a: FunctionFeatures[], b: FunctionFeatures[], given: number[]): MatchState {
  const s = new MatchState(a, b);
  for (const k of given) s.pair(k, k, "given");
  return s;
}

Deno.test("lastAnchorRound() pairs a free function with its clear best by call-graph position", () => {
  // main → x → leaf1, leaf2 on both sides; the bodies share nothing but their shape.
  const a = [fn("main"), fn("leaf1"), fn("leaf2"), fn("sub_x")];
  const b = [fn("main"), fn("leaf1"), fn("leaf2"), fn("sub_y"), fn("sub_lonely")];
  calls(a[0]!, a[3]!);
  calls(a[3]!, a[1]!, a[2]!);
  calls(b[0]!, b[3]!);
  calls(b[3]!, b[1]!, b[2]!);
  const s = state(a, b, [0, 1, 2]);
  assert.equal(lastAnchorRound(s, LAST_ANCHOR_DEFAULTS), 1);
  assert.equal(s.partnerA[3], 3);
  assert.equal(s.matches.at(-1)!.round, "anchors:last");
});

Deno.test("lastAnchorRound() needs two shared matched neighbours", () => {
  // x and y share only their caller: one anchor, however alone they are there.
  const a = [fn("main"), fn("sub_x")];
  const b = [fn("main"), fn("sub_y")];
  calls(a[0]!, a[1]!);
  calls(b[0]!, b[1]!);
  const s = state(a, b, [0]);
  assert.equal(lastAnchorRound(s, LAST_ANCHOR_DEFAULTS), 0);
  assert.equal(lastAnchorRound(s, { ...LAST_ANCHOR_DEFAULTS, minCommon: 1 }), 1);
});

Deno.test("lastAnchorRound() does not let address order break a tie of position", () => {
  // b has two look-alikes placed like x: y1 between the partners of x's neighbours in address
  // order, y2 after them. Order alone would pick y1; position says nothing.
  const a = [fn("main"), fn("leaf1"), fn("sub_x"), fn("leaf2")];
  const b = [fn("main"), fn("leaf1"), fn("sub_y1"), fn("leaf2"), fn("sub_y2")];
  calls(a[0]!, a[2]!);
  calls(a[2]!, a[1]!);
  calls(b[0]!, b[2]!, b[4]!);
  calls(b[2]!, b[1]!);
  calls(b[4]!, b[1]!);
  const s = state(a, b, [0, 1, 3]);
  assert.equal(lastAnchorRound(s, LAST_ANCHOR_DEFAULTS), 0);
  assert.equal(s.partnerA[2], -1);
});

Deno.test("lastAnchorRound() lets address order lift a clear best over the least score", () => {
  // x ↔ y share two of y's three matched neighbours and little of their bodies: the only
  // candidates, but short of the least score unless y keeps the address order between the
  // partners of x's matched neighbours.
  const make = (yBetween: boolean) => {
    const a = [
      fn("main"),
      fn("leaf1"),
      fn("sub_x", { instructions: 30 }),
      fn("leaf2"),
      fn("leaf3"),
    ];
    // Addresses follow creation order: y is made at its place.
    const sub = () => fn("sub_y", { instructions: 12, blocks: 1, edges: 0, histogram: [1, 11] });
    const b = yBetween
      ? [fn("main"), fn("leaf1"), sub(), fn("leaf2"), fn("leaf3")]
      : [fn("main"), fn("leaf1"), fn("leaf2"), fn("leaf3"), sub()];
    const y = b.find((f) => f.name === "sub_y")!;
    const at = (name: string) => b.findIndex((f) => f.name === name);
    calls(a[0]!, a[2]!);
    calls(a[2]!, a[1]!);
    calls(b[0]!, y);
    calls(y, b[at("leaf1")]!, b[at("leaf3")]!);
    const s = new MatchState(a, b);
    ["main", "leaf1", "leaf2", "leaf3"].forEach((n) =>
      s.pair(a.findIndex((f) => f.name === n), at(n), "given")
    );
    return { s, y: b.indexOf(y) };
  };
  const outOfOrder = make(false);
  assert.equal(lastAnchorRound(outOfOrder.s, LAST_ANCHOR_DEFAULTS), 0);
  const inOrder = make(true);
  assert.equal(lastAnchorRound(inOrder.s, LAST_ANCHOR_DEFAULTS), 1);
  assert.equal(inOrder.s.partnerA[2], inOrder.y);
});
