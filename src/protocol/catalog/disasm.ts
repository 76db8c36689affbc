/** Specs: linear disassembly. */
import { z } from "zod";
import { Address, CommonOutput, Hex } from "../params.ts";
import { defineTool, READ_ONLY } from "./spec.ts";

/** One disassembled instruction as results show it. */
export const InstructionSchema = z.object({
  address: Hex,
  bytes: z.string(),
  mnemonic: z.string(),
  operands: z.string(),
  target: Hex.optional(),
  target_name: z.string().optional(),
  ref: Hex.optional(),
  ref_name: z.string().optional(),
  comment: z.string().optional(),
});

export const disassemble = defineTool({
  name: "disassemble",
  description: "Disassemble `count` instructions from an address (linear sweep). Branch and " +
    "data targets are shown with names. Unmapped addresses are refused.\n" +
    "Continue with `next_address`. For a whole function use disassemble_function.",
  input: z.strictObject({
    address: Address,
    count: z.number().int().min(1).max(2000).optional().describe("Instructions (default 50)"),
  }),
  output: z.object({
    address: Hex,
    items: z.array(InstructionSchema),
    next_address: Hex.optional(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["code", "disassembly"],
  pinned: true,
});
