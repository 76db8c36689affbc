/** Specs: functions, basic blocks, control flow and the call graph. */
import { z } from "zod";
import { Address, CommonOutput, FilteredPageInput, Hex, PageInput, pageOutput } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";
import { InstructionSchema } from "./disasm.ts";

const FunctionItem = z.object({
  name: z.string(),
  start: Hex,
  end: Hex,
  size: z.number(),
  blocks: z.number(),
  flags: z.array(z.string()).describe(
    "e.g. import, thunk, noreturn, library, user_named; nested: a call target inside another " +
      "function's unwind extent",
  ),
});

export const listFunctions = defineTool({
  name: "list_functions",
  description: "List functions with name, start, end (exclusive), size, basic block count and " +
    "flags. Paged, in address order; filter is a regex over names.\n" +
    'sort: "address" (default) or "size" (largest first).',
  input: z.strictObject({
    ...FilteredPageInput,
    sort: z.enum(["address", "size"]).optional(),
  }),
  output: pageOutput(FunctionItem),
  annotations: READ_ONLY,
  tags: ["functions", "overview"],
  pinned: true,
});

export const getFunction = defineTool({
  name: "get_function",
  description: "Get the function containing an address: name, bounds, size, blocks, chunks, " +
    "prototype, comment and flags.",
  input: z.strictObject({ address: Address }),
  output: FunctionItem.extend({
    chunks: z.array(z.object({ start: Hex, end: Hex })),
    prototype: z.string().optional(),
    comment: z.string().optional(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["functions"],
});

const NamedRef = z.object({ name: z.string(), address: Hex });

export const functionSummary = defineTool({
  name: "function_summary",
  description: "Everything about one function in one call: name, bounds, size, blocks, " +
    "cyclomatic complexity, callers, callees, referenced strings and imports, and the first " +
    "lines of its disassembly. Lists are capped, with totals.\n" +
    "Start here when studying a function; follow with disassemble_function or xrefs_to.",
  input: z.strictObject({
    address: Address,
    max_items: z.number().int().min(1).max(200).optional().describe(
      "Cap per list (default 20)",
    ),
    disassembly_lines: z.number().int().min(0).max(500).optional().describe("Default 30"),
  }),
  output: z.object({
    name: z.string(),
    start: Hex,
    end: Hex,
    size: z.number(),
    blocks: z.number(),
    instructions: z.number(),
    cyclomatic_complexity: z.number(),
    flags: z.array(z.string()),
    prototype: z.string().optional(),
    comment: z.string().optional(),
    callers: z.array(NamedRef),
    callers_total: z.number(),
    callees: z.array(NamedRef),
    callees_total: z.number(),
    strings: z.array(z.object({ address: Hex, text: z.string() })),
    strings_total: z.number(),
    imports: z.array(z.string()),
    imports_total: z.number(),
    disassembly: z.string(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["functions", "overview"],
  pinned: true,
});

export const disassembleFunction = defineTool({
  name: "disassemble_function",
  description: "Disassemble a whole function, block by block in address order, with labels, " +
    "names, comments and branch targets. Paged by instruction (offset/limit, default 200).",
  input: z.strictObject({
    address: Address,
    ...PageInput,
  }),
  output: z.object({
    name: z.string(),
    start: Hex,
    end: Hex,
    items: z.array(InstructionSchema.extend({ label: z.string().optional() })),
    total: z.number(),
    offset: z.number(),
    limit: z.number(),
    has_more: z.boolean(),
    next_offset: z.number().optional(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["functions", "code", "disassembly"],
  pinned: true,
});

export const decompileFunction = defineTool({
  name: "decompile_function",
  description: "Decompile a function to C-like pseudocode, naming the engine that produced " +
    "it. The embedded backend uses remcp's own decompiler (engine remcp: x86, x86-64 and AArch64; " +
    "`lines` maps each output line to its instruction addresses, `warnings` say where it gave " +
    "up); rizin (rz-ghidra/jsdec), ghidra, ida and binja use theirs.",
  input: z.strictObject({ address: Address }),
  output: z.object({
    name: z.string(),
    start: Hex,
    engine: z.string(),
    code: z.string(),
    lines: z.array(z.object({ line: z.number(), addresses: z.array(Hex) })).optional()
      .describe("1-based output line → the instruction addresses it came from"),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["functions", "code", "decompiler"],
  pinned: true,
});

const Block = z.object({
  start: Hex,
  end: Hex,
  instructions: z.number(),
  successors: z.array(Hex),
});

export const getBasicBlocks = defineTool({
  name: "get_basic_blocks",
  description: "List a function's basic blocks: start, end (exclusive), instruction count, " +
    "successors. Paged.",
  input: z.strictObject({ address: Address, ...PageInput }),
  output: pageOutput(Block),
  annotations: READ_ONLY,
  tags: ["functions", "cfg"],
});

export const getCfg = defineTool({
  name: "get_cfg",
  description: "A function's control-flow graph: blocks and typed edges (fallthrough, jump, " +
    "true, false, switch case).",
  input: z.strictObject({ address: Address }),
  output: z.object({
    name: z.string(),
    start: Hex,
    blocks: z.array(Block),
    edges: z.array(z.object({
      from: Hex,
      to: Hex,
      kind: z.enum(["fallthrough", "jump", "true", "false", "case"]),
      case: z.number().optional(),
    })),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["functions", "cfg"],
});

export const getCallGraph = defineTool({
  name: "get_call_graph",
  description: "Callers and/or callees of a function to a given depth (edges, bounded to " +
    "max_nodes).",
  input: z.strictObject({
    address: Address,
    direction: z.enum(["callees", "callers", "both"]).optional().describe("Default callees"),
    depth: z.number().int().min(1).max(10).optional().describe("Default 2"),
    max_nodes: z.number().int().min(1).max(2000).optional().describe("Default 200"),
  }),
  output: z.object({
    root: NamedRef,
    nodes: z.array(NamedRef.extend({ depth: z.number() })),
    edges: z.array(z.object({ from: Hex, to: Hex })),
    truncated: z.boolean().optional(),
    warnings: CommonOutput.warnings,
  }),
  annotations: READ_ONLY,
  tags: ["functions", "callgraph", "xrefs"],
});
