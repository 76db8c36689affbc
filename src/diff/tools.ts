/** The diff tools, sharing one cache: what the supervisor registers as meta-tools. */
import type { ToolSpec } from "../protocol/catalog/spec.ts";
import type { LocalHandler } from "../supervisor/supervisor.ts";
import { diffDatabasesHandler, diffDatabasesSpec } from "./diff_databases.ts";
import { DiffService } from "./service.ts";
import { portAnnotationsHandler, portAnnotationsSpec } from "./port_annotations.ts";
import { diffFunctionHandler, diffFunctionSpec } from "./diff_function.ts";

/**
 * diff_databases, diff_function and port_annotations over one new {@link DiffService}. They only
 * call worker tools, so scripts (`execute`, `remcp run --pair`) may call them too.
 */
export function diffTools(): { spec: ToolSpec; handler: LocalHandler; nestable: true }[] {
  const service = new DiffService();
  return [
    { spec: diffDatabasesSpec, handler: diffDatabasesHandler(service), nestable: true },
    { spec: diffFunctionSpec, handler: diffFunctionHandler, nestable: true },
    { spec: portAnnotationsSpec, handler: portAnnotationsHandler(service), nestable: true },
  ] as unknown as { spec: ToolSpec; handler: LocalHandler; nestable: true }[];
}
