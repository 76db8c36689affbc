/**
 * The messages a sandbox sends its parent (protocol.ts), as zod schemas: the parent checks each
 * one, since the child runs untrusted code. Only the parent loads this module.
 */
import { z } from "zod";
import { ERROR_CODES } from "../errors.ts";
import { LOG_LEVELS } from "./protocol.ts";

const errorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  detail: z.record(z.string(), z.unknown()),
});

const statsSchema = z.object({
  invokes: z.number(),
  cpuMs: z.number(),
  laneInvokes: z.number().optional(),
});

const doneSchema = z.discriminatedUnion("ok", [
  z.object({
    type: z.literal("done"),
    id: z.string(),
    ok: z.literal(true),
    result: z.unknown(),
    cut: z.array(z.string()).optional(),
    stats: statsSchema,
  }),
  z.object({
    type: z.literal("done"),
    id: z.string(),
    ok: z.literal(false),
    error: errorSchema,
    stats: statsSchema,
  }),
]);

const childMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), pid: z.number(), loadMs: z.number() }),
  z.object({
    type: z.literal("invoke"),
    runId: z.string(),
    callId: z.number(),
    name: z.string(),
    args: z.record(z.string(), z.unknown()),
  }),
  z.object({
    type: z.literal("log"),
    runId: z.string(),
    level: z.enum(LOG_LEVELS),
    text: z.string(),
  }),
  z.object({ type: z.literal("lane_invokes"), runId: z.string(), count: z.number() }),
  doneSchema,
]);

/** Any message the child sends. */
export type ChildMessage = z.infer<typeof childMessageSchema>;

/** Parses one line from the child, or returns a sentence saying why it is not a message. */
export function parseChildMessage(line: string): ChildMessage | string {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return `Not JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  const parsed = childMessageSchema.safeParse(raw);
  return parsed.success ? parsed.data : `Not a sandbox message: ${parsed.error.message}`;
}
