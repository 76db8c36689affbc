import assert from "node:assert/strict";
import { diffLines, lineSimilarity, renderDiff } from "./text_diff.ts";

Deno.test("diffLines() keeps the common lines and marks the rest", () => {
  const d = diffLines(["a", "b", "c", "d"], ["a", "x", "c", "d", "e"]);
  assert.deepEqual(d.map((l) => `${l.op}${l.text}`), [" a", "-b", "+x", " c", " d", "+e"]);
  assert.equal(lineSimilarity(["a", "b"], ["a", "b"]), 1);
  assert.equal(lineSimilarity(["a", "b"], ["c"]), 0);
});

Deno.test("renderDiff() elides long unchanged runs", () => {
  const a = Array.from({ length: 20 }, (_, i) => `l${i}`);
  const b = [...a];
  b[10] = "changed";
  assert.equal(
    renderDiff(diffLines(a, b), 1),
    "@@ 9 unchanged @@\n l9\n-l10\n+changed\n l11\n@@ 8 unchanged @@",
  );
});
