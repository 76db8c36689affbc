import assert from "node:assert/strict";
import { parseRzDiffFunctions } from "./_rizin.ts";

Deno.test("parseRzDiffFunctions() skips analysis messages, pairs matched rows and collects each side's starts", () => {
  const text = "[x] Analyze all flags starting with sym. and entry0 (aa)\n" + JSON.stringify([
    {
      name: "fcn.1",
      similarity: 1,
      original: { addr: 0x10, size: 4 },
      modified: { addr: 0x20, size: 4 },
    },
    { similarity: 0, original: { addr: 0x30 }, modified: null },
    { similarity: 0, original: null, modified: { addr: 0x40 } },
  ]);
  const f = parseRzDiffFunctions(text);
  assert.deepEqual(f.matched, [[0x10, 0x20]]);
  assert.deepEqual([...f.foundA], [0x10, 0x30]);
  assert.deepEqual([...f.foundB], [0x20, 0x40]);
});

Deno.test("parseRzDiffFunctions() says what rz-diff printed when there is no JSON array", () => {
  assert.throws(() => parseRzDiffFunctions("Cannot open file"), /no JSON array: Cannot open file/);
});
