import assert from "node:assert/strict";
import { parseRzDiffFunctions } from "./_rizin.ts";

Deno.test("parseRzDiffFunctions() skips analysis messages, pairs matched rows and collects each side's starts", () => {
  const text = "[x] Analyze all flags starting with sym. and entry0 (aa)\n" + JSON.stringify([
    // The shape of Rizin 0.7.3's rows: pairs first, then each side's unmatched functions.
    {
      similarity: 0.979192,
      type: "PARTIAL",
      original: { name: "fcn.000024c0", addr: 0x10, size: 817 },
      modified: { name: "fcn.000024c0", addr: 0x20, size: 817 },
    },
    {
      similarity: 0,
      type: "UNLIKE",
      original: { name: "fcn.30", addr: 0x30, size: 4 },
      modified: null,
    },
    {
      similarity: 0,
      type: "UNLIKE",
      original: null,
      modified: { name: "fcn.40", addr: 0x40, size: 4 },
    },
  ]);
  const f = parseRzDiffFunctions(text);
  assert.deepEqual(f.matched, [[0x10, 0x20]]);
  assert.deepEqual([...f.foundA], [0x10, 0x30]);
  assert.deepEqual([...f.foundB], [0x20, 0x40]);
});

Deno.test("parseRzDiffFunctions() says what rz-diff printed when there is no JSON array", () => {
  assert.throws(() => parseRzDiffFunctions("Cannot open file"), /no JSON array: Cannot open file/);
});

Deno.test("parseRzDiffFunctions() reads rows whose separating comma rz-diff dropped", () => {
  const row = (a: number | null, b: number | null) =>
    JSON.stringify({
      similarity: 0,
      type: "UNLIKE",
      original: a === null ? null : { name: `fcn.${a}`, addr: a, size: 0 },
      modified: b === null ? null : { name: `fcn.${b}`, addr: b, size: 4 },
    });
  const f = parseRzDiffFunctions(`[${row(0x10, null)}${row(null, 0x20)}]`);
  assert.deepEqual([...f.foundA], [0x10]);
  assert.deepEqual([...f.foundB], [0x20]);
});
