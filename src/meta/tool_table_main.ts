/** Prints the README tool tables (`deno task tool-table`). */
import { loadConfig } from "../config.ts";
import { createLogger, stderrSink } from "../log.ts";
import { createSupervisor } from "../supervisor/create.ts";
import { toolTable } from "./tool_table.ts";

if (import.meta.main) {
  const config = loadConfig({ REMCP_ALLOW_WRITE: "1", REMCP_ALLOW_SCRIPTS: "1" });
  const sup = createSupervisor(config, createLogger("table", stderrSink("error", undefined, "t")));
  console.log(toolTable(sup));
}
