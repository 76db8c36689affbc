import assert from "node:assert/strict";
import { fn } from "./_test_features.ts";
import type { FunctionFeatures } from "./features.ts";
import { FuzzyRound } from "./fuzzy.ts";
import { MatchState } from "./match_state.ts";
import { bestMutual } from "./mutual.ts";
import { similarity, similarityAtLeast } from "./similarity.ts";

/** The features of `f` without its address (fn() gives each copy its own). */
function elsewhere(f: FunctionFeatures): Partial<FunctionFeatures> {
  const { start: _, ...rest } = f;
  return rest;
}

/** Deterministic pseudo-random features: many near-alike functions, as in a large binary. */
function population(tag: string, n: number, seed: number): FunctionFeatures[] {
  let x = seed;
  const rnd = (k: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % k;
  };
  const out = Array.from({ length: n }, (_, k) => {
    const histogram = Array.from({ length: 8 }, () => rnd(6));
    const instructions = histogram.reduce((p, q) => p + q, 0) + 5;
    histogram[0]! += 5;
    return fn(`sub_${tag}${k}`, {
      instructions,
      size: instructions * 4,
      blocks: 1 + rnd(4),
      edges: rnd(5),
      histogram,
      mnem_set_hash: `set${rnd(3)}`,
      constants: rnd(2) ? [0x100 + rnd(3)] : [],
    });
  });
  // Copies alike in everything similarity reads (stubs): groups of two and of more than the
  // candidates FuzzyRound keeps per function.
  for (const [from, copies] of [[3, 1], [7, 6]] as const) {
    for (let c = 0; c < copies; c++) {
      out.push(fn(`sub_${tag}copy${from}.${c}`, elsewhere(out[from]!)));
    }
  }
  return out;
}

Deno.test("FuzzyRound run again after more matches pairs exactly what a fresh comparison pairs", () => {
  const a = population("a", 60, 1);
  const b = population("b", 60, 2);
  // The same stubs on both sides.
  b.push(...a.slice(60).map((f) => fn(f.name, elsewhere(f))));
  const all = [...a.keys()];
  for (const min of [0.6, 0.75, 0.85]) {
    const kept = new MatchState(a, b);
    const fuzzy = new FuzzyRound(kept, all, [...b.keys()], min);
    for (let pass = 0; pass < 6; pass++) {
      // The same state, compared afresh.
      const fresh = new MatchState(a, b);
      for (const m of kept.matches) fresh.pair(m.a, m.b, m.round);
      const want = bestMutual(fresh, all, [...b.keys()], min, "similarity");
      const got = fuzzy.run("similarity");
      assert.equal(got, want, `min ${min}, pass ${pass}`);
      assert.deepEqual([...kept.partnerA], [...fresh.partnerA]);
      // Other rounds match some functions between two passes: stubs first, so that the kept
      // candidates of the others run out.
      for (const from of [60, 0]) {
        const i = all.find((k) => k >= from && kept.partnerA[k] === -1 && k % 3 === pass % 3);
        const j = [...b.keys()].findLast((k) => kept.partnerB[k] === -1);
        if (i !== undefined && j !== undefined) kept.pair(i, j, "other");
      }
    }
  }
});

Deno.test("similarityAtLeast() is similarity() when it reaches the minimum, else -1", () => {
  const a = population("x", 30, 3);
  const b = population("y", 30, 4);
  for (const f of a) {
    for (const g of b) {
      const sim = similarity(f, g);
      for (const min of [0.5, 0.7, 0.9]) {
        assert.equal(similarityAtLeast(f, g, min), sim >= min ? sim : -1);
      }
    }
  }
});
