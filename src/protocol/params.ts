/**
 * Parameter and result schemas shared by every tool spec (address, paging, warnings), so that
 * all tools and all backends spell them the same way.
 */
import { z } from "zod";
import { DEFAULT_LIMIT, MAX_LIMIT } from "./paging.ts";

/** An address expression: `0x…` hex, decimal, a name, `name+0x10`, or bare hex. */
export const Address = z.union([z.string().min(1).max(512), z.number().int().nonnegative()])
  .describe("Address: 0x hex, decimal, a symbol or function name, or name+0x10");

/** A returned address: always a `0x…` string. */
export const Hex = z.string().describe("Address as 0x hex");

/** Paging input fields. */
export const PageInput = {
  offset: z.number().int().min(0).optional().describe("First item to return (default 0)"),
  limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(
    `Items per page (default ${DEFAULT_LIMIT})`,
  ),
};

/** Paging input fields plus a case-insensitive regex filter. */
export const FilteredPageInput = {
  ...PageInput,
  filter: z.string().max(500).optional().describe("Case-insensitive regex over names"),
};

/** An advisory warning. */
export const WarningSchema = z.object({ code: z.string(), message: z.string() });

/** Fields every result may carry. */
export const CommonOutput = {
  warnings: z.array(WarningSchema).optional(),
  truncated: z.boolean().optional(),
};

/** The output schema of a page of `item`. */
export function pageOutput<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    offset: z.number().int(),
    limit: z.number().int(),
    has_more: z.boolean(),
    next_offset: z.number().int().optional(),
    ...CommonOutput,
  });
}
