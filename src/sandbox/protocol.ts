/**
 * The line protocol between the sandbox pool (parent) and a `remcp sandbox` process (child).
 *
 * Each message is one JSON object on one line; the child's stdout carries nothing else (its
 * diagnostics go to stderr). One run at a time per child; the pool provides parallelism.
 *
 * ```
 * child  → parent  {type:"ready", pid, loadMs}                      once, when it can take runs
 * parent → child   {type:"run", id, code, globals, limits, fitBytes?} start a run
 * child  → parent  {type:"invoke", runId, callId, name, args}       the script called invoke()
 * parent → child   {type:"invoke_result", runId, callId, ok:true, valueJson}   the object as JSON
 *                  {type:"invoke_result", runId, callId, ok:false, error:{code, message, detail}}
 * child  → parent  {type:"log", runId, level, text}                 console output, already capped
 * parent → child   {type:"cancel", id}                              stop the run (abort, deadline)
 * child  → parent  {type:"done", id, ok:true, result, cut?, stats}  cut: what fitBytes dropped
 *                  {type:"done", id, ok:false, error:{code, message, detail}, stats}
 * ```
 *
 * Invokes of one run may be in flight together and may be answered in any order. A cancel is read
 * only while the script waits on invokes; a script busy computing is stopped by its CPU limit or
 * by the parent killing the process. Messages about a run that is over are ignored.
 */
import { z } from "zod";
import { ERROR_CODES } from "../errors.ts";

const limitsSchema = z.object({
  cpuMs: z.number(),
  memoryBytes: z.number(),
  maxInvokes: z.number(),
  maxLogBytes: z.number(),
  maxOutputBytes: z.number(),
});

/** A value a script sees as a global (`database`, `file`, …). */
export const globalValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** One of {@link globalValueSchema}. */
export type GlobalValue = z.infer<typeof globalValueSchema>;

const errorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  detail: z.record(z.string(), z.unknown()),
});

/** A failure as it crosses the protocol. */
export type WireError = z.infer<typeof errorSchema>;

const statsSchema = z.object({ invokes: z.number(), cpuMs: z.number() });

/** What a run consumed. */
export type RunStats = z.infer<typeof statsSchema>;

/** Console levels the guest has. */
export const LOG_LEVELS = ["log", "info", "warn", "error", "debug"] as const;
/** One of {@link LOG_LEVELS}. */
export type GuestLogLevel = typeof LOG_LEVELS[number];

const runSchema = z.object({
  type: z.literal("run"),
  id: z.string(),
  code: z.string(),
  globals: z.record(z.string(), globalValueSchema),
  limits: limitsSchema,
  /** Cut a result over this many bytes of JSON to fit, before sending it. */
  fitBytes: z.number().optional(),
});

/** Parent → child: start a run. */
export type RunMessage = z.infer<typeof runSchema>;

const invokeResultSchema = z.discriminatedUnion("ok", [
  z.object({
    type: z.literal("invoke_result"),
    runId: z.string(),
    callId: z.number(),
    ok: z.literal(true),
    /** The result object as JSON text: handed to the script as it is, never parsed here. */
    valueJson: z.string(),
  }),
  z.object({
    type: z.literal("invoke_result"),
    runId: z.string(),
    callId: z.number(),
    ok: z.literal(false),
    error: errorSchema,
  }),
]);

/** Parent → child: the outcome of one invoke. */
export type InvokeResultMessage = z.infer<typeof invokeResultSchema>;

const cancelSchema = z.object({ type: z.literal("cancel"), id: z.string() });

const parentMessageSchema = z.discriminatedUnion("type", [
  runSchema,
  invokeResultSchema,
  cancelSchema,
]);

/** Any message the parent sends. */
export type ParentMessage = z.infer<typeof parentMessageSchema>;

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
  doneSchema,
]);

/** Any message the child sends. */
export type ChildMessage = z.infer<typeof childMessageSchema>;

/** Parses one line from the parent, or returns a sentence saying why it is not a message. */
export function parseParentMessage(line: string): ParentMessage | string {
  return parseLine(line, parentMessageSchema);
}

/** Parses one line from the child, or returns a sentence saying why it is not a message. */
export function parseChildMessage(line: string): ChildMessage | string {
  return parseLine(line, childMessageSchema);
}

function parseLine<T>(line: string, schema: z.ZodType<T>): T | string {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return `Not JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : `Not a sandbox message: ${parsed.error.message}`;
}
