/** Specs: reading bytes, typed data and strings. */
import { z } from "zod";
import { Address, CommonOutput, FilteredPageInput, Hex, pageOutput } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";

/** Largest read_bytes request. */
export const MAX_READ_BYTES = 64 * 1024;

export const readBytes = defineTool({
  name: "read_bytes",
  description: `Read up to ${MAX_READ_BYTES} bytes at an address as hex. ` +
    "Unmapped addresses are refused; a read running past the mapped range is cut there.",
  input: z.strictObject({
    address: Address,
    size: z.number().int().min(1).max(MAX_READ_BYTES).describe("Bytes to read"),
  }),
  output: z.object({ address: Hex, size: z.number(), hex: z.string(), ...CommonOutput }),
  annotations: READ_ONLY,
  tags: ["data", "bytes"],
});

export const DATA_TYPES = [
  "u8",
  "i8",
  "u16",
  "i16",
  "u32",
  "i32",
  "u64",
  "i64",
  "f32",
  "f64",
  "pointer",
  "cstring",
  "utf16",
] as const;

export const readData = defineTool({
  name: "read_data",
  description: "Read typed values at an address: integers u8–u64/i8–i64 (little or big " +
    "endian, default the binary's), f32/f64, pointer (resolved to a name when one is there), " +
    "C string or UTF-16 string. `count` reads an array.",
  input: z.strictObject({
    address: Address,
    type: z.enum(DATA_TYPES),
    count: z.number().int().min(1).max(4096).optional().describe("Elements (default 1)"),
    endian: z.enum(["little", "big"]).optional(),
    max_length: z.number().int().min(1).max(65536).optional().describe(
      "Longest string in characters (default 1024)",
    ),
  }),
  output: z.object({
    address: Hex,
    type: z.string(),
    values: z.array(z.union([z.number(), z.string(), z.null()])),
    names: z.array(z.string().nullable()).optional(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["data"],
});

export const listStrings = defineTool({
  name: "list_strings",
  description: "List strings found in the binary (ASCII/UTF-8 and UTF-16LE) with address, " +
    "length, encoding, section and text. Paged; filter is a regex over the text.\n" +
    "Use find_code_by_string to find the code that uses a string.",
  input: z.strictObject({
    ...FilteredPageInput,
    min_length: z.number().int().min(2).max(1024).optional().describe("Default 4"),
    section: z.string().optional().describe("Only strings in this section"),
    encoding: z.enum(["ascii", "utf16", "any"]).optional(),
  }),
  output: pageOutput(z.object({
    address: Hex,
    length: z.number(),
    encoding: z.string(),
    section: z.string().optional(),
    text: z.string(),
  })),
  annotations: READ_ONLY,
  tags: ["data", "strings", "overview"],
  pinned: true,
});

/** Largest range get_entropy reads in one call. */
export const MAX_ENTROPY_BYTES = 64 * 1024 * 1024;

export const getEntropy = defineTool({
  name: "get_entropy",
  description: "Shannon entropy (bits per byte, 0–8) of each section with file bytes, or of one " +
    "address range cut into blocks. Near 8 means compressed or encrypted data (packed code, " +
    "embedded archives, keys); code is usually 5.5–6.5, text and tables lower. Use it to triage " +
    `a sample before disassembling it. A range reads at most ${MAX_ENTROPY_BYTES} bytes.`,
  input: z.strictObject({
    address: Address.optional().describe("Start of a range; omit for every section"),
    size: z.number().int().min(1).max(MAX_ENTROPY_BYTES).optional().describe(
      "Bytes of the range (default: to the end of the mapped range, at most the limit)",
    ),
    block_size: z.number().int().min(64).max(MAX_ENTROPY_BYTES).optional().describe(
      "Bytes per block of a range (default 4096); blocks are returned in order",
    ),
  }),
  output: z.object({
    items: z.array(z.object({
      name: z.string().optional(),
      start: Hex,
      size: z.number(),
      entropy: z.number(),
    })),
    entropy: z.number().describe("Entropy of all bytes read together"),
    bytes: z.number(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["data", "bytes", "triage"],
});
