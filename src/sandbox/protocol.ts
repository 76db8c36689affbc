/**
 * The line protocol between the sandbox pool (parent) and a sandbox (child): a `remcp sandbox`
 * process over its socket (or its stdin and stdout), or a sandbox thread over `postMessage`.
 *
 * Each message is one JSON object on one line; the channel carries nothing else (the child's
 * diagnostics go to stderr). One run at a time per child; the pool provides parallelism.
 *
 * ```
 * child  → parent  {type:"ready", pid, loadMs}                      once, when it can take runs
 * parent → child   {type:"run", id, code, globals, limits, fitBytes?, lanes?} start a run
 * child  → parent  {type:"invoke", runId, callId, name, args}       the script called invoke()
 * parent → child   {type:"invoke_result", runId, callId, ok:true, value}   the result's JSON text
 *                  {type:"invoke_result", runId, callId, ok:false, error:{code, message, detail}}
 * child  → parent  {type:"log", runId, level, text}                 console output, already capped
 * parent → child   {type:"cancel", id}                              stop the run (abort, deadline)
 * parent → child   {type:"lane", runId, token, database, tools, bare}  a lane was granted
 * child  → parent  {type:"lane_invokes", runId, count}              invokes answered on lanes
 * child  → parent  {type:"done", id, ok:true, result, cut?, stats}  cut: what fitBytes dropped
 *                  {type:"done", id, ok:false, error:{code, message, detail}, stats}
 * ```
 *
 * An invoke's result is a tool result's text, already JSON: {@link encodeParentMessage} splices it
 * in as `value`, last, without encoding it as a string (which escapes every quote of it), and the
 * child cuts it out of the line without parsing it; QuickJS parses it once, for the script. A text
 * holding a raw newline could not travel inside one line, so it goes as the string `valueJson`.
 *
 * A lane (lane_hub.ts) is a connection from a worker to this process's lane socket: the parent
 * announces its token and what it may carry — the `tools` on `database`, and with `bare` the
 * invokes that name no database — and the worker connects and presents the token. Invokes it
 * carries skip the parent; the child reports their count now and then (`lane_invokes`, the total
 * so far in the run) so the parent's progress stays right. Lanes end with their run.
 *
 * Invokes of one run may be in flight together and may be answered in any order. A cancel is read
 * only while the script waits on invokes; a script busy computing is stopped by its CPU limit or
 * by the parent killing the process. Messages about a run that is over are ignored.
 *
 * The child's messages are checked against zod schemas on the parent's side (child_messages.ts):
 * the child runs untrusted code. The parent's messages are checked here by hand, because this
 * module is all the child loads of the protocol, and zod alone would add ~11 MB to every sandbox
 * process (issue 15's budget is 60 MB).
 */
import { ERROR_CODES, type ErrorCode } from "../errors.ts";
import type { Limits } from "./limits.ts";

/** A value a script sees as a global (`database`, `file`, …). */
export type GlobalValue = string | number | boolean | null;

/** A failure as it crosses the protocol. */
export interface WireError {
  code: ErrorCode;
  message: string;
  detail: Record<string, unknown>;
}

/** What a run consumed. */
export interface RunStats {
  invokes: number;
  cpuMs: number;
  /** Of `invokes`, those lanes answered (lane_hub.ts); absent when none did. */
  laneInvokes?: number | undefined;
}

/** Console levels the guest has. */
export const LOG_LEVELS = ["log", "info", "warn", "error", "debug"] as const;
/** One of {@link LOG_LEVELS}. */
export type GuestLogLevel = typeof LOG_LEVELS[number];

/** Parent → child: start a run. */
export interface RunMessage {
  type: "run";
  id: string;
  code: string;
  globals: Record<string, GlobalValue>;
  limits: Limits;
  /** Cut a result over this many bytes of JSON to fit, before sending it. */
  fitBytes?: number | undefined;
  /**
   * Lanes granted as the run starts, as `lane` messages would announce them: in the run message
   * so that the script's first invoke, which may come before the next line is read, finds them.
   */
  lanes?: LaneGrant[] | undefined;
}

/** Parent → child: the outcome of one invoke. */
export type InvokeResultMessage =
  & { type: "invoke_result"; runId: string; callId: number }
  & (
    /** The result object as JSON text: handed to the script as it is, never parsed here. */
    | { ok: true; valueJson: string }
    | { ok: false; error: WireError }
  );

/** Parent → child: a lane to a worker was granted to the run (see the module comment). */
export interface LaneMessage {
  type: "lane";
  runId: string;
  token: string;
  database: string;
  tools: string[];
  /** Whether invokes that name no database go to `database` too. */
  bare: boolean;
}

/** A lane as granted: a {@link LaneMessage}'s content. */
export type LaneGrant = Omit<LaneMessage, "type" | "runId">;

/** Any message the parent sends. */
export type ParentMessage =
  | RunMessage
  | InvokeResultMessage
  | LaneMessage
  | { type: "cancel"; id: string };

const LIMIT_KEYS: readonly (keyof Limits)[] = [
  "cpuMs",
  "memoryBytes",
  "maxInvokes",
  "maxLogBytes",
  "maxOutputBytes",
];
const ERROR_CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * The head of an invoke's answer whose `value` is spliced in (see the module comment). A run id is
 * a JSON string without escapes (the parent makes it with `crypto.randomUUID()`).
 */
const RAW_VALUE_HEAD =
  /^\{"type":"invoke_result","runId":("[^"\\]*"),"callId":(\d+),"ok":true,"value":/;

/** One parent message as its protocol line. */
export function encodeParentMessage(message: ParentMessage): string {
  if (message.type !== "invoke_result" || !message.ok || message.valueJson.includes("\n")) {
    return JSON.stringify(message);
  }
  const head = `{"type":"invoke_result","runId":${JSON.stringify(message.runId)},` +
    `"callId":${message.callId},"ok":true,"value":`;
  // A run id that needs escapes falls back to the string form, which the child reads the slow way.
  return RAW_VALUE_HEAD.test(head) ? `${head}${message.valueJson}}` : JSON.stringify(message);
}

/** Parses one line from the parent, or returns a sentence saying why it is not a message. */
export function parseParentMessage(line: string): ParentMessage | string {
  const rawValue = RAW_VALUE_HEAD.exec(line);
  if (rawValue && line.endsWith("}")) {
    // The value is not checked here: QuickJS parses it for the script, and a bad one rejects the
    // invoke with the parse error there.
    return {
      type: "invoke_result",
      runId: rawValue[1]!.slice(1, -1),
      callId: Number(rawValue[2]),
      ok: true,
      valueJson: line.slice(rawValue[0].length, -1),
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return `Not JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!isRecord(raw)) return "Not a sandbox message: not an object";
  const why = parentMessageProblem(raw);
  return why === undefined ? raw as unknown as ParentMessage : `Not a sandbox message: ${why}`;
}

/** What is wrong with a parent message, or undefined when nothing is. */
function parentMessageProblem(m: Record<string, unknown>): string | undefined {
  switch (m.type) {
    case "run": {
      if (typeof m.id !== "string" || typeof m.code !== "string") return "run needs id and code";
      if (!isRecord(m.globals)) return "run.globals must be an object";
      for (const [k, v] of Object.entries(m.globals)) {
        if (v !== null && !["string", "number", "boolean"].includes(typeof v)) {
          return `run.globals.${k} must be a string, number, boolean or null`;
        }
      }
      const limits = m.limits;
      if (!isRecord(limits)) return "run.limits must be an object";
      for (const k of LIMIT_KEYS) {
        if (typeof limits[k] !== "number") return `run.limits.${k} must be a number`;
      }
      if (m.fitBytes !== undefined && typeof m.fitBytes !== "number") {
        return "run.fitBytes must be a number";
      }
      if (m.lanes !== undefined) {
        if (!Array.isArray(m.lanes)) return "run.lanes must be an array";
        for (const lane of m.lanes) {
          if (!isRecord(lane) || laneProblem(lane)) {
            return "run.lanes must hold {token, database, tools, bare}";
          }
        }
      }
      return undefined;
    }
    case "invoke_result": {
      if (typeof m.runId !== "string" || typeof m.callId !== "number") {
        return "invoke_result needs runId and callId";
      }
      if (m.ok === true) {
        return typeof m.valueJson === "string" ? undefined : "invoke_result.valueJson missing";
      }
      if (m.ok !== false) return "invoke_result.ok must be true or false";
      const e = m.error;
      if (
        !isRecord(e) || typeof e.code !== "string" || !ERROR_CODE_SET.has(e.code) ||
        typeof e.message !== "string" || !isRecord(e.detail)
      ) {
        return "invoke_result.error must be {code, message, detail}";
      }
      return undefined;
    }
    case "cancel":
      return typeof m.id === "string" ? undefined : "cancel needs an id";
    case "lane":
      return typeof m.runId === "string" && !laneProblem(m)
        ? undefined
        : "lane needs runId, token, database, tools and bare";
    default:
      return `unknown type ${JSON.stringify(m.type)}`;
  }
}

/** Whether a lane's grant lacks a field (the run id aside). */
function laneProblem(m: Record<string, unknown>): boolean {
  return !(typeof m.token === "string" && typeof m.database === "string" &&
    typeof m.bare === "boolean" && Array.isArray(m.tools) &&
    m.tools.every((t) => typeof t === "string"));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
