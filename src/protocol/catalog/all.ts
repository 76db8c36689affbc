/**
 * The catalog: every worker tool spec. Each group module's `defineTool` exports are collected
 * here, so adding a tool to a group needs no edit of this file. Listing order: pinned tools first,
 * then the rest, each in group order and then declaration order.
 */
import type { ToolSpec } from "./spec.ts";
import * as info from "./info.ts";
import * as fns from "./functions.ts";
import * as xrefs from "./xrefs.ts";
import * as data from "./data.ts";
import * as symbols from "./symbols.ts";
import * as search from "./search.ts";
import * as disasm from "./disasm.ts";
import * as notes from "./annotations.ts";
import * as scripts from "./scripts.ts";
import * as features from "./features.ts";

const GROUPS: readonly Record<string, unknown>[] = [
  info,
  fns,
  xrefs,
  data,
  symbols,
  search,
  disasm,
  notes,
  features,
  scripts,
];

function isSpec(value: unknown): value is ToolSpec {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<ToolSpec>;
  return typeof v.name === "string" && typeof v.description === "string" &&
    v.input !== undefined && v.output !== undefined && Array.isArray(v.tags);
}

const ALL = GROUPS.flatMap((group) => Object.values(group).filter(isSpec));

/** All worker tool specs, in listing order. */
export const WORKER_TOOLS: readonly ToolSpec[] = [
  ...ALL.filter((s) => s.pinned === true),
  ...ALL.filter((s) => s.pinned !== true),
];
