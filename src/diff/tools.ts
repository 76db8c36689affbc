/** The diff tools, sharing one cache: what the supervisor registers as meta-tools. */
import type { LocalTool } from "../supervisor/host.ts";
import { diffDatabasesHandler, diffDatabasesSpec } from "./diff_databases.ts";
import { DiffService } from "./service.ts";
import { portAnnotationsHandler, portAnnotationsSpec } from "./port_annotations.ts";
import { diffFunctionHandler, diffFunctionSpec } from "./diff_function.ts";

/**
 * diff_databases, diff_function and port_annotations over one new {@link DiffService}. They only
 * call worker tools, so scripts (`execute`, `remcp run --pair`) may call them too.
 */
export function diffTools(): LocalTool[] {
  const service = new DiffService();
  return ([
    [diffDatabasesSpec, diffDatabasesHandler(service)],
    [diffFunctionSpec, diffFunctionHandler],
    [portAnnotationsSpec, portAnnotationsHandler(service)],
  ] as const).map(([spec, handler]) => ({
    spec: spec as unknown as LocalTool["spec"],
    handler,
    nestable: true,
  }));
}
