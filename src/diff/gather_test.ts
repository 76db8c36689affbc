import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { pointersOf, type ToolCaller } from "./gather.ts";

Deno.test("pointersOf() reads function_features' pointers, and nothing from a backend without", async () => {
  const listed: ToolCaller = (_name, args) => {
    assert.equal(args.pointers, true);
    return Promise.resolve({ items: [], pointers: [["0x2add0", "0x1f30"], ["0x2ade0", "0x2040"]] });
  };
  assert.deepEqual(await pointersOf(listed), [[0x2add0, 0x1f30], [0x2ade0, 0x2040]]);
  const without: ToolCaller = () => Promise.resolve({ items: [] });
  assert.equal(await pointersOf(without), undefined);
  const refused: ToolCaller = () =>
    Promise.reject(new RemcpError("InvalidArgument", "unknown argument pointers"));
  assert.equal(await pointersOf(refused), undefined);
  const cancelled: ToolCaller = () => Promise.reject(new RemcpError("Cancelled", "cancelled"));
  await assert.rejects(pointersOf(cancelled));
});
