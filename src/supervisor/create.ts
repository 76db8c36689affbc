/** Builds a Supervisor with every meta-tool wired in. */
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ToolSpec } from "../protocol/catalog/spec.ts";
import { type LocalHandler, Supervisor } from "./supervisor.ts";
import { searchToolsHandler, searchToolsSpec } from "../meta/search_tools.ts";
import { getSchemaHandler, getSchemaSpec } from "../meta/get_schema.ts";
import { callHandler, callSpec } from "../meta/call.ts";
import { batchHandler, batchSpec } from "../meta/batch.ts";
import { executeHandler, executeSpec } from "../meta/execute.ts";
import { diffTools } from "../diff/tools.ts";

/** The meta-tools, in listing order. */
export function metaTools(): { spec: ToolSpec; handler: LocalHandler; nestable?: boolean }[] {
  return [
    { spec: searchToolsSpec, handler: searchToolsHandler },
    { spec: getSchemaSpec, handler: getSchemaHandler },
    { spec: callSpec, handler: callHandler },
    { spec: batchSpec, handler: batchHandler },
    { spec: executeSpec, handler: executeHandler },
    ...diffTools(),
  ] as unknown as { spec: ToolSpec; handler: LocalHandler; nestable?: boolean }[];
}

/** The production supervisor for `config`; script tools start loading in the background. */
export function createSupervisor(config: Config, log: Logger): Supervisor {
  const sup = new Supervisor({ config, log, metaTools: metaTools() });
  if (config.toolsDir !== undefined) sup.scripts.startLoading(config.toolsDir);
  return sup;
}
