/**
 * The tool listing: short by default, complete with REMCP_TOOL_SEARCH=0, every tool annotated,
 * capability-gated tools absent unless enabled, and the description budget.
 */
import assert from "node:assert/strict";
import { callTool, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const BUDGET = 8000;

Deno.test("the default listing's description first lines stay under the budget", e2e, async () => {
  const h = await startRemcp();
  try {
    const tools = (await h.client.listTools()).tools;
    const firstLines = tools.map((t) => (t.description ?? "").split("\n")[0]!);
    const chars = firstLines.reduce((n, l) => n + l.length, 0);
    console.log(
      `listed tools: ${tools.length}, first-line characters: ${chars} (budget ${BUDGET})`,
    );
    assert.ok(chars <= BUDGET, `${chars} > ${BUDGET}`);
    for (const name of ["search_tools", "get_schema", "call", "batch"]) {
      assert.ok(tools.some((t) => t.name === name), `${name} listed`);
    }
  } finally {
    await h.close();
  }
});

Deno.test(
  "every tool carries all four MCP annotation hints and an output schema",
  e2e,
  async () => {
    const h = await startRemcp({ env: { REMCP_TOOL_SEARCH: "0" } });
    try {
      const tools = (await h.client.listTools()).tools;
      assert.ok(tools.length > 15);
      for (const t of tools) {
        const a = t.annotations ?? {};
        for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
          assert.equal(typeof (a as Record<string, unknown>)[hint], "boolean", `${t.name}.${hint}`);
        }
        assert.equal(t.outputSchema?.type, "object", `${t.name} declares an object output`);
        assert.ok(!t.name.startsWith("_"), "internal tools are never listed");
      }
    } finally {
      await h.close();
    }
  },
);

Deno.test("REMCP_TOOL_SEARCH=0 lists hidden tools; the default hides them", e2e, async () => {
  const all = await startRemcp({ env: { REMCP_TOOL_SEARCH: "0" } });
  const few = await startRemcp();
  try {
    const allNames = (await all.client.listTools()).tools.map((t) => t.name);
    const fewNames = (await few.client.listTools()).tools.map((t) => t.name);
    assert.ok(allNames.includes("list_segments"));
    assert.ok(!fewNames.includes("list_segments"));
    assert.ok(allNames.length > fewNames.length);
  } finally {
    await all.close();
    await few.close();
  }
});

Deno.test("REMCP_DISABLE_BATCH and REMCP_DISABLE_EXECUTE hide those tools", e2e, async () => {
  const h = await startRemcp({ env: { REMCP_DISABLE_BATCH: "1", REMCP_DISABLE_EXECUTE: "1" } });
  try {
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes("batch"));
    assert.ok(!names.includes("execute"));
    // Called anyway, a turned-off tool says what turned it off.
    const r = await callTool(h.client, "batch", { calls: [] });
    assert.equal(r.isError, true);
    assert.equal(r.sc.error_type, "Unsupported");
    assert.match(String(r.sc.error), /REMCP_DISABLE_BATCH=1/);
  } finally {
    await h.close();
  }
});
