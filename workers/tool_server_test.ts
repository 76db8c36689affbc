import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, READ_ONLY } from "../src/protocol/catalog/spec.ts";
import { type Backend, impl } from "./backend.ts";
import { runTool } from "./tool_server.ts";

const spec = defineTool({
  name: "_rows",
  description: "Internal: rows as JSON.",
  input: z.strictObject({}),
  output: z.object({ n: z.number().int(), rows: z.string() }),
  annotations: READ_ONLY,
  tags: ["internal"],
});

const backend: Backend = {
  name: "test",
  status: () => ({ state: "ready" }) as ReturnType<Backend["status"]>,
  tools: () => [],
  save: () => Promise.resolve({ saved: false }),
  close: () => Promise.resolve(),
};

const run = (tool: ReturnType<typeof impl>) =>
  runTool(backend, tool, {}, { signal: new AbortController().signal, progress: () => {} }, {
    version: "test",
    maxOutputBytes: 1024,
    checkOutput: true,
  });

Deno.test("runTool() sends a textField as the text, once, and the rest as structured content", async () => {
  const rows = JSON.stringify([["f", 1], ["g", 2]]);
  const r = await run(impl(spec, () => ({ n: 2, rows }), { uncapped: true, textField: "rows" }));
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.content, [{ type: "text", text: rows }]);
  assert.deepEqual(r.structuredContent, { n: 2 });
});

Deno.test("runTool() refuses a textField that is not a string", async () => {
  const bad = impl(spec, () => ({ n: 2 }) as unknown as { n: number; rows: string }, {
    uncapped: true,
    textField: "rows",
  });
  const r = await run({ ...bad, spec: { ...spec, output: z.object({ n: z.number() }) } });
  assert.equal(r.isError, true);
});
