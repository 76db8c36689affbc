/** Specs: what the database is and how it is laid out. */
import { z } from "zod";
import { Address, CommonOutput, FilteredPageInput, Hex, PageInput, pageOutput } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";

export const getDatabaseInfo = defineTool({
  name: "get_database_info",
  description: "Describe the open binary: format, architecture, bits, endianness, entry point, " +
    "image base, size, SHA-256, analysis state and format-specific facts.\n" +
    "Call it first to orient yourself; format facts (interpreter, needed libraries, PDB path, " +
    "build id, code signature, …) are under `details`.",
  input: z.strictObject({}),
  output: z.object({
    path: z.string(),
    name: z.string(),
    backend: z.string(),
    format: z.string(),
    arch: z.string(),
    bits: z.number(),
    endian: z.string(),
    entry: Hex.optional(),
    image_base: Hex,
    size: z.number(),
    sha256: z.string(),
    analysis: z.object({
      state: z.enum(["analysing", "ready", "failed"]),
      functions: z.number().optional(),
      seconds: z.number().optional().describe(
        "Time of the analysis step (or of loading its cache)",
      ),
      cached: z.boolean().optional().describe(
        "The analysis came from the cache of an earlier open",
      ),
      id: z.string().optional().describe(
        "Identifies this analysis result: a reopen that loads it from the cache keeps the id, " +
          "a fresh analysis gets a new one",
      ),
    }),
    details: z.record(z.string(), z.unknown()),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["info", "overview"],
  pinned: true,
});

const perms = z.string().describe('"r-x" style permissions');

/** A mapped range as list_segments shows it; list_sections adds its kind. */
const RangeItem = z.object({
  name: z.string(),
  start: Hex,
  end: Hex,
  size: z.number(),
  file_offset: Hex,
  file_size: z.number(),
  perms,
});

export const listSegments = defineTool({
  name: "list_segments",
  description: "List the memory segments (program headers / PE sections / Mach-O segments) " +
    "with start, end (exclusive), size, file offset and permissions. Paged.",
  input: z.strictObject({ ...PageInput }),
  output: pageOutput(RangeItem),
  annotations: READ_ONLY,
  tags: ["info", "layout"],
});

export const listSections = defineTool({
  name: "list_sections",
  description: "List sections with start, end (exclusive), size, file offset, permissions and " +
    "kind (code, data, rodata, bss, other). Paged; filter is a regex over names.",
  input: z.strictObject({ ...FilteredPageInput }),
  output: pageOutput(RangeItem.extend({ kind: z.string() })),
  annotations: READ_ONLY,
  tags: ["info", "layout"],
});

export const listEntryPoints = defineTool({
  name: "list_entry_points",
  description: "List entry points: the program entry, main when known, init/fini array " +
    "functions, TLS callbacks and, for a shared library (.so, dylib, DLL), its exported " +
    "functions (kind export). Paged.",
  input: z.strictObject({ ...PageInput }),
  output: pageOutput(z.object({ name: z.string(), address: Hex, kind: z.string() })),
  annotations: READ_ONLY,
  tags: ["info", "entry"],
});

export const resolveAddress = defineTool({
  name: "resolve_address",
  description: "Resolve an address expression (0x hex, decimal, name, name+0x10) and say what " +
    "is there: segment, section, nearest symbol with offset, containing function, file offset.\n" +
    "Use it to check an address before other calls or to map a file offset to memory.",
  input: z.strictObject({ address: Address }),
  output: z.object({
    address: Hex,
    mapped: z.boolean(),
    segment: z.string().optional(),
    section: z.string().optional(),
    file_offset: Hex.optional(),
    symbol: z.string().optional(),
    symbol_offset: z.number().optional(),
    function: z.string().optional(),
    function_start: Hex.optional(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["info", "address"],
});

export const listTargets = defineTool({
  name: "list_targets",
  description: "List the file formats and instruction sets this backend can open and " +
    "disassemble, with the engine behind each.",
  input: z.strictObject({}),
  output: z.object({
    formats: z.array(z.string()),
    isas: z.array(z.object({ arch: z.string(), modes: z.array(z.string()), engine: z.string() })),
  }),
  annotations: READ_ONLY,
  tags: ["info"],
});
