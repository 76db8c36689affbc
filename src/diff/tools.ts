/** The diff tools, sharing one cache: what the supervisor registers as meta-tools. */
import type { ToolSpec } from "../protocol/catalog/spec.ts";
import type { LocalHandler } from "../supervisor/supervisor.ts";
import { diffDatabasesHandler, diffDatabasesSpec } from "./diff_databases.ts";
import { DiffService } from "./service.ts";
import { portAnnotationsHandler, portAnnotationsSpec } from "./port_annotations.ts";
import { diffFunctionHandler, diffFunctionSpec } from "./diff_function.ts";

/** diff_databases, diff_function and port_annotations over one new {@link DiffService}. */
export function diffTools(): { spec: ToolSpec; handler: LocalHandler }[] {
  const service = new DiffService();
  return [
    { spec: diffDatabasesSpec, handler: diffDatabasesHandler(service) },
    { spec: diffFunctionSpec, handler: diffFunctionHandler },
    { spec: portAnnotationsSpec, handler: portAnnotationsHandler(service) },
  ] as unknown as { spec: ToolSpec; handler: LocalHandler }[];
}
