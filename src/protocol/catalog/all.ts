/** The catalog: every worker tool spec, in listing order. */
import type { ToolSpec } from "./spec.ts";
import * as info from "./info.ts";
import * as symbols from "./symbols.ts";
import * as data from "./data.ts";
import * as search from "./search.ts";
import * as disasm from "./disasm.ts";
import * as notes from "./annotations.ts";
import * as fns from "./functions.ts";
import * as xrefs from "./xrefs.ts";
import * as scripts from "./scripts.ts";
import { functionFeatures } from "./features.ts";

/** All worker tool specs. */
export const WORKER_TOOLS: readonly ToolSpec[] = [
  info.getDatabaseInfo,
  fns.listFunctions,
  fns.functionSummary,
  fns.disassembleFunction,
  fns.decompileFunction,
  xrefs.xrefsTo,
  xrefs.xrefsFrom,
  xrefs.findCodeByString,
  data.listStrings,
  info.listSegments,
  info.listSections,
  info.listEntryPoints,
  info.resolveAddress,
  info.listTargets,
  symbols.listImports,
  symbols.listExports,
  symbols.listNames,
  data.readBytes,
  data.readData,
  search.searchBytes,
  search.searchText,
  search.searchImmediate,
  disasm.disassemble,
  notes.rename,
  notes.setComment,
  notes.listComments,
  notes.setFunctionPrototype,
  notes.addBookmark,
  notes.listBookmarks,
  notes.undo,
  notes.redo,
  notes.listChanges,
  notes.exportAnnotations,
  notes.importAnnotations,
  fns.getFunction,
  fns.getBasicBlocks,
  fns.getCfg,
  fns.getCallGraph,
  functionFeatures,
  scripts.command,
  scripts.commandJson,
] as unknown as readonly ToolSpec[];
