import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { gatherFeatures, type ToolCaller } from "./gather.ts";

/** A function_features row as a backend lists it. */
const row = (start: number) => ({
  name: `f${start}`,
  start: `0x${start.toString(16)}`,
  callees: [],
});

/** Two pages of function_features: 0x1000 and 0x2000, then 0x3000, with pointers per page. */
const paged = (withPointers: boolean): ToolCaller => (_name, args) => {
  const first = args.offset === 0;
  const page = {
    items: first ? [row(0x1000), row(0x2000)] : [row(0x3000)],
    total: 3,
    has_more: first,
    ...(first ? { next_offset: 2 } : {}),
  };
  if (!withPointers || args.pointers !== true) return Promise.resolve(page);
  const pointers = first ? [["0x9010", "0x2000"], ["0x9000", "0x1000"]] : [["0x9008", "0x3000"]];
  return Promise.resolve({ ...page, pointers });
};

Deno.test("gatherFeatures() collects each page's function pointers, in slot order", async () => {
  const g = await gatherFeatures(paged(true), "auto", () => {});
  assert.deepEqual(g.features.map((f) => f.start), [0x1000, 0x2000, 0x3000]);
  assert.deepEqual(g.pointers, [[0x9000, 0x1000], [0x9008, 0x3000], [0x9010, 0x2000]]);
});

Deno.test("gatherFeatures() goes on without pointers from a backend that leaves them out or refuses them", async () => {
  const without = await gatherFeatures(paged(false), "auto", () => {});
  assert.equal(without.features.length, 3);
  assert.equal(without.pointers, undefined);
  const inner = paged(false);
  const refusing: ToolCaller = (name, args) =>
    args.pointers === true
      ? Promise.reject(new RemcpError("InvalidArgument", "unknown argument pointers"))
      : inner(name, args);
  const refused = await gatherFeatures(refusing, "auto", () => {});
  assert.equal(refused.features.length, 3);
  assert.equal(refused.pointers, undefined);
  const cancelled: ToolCaller = () => Promise.reject(new RemcpError("Cancelled", "cancelled"));
  await assert.rejects(gatherFeatures(cancelled, "auto", () => {}), /cancelled/);
});
