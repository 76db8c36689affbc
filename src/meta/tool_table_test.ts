import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { createLogger, stderrSink } from "../log.ts";
import { createSupervisor } from "../supervisor/create.ts";
import { TABLE_BEGIN, TABLE_END, toolTable } from "./tool_table.ts";

Deno.test("the README's tool tables match the catalog (run `deno task tool-table`)", async () => {
  const config = loadConfig({ REMCP_ALLOW_WRITE: "1", REMCP_ALLOW_SCRIPTS: "1" });
  const sup = createSupervisor(config, createLogger("t", stderrSink("error", undefined, "t")));
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const start = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  assert.ok(start >= 0 && end > start, "README has the generated region");
  // deno fmt pads table columns; compare with runs of spaces and dashes folded.
  const norm = (t: string) => t.replace(/ +/g, " ").replace(/-{3,}/g, "---");
  assert.equal(norm(readme.slice(start, end + TABLE_END.length)), norm(toolTable(sup)));
});
