/**
 * What a script's `invoke` gets from a tool result, whichever way the call went: through the
 * supervisor's dispatcher (src/meta/run_script.ts) or over a lane straight to the worker
 * (src/sandbox/lane_hub.ts). One module decides it, so the guest sees the same value text and the
 * same error either way. The sandbox process loads it, so it imports nothing heavy (no zod).
 */
import { type ErrorCode, toErrorPayload } from "../errors.ts";
import { resultJson, type ToolResult } from "./results.ts";
import { responseLine, WireResult } from "./wire_result.ts";

/** A failure as the guest's `Error` carries it (`code`, `message`, `detail`). */
export interface InvokeFailure {
  code: ErrorCode;
  message: string;
  detail: Record<string, unknown>;
}

/**
 * The value's JSON text of a tool result: a success's text, read from the worker's bytes when
 * the result is still a {@link WireResult}. A failed result throws its error as a RemcpError.
 */
export function invokeValueJson(result: ToolResult | WireResult, tool: string): string {
  return result instanceof WireResult ? result.valueJson(tool) : resultJson(result, tool);
}

/** Any failure (a RemcpError thrown by {@link invokeValueJson}, or a fault) as the guest sees it. */
export function invokeFailure(err: unknown): InvokeFailure {
  const payload = toErrorPayload(err);
  return { code: payload.error_type, message: payload.error, detail: payload.detail };
}

/**
 * The outcome of an invoke whose tool result arrived as the JSON text a worker writes (a lane's
 * answer): a success is kept as its text, as the supervisor keeps it (`wireSuccess`), and a
 * result holding the key `"isError"` is parsed and goes through the same rules.
 */
export function invokeOutcomeOf(
  json: string,
  tool: string,
): { ok: true; valueJson: string } | { ok: false; error: InvokeFailure } {
  try {
    const result = json.includes('"isError"')
      ? JSON.parse(json) as ToolResult
      : new WireResult(json);
    return { ok: true, valueJson: invokeValueJson(result, tool) };
  } catch (err) {
    return { ok: false, error: invokeFailure(err) };
  }
}

/**
 * How a lane's answer carrying only a success's value text starts its result: the text raw
 * ({@link LANE_RAW_KEY}) or as a JSON string ({@link LANE_VALUE_KEY}). The worker's side writes it,
 * {@link laneAnswerLine}; the sandbox's side reads it, {@link readLaneAnswer}.
 */
export const LANE_VALUE_KEY = '"value_json":';
/** The value text spliced in as it is: see {@link laneAnswerLine}. */
export const LANE_RAW_KEY = '"value":';

/**
 * A worker's answer to a lane's call, as one line: a success as `{"jsonrpc":"2.0","id":N,
 * "result":{"value":TEXT}}`, its text (what {@link invokeValueJson} would read) spliced in
 * unescaped, since the guest needs only the value's JSON and parses exactly that text; anything
 * else as the whole result (`responseLine`). A text holding a newline would break the line, so it
 * goes as a JSON string instead (`"value_json"`; a value's compact JSON never holds one, a text
 * field may). Measured: the whole result repeated the value (its text and its structured
 * content), which the worker serialized and the sandbox decoded and searched on every invoke; and
 * the text as a string literal cost the worker its escaping and the sandbox a parse of it
 * (bench/lane_answer.ts).
 */
export function laneAnswerLine(id: string | number, result: ToolResult | WireResult): string {
  if (!(result instanceof WireResult) && !result.isError) {
    const text = result.content[0]?.text;
    if (result.structuredContent !== undefined && typeof text === "string") {
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{`;
      return text.includes("\n")
        ? `${head}${LANE_VALUE_KEY}${JSON.stringify(text)}}}`
        : `${head}${LANE_RAW_KEY}${text}}}`;
    }
  }
  return responseLine(id, result);
}

/** A worker's answer on a lane, as the sandbox reads it ({@link readLaneAnswer}). */
export type LaneAnswer =
  /** A success's value text, or the whole result's JSON (`result`) to be judged. */
  | { id: number; valueJson: string }
  | { id: number; resultJson: string }
  /** Not an answer the lane can use (a protocol error): the parent answers that invoke. */
  | { id: number; unusable: true };

/** A worker's answer to a call, as its fast path writes it. */
const ANSWER_HEAD = /^\{"jsonrpc":"2\.0","id":(\d+),"result":/;
const RAW_HEAD = `{${LANE_RAW_KEY}`;
const VALUE_HEAD = `{${LANE_VALUE_KEY}"`;

/**
 * Reads one line a worker sent on a lane ({@link laneAnswerLine}): the call's id and what it
 * answered. Undefined for a line that names no call.
 */
export function readLaneAnswer(line: string): LaneAnswer | undefined {
  const head = ANSWER_HEAD.exec(line);
  if (!head || !line.endsWith("}")) {
    try {
      const m = JSON.parse(line) as { id?: unknown };
      return typeof m.id === "number" ? { id: m.id, unusable: true } : undefined;
    } catch {
      return undefined;
    }
  }
  const id = Number(head[1]);
  const json = line.slice(head[0].length, -1);
  if (json.startsWith(RAW_HEAD)) return { id, valueJson: json.slice(RAW_HEAD.length, -1) };
  if (json.startsWith(VALUE_HEAD)) {
    let text: unknown;
    try {
      text = JSON.parse(json.slice(VALUE_HEAD.length - 1, -1));
    } catch {
      text = undefined;
    }
    return typeof text === "string" ? { id, valueJson: text } : { id, unusable: true };
  }
  return { id, resultJson: json };
}
