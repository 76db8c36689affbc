/**
 * What a script's `invoke` gets from a tool result, whichever way the call went: through the
 * supervisor's dispatcher (src/meta/run_script.ts) or over a lane straight to the worker
 * (src/sandbox/lanes.ts). One module decides it, so the guest sees the same value text and the
 * same error either way. The sandbox process loads it, so it imports nothing heavy (no zod).
 */
import { type ErrorCode, toErrorPayload } from "../errors.ts";
import { resultJson, type ToolResult } from "./results.ts";
import { WireResult } from "./wire_result.ts";

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
