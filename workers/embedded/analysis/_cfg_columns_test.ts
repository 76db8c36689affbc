import assert from "node:assert/strict";
import {
  CfgColumnsBuilder,
  cfgCounts,
  ColumnFunction,
  eachBlock,
  eachEdge,
} from "./_cfg_columns.ts";
import type { Block, Edge } from "./types.ts";

const head = (start: number) => ({
  start,
  end: start + 0x20,
  name: `f${start}`,
  source: "symbol" as const,
  flags: [],
  chunks: [],
});

Deno.test("ColumnFunction gives back the blocks and edges each function was added with", () => {
  const cfg = new CfgColumnsBuilder();
  const made: { blocks: Block[]; edges: Edge[] }[] = [];
  const fns: ColumnFunction[] = [];
  // Enough functions, blocks and edges to make every column grow.
  for (let f = 0; f < 600; f++) {
    const start = 0x1000 + f * 0x100;
    const blocks: Block[] = [];
    const edges: Edge[] = [];
    for (let b = 0; b < (f % 7) + 1; b++) {
      blocks.push({ start: start + b * 8, end: start + b * 8 + 8 });
    }
    for (let e = 0; e < (f % 5); e++) {
      const edge: Edge = { from: start, to: start + 8 * e, kind: e % 2 === 0 ? "case" : "fall" };
      if (edge.kind === "case") edge.value = e;
      edges.push(edge);
    }
    made.push({ blocks, edges });
    fns.push(new ColumnFunction(cfg.columns, cfg.add(blocks, edges), head(start)));
  }
  cfg.finish();
  fns.forEach((fn, i) => {
    assert.deepEqual(cfgCounts(fn), {
      blocks: made[i]!.blocks.length,
      edges: made[i]!.edges.length,
    });
    const seen: number[] = [];
    eachBlock(fn, (s, e) => seen.push(s, e));
    assert.deepEqual(seen, made[i]!.blocks.flatMap((b) => [b.start, b.end]));
    assert.deepEqual(fn.blocks, made[i]!.blocks);
    assert.deepEqual(fn.edges, made[i]!.edges);
  });
});

Deno.test("eachEdge reads a function's edges the same before and after they become objects", () => {
  const cfg = new CfgColumnsBuilder();
  const edges: Edge[] = [{ from: 1, to: 2, kind: "true" }, {
    from: 1,
    to: 9,
    kind: "case",
    value: 3,
  }];
  const fn = new ColumnFunction(cfg.columns, cfg.add([{ start: 1, end: 2 }], edges), head(1));
  cfg.finish();
  const rows = () => {
    const out: number[][] = [];
    eachEdge(fn, (from, to, kind, value) => out.push([from, to, kind, value]));
    return out;
  };
  const before = rows();
  assert.equal(fn.edges.length, 2);
  assert.deepEqual(rows(), before);
  assert.deepEqual(before, [[1, 2, 0, -1], [1, 9, 4, 3]]);
});
