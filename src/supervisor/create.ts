/**
 * The composition root of the supervisor: the one file that gathers every tool group
 * (management, opening, script-tool management, meta) and wires the script-tool registry in.
 * Everything below it knows only the Host interface of host.ts.
 */
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { type LocalTool, localTool } from "./host.ts";
import type { Spawner } from "./worker_process.ts";
import { Supervisor } from "./supervisor.ts";
import { MANAGEMENT_TOOLS } from "./management.ts";
import { OPEN_TOOLS } from "./open_tools.ts";
import { ScriptTools } from "../script_tools/registry.ts";
import { scriptToolManagement } from "../script_tools/management.ts";
import { searchToolsHandler, searchToolsSpec } from "../meta/search_tools.ts";
import { getSchemaHandler, getSchemaSpec } from "../meta/get_schema.ts";
import { callHandler, callSpec } from "../meta/call.ts";
import { batchHandler, batchSpec } from "../meta/batch.ts";
import { executeHandler, executeSpec } from "../meta/execute.ts";
import { diffTools } from "../diff/tools.ts";

/** The meta-tools, in listing order. */
export function metaTools(): LocalTool[] {
  return [
    localTool(searchToolsSpec, searchToolsHandler),
    localTool(getSchemaSpec, getSchemaHandler),
    localTool(callSpec, callHandler),
    localTool(batchSpec, batchHandler),
    localTool(executeSpec, executeHandler),
    ...diffTools(),
  ];
}

/** Options of {@link createSupervisor} beyond the configuration. */
export interface CreateOptions {
  /** Tests pass a spawner to run the supervisor without worker processes. */
  spawn?: Spawner;
  /** What a call without an open database is told to do (remcp run words it its own way). */
  noDatabaseHint?: string;
  /** Workers' environment instead of this process's (tests; see SupervisorOptions). */
  workerEnv?: Record<string, string>;
}

/** The production supervisor for `config`; script tools start loading in the background. */
export function createSupervisor(
  config: Config,
  log: Logger,
  options: CreateOptions = {},
): Supervisor {
  const sup = new Supervisor({
    config,
    log,
    ...(options.spawn ? { spawn: options.spawn } : {}),
    ...(options.noDatabaseHint ? { noDatabaseHint: options.noDatabaseHint } : {}),
    ...(options.workerEnv ? { workerEnv: options.workerEnv } : {}),
    tools: [{ kind: "management", tools: [...OPEN_TOOLS, ...MANAGEMENT_TOOLS] }],
  });
  const scripts = new ScriptTools(sup);
  sup.addTools("management", scriptToolManagement(scripts));
  sup.addTools("meta", metaTools());
  sup.addToolSource(scripts);
  if (config.toolsDir !== undefined) scripts.startLoading(config.toolsDir);
  return sup;
}
