/**
 * The result rules (docs/ARCHITECTURE.md §2): structured content is always an object, the text content is
 * the same object serialized compactly, pages are cut to fit the output cap, long text is cut at
 * a line end, and nothing ever emits cut, invalid JSON.
 */
import { type ErrorPayload, fromErrorPayload, RemcpError, toErrorPayload } from "../errors.ts";

/** Default cap on one result's serialized size (REMCP_MAX_OUTPUT_BYTES). */
export const DEFAULT_MAX_OUTPUT_BYTES = 128 * 1024;

/** The MCP `tools/call` result shape remcp produces. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  /** Present on success only: see {@link errorResult}. */
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An advisory note riding along in structured content. */
export interface Warning {
  code: string;
  message: string;
}

const encoder = new TextEncoder();

/** UTF-8 byte length of a string. */
export function byteLength(text: string): number {
  // Fast path: ASCII-only strings are 1 byte per code unit.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encoder.encode(text).length;
}

/** A successful result whose text is exactly the compact JSON of `value`. */
export function okResult(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * `okResult(fitToCap(value, maxBytes))`, serializing a value that fits once instead of twice (once
 * to measure it, once for the text): most results fit, and the worker hop pays this per call.
 */
export function cappedResult(value: Record<string, unknown>, maxBytes: number): ToolResult {
  const text = JSON.stringify(value);
  if (byteLength(text) <= maxBytes) {
    return { content: [{ type: "text", text }], structuredContent: value };
  }
  return okResult(fitToCap(value, maxBytes));
}

/**
 * A failed result: `{error, error_type, detail}` as compact JSON text, with `isError` and no
 * structured content. SDK v1 clients (most MCP hosts) check any structured content against the
 * tool's listed output schema, error results included, and the error object matches no tool's
 * output schema: with structured content the agent would read a schema complaint instead of the
 * error. Every client reads the text.
 */
export function errorResult(err: unknown, maxBytes = DEFAULT_MAX_OUTPUT_BYTES): ToolResult {
  const payload = toErrorPayload(err);
  let text = JSON.stringify(payload);
  if (byteLength(text) > maxBytes) text = JSON.stringify(shrinkError(payload, maxBytes));
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * An error payload cut to fit `maxBytes` (at least 1 KiB): a large detail is replaced by its
 * size, and the message keeps its head with a notice. Binary search on the kept length bounds
 * the work to O(log n) serializations of at most the cap.
 */
function shrinkError(payload: ErrorPayload, maxBytes: number): Record<string, unknown> {
  const cap = Math.max(1024, maxBytes);
  const detailBytes = byteLength(JSON.stringify(payload.detail));
  const detail = detailBytes > cap / 4
    ? { detail_cut: true, detail_bytes: detailBytes }
    : payload.detail;
  const message = payload.error;
  const build = (keep: number) => ({
    ...payload,
    error: keep >= message.length
      ? message
      : `${message.slice(0, keep)}… [cut: the message was ${message.length} characters]`,
    detail,
  });
  let lo = 0;
  let hi = Math.min(message.length, cap);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (byteLength(JSON.stringify(build(mid))) <= cap) lo = mid;
    else hi = mid - 1;
  }
  return build(lo);
}

/**
 * The error a failed result carries, as a `RemcpError`. The object is read from the text (see
 * {@link errorResult}); structured content, which older workers still send, is read too.
 */
export function resultError(result: ToolResult, tool: string): RemcpError {
  let payload: unknown = result.structuredContent;
  if (payload === undefined) {
    try {
      payload = JSON.parse(result.content[0]?.text ?? "");
    } catch {
      payload = undefined;
    }
  }
  return fromErrorPayload(payload) ??
    new RemcpError("Internal", `${tool} failed: ${result.content[0]?.text ?? "no message"}`, {});
}

/** The object a result carries: its value on success; its error, thrown, on failure. */
export function resultValue(result: ToolResult, tool: string): Record<string, unknown> {
  if (result.isError) throw resultError(result, tool);
  return result.structuredContent ?? {};
}

/**
 * The JSON text of the object a result carries, without serializing it again: a success's text
 * is exactly that JSON ({@link okResult}). Its error, thrown, on failure.
 */
export function resultJson(result: ToolResult, tool: string): string {
  if (result.isError) throw resultError(result, tool);
  const text = result.content[0]?.text;
  if (result.structuredContent !== undefined && typeof text === "string") return text;
  return JSON.stringify(result.structuredContent ?? {});
}

/**
 * Makes `value` fit in `maxBytes` of compact JSON, preserving its shape:
 * - a page (`items` array) keeps the longest prefix of items that fits, with `truncated`,
 *   `has_more` and `next_offset` set;
 * - otherwise the longest string field is cut at a line end with a notice;
 * - anything still too big is an `OutputTooLarge` error asking for a narrower request.
 */
export function fitToCap(
  value: Record<string, unknown>,
  maxBytes: number,
): Record<string, unknown> {
  const size = byteLength(JSON.stringify(value));
  if (size <= maxBytes) return value;
  if (Array.isArray(value.items)) {
    const cut = cutPage(value, value.items, maxBytes);
    if (cut) return cut;
  }
  const text = cutLongestString(value, maxBytes);
  if (text) return text;
  throw new RemcpError(
    "OutputTooLarge",
    `Result is ${size} bytes, over the ${maxBytes}-byte output cap: ask for less ` +
      `(a smaller limit or count, a filter, or a narrower address range)`,
    { bytes: size, max_bytes: maxBytes },
  );
}

function cutPage(
  value: Record<string, unknown>,
  items: unknown[],
  maxBytes: number,
): Record<string, unknown> | undefined {
  const offset = typeof value.offset === "number" ? value.offset : 0;
  const build = (k: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      ...value,
      items: items.slice(0, k),
      has_more: true,
      next_offset: offset + k,
      truncated: true,
    };
    const warnings = Array.isArray(value.warnings) ? [...value.warnings] : [];
    warnings.push({
      code: "truncated",
      message: `Only ${k} of ${items.length} items fit in the output cap; ` +
        `call again with offset ${offset + k} for the rest`,
    });
    out.warnings = warnings;
    return out;
  };
  // Binary search the longest prefix that fits; serialization is the cost, so keep it O(log n).
  let lo = 0;
  let hi = items.length - 1;
  if (byteLength(JSON.stringify(build(0))) > maxBytes) return undefined;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (byteLength(JSON.stringify(build(mid))) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return build(lo);
}

function cutLongestString(
  value: Record<string, unknown>,
  maxBytes: number,
): Record<string, unknown> | undefined {
  let key: string | undefined;
  let longest = 0;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string" && v.length > longest) {
      key = k;
      longest = v.length;
    }
  }
  if (key === undefined) return undefined;
  const text = value[key] as string;
  const build = (cutAt: number): Record<string, unknown> => {
    const kept = text.slice(0, cutAt);
    const lines = kept.length === 0 ? 0 : kept.split("\n").length;
    const warnings = Array.isArray(value.warnings) ? [...value.warnings] : [];
    warnings.push({
      code: "truncated",
      message: `${key} was cut after ${lines} lines to fit the output cap; ` +
        `ask for a smaller range to see the rest`,
    });
    return { ...value, [key]: kept, truncated: true, warnings };
  };
  if (byteLength(JSON.stringify(build(0))) > maxBytes) return undefined;
  // Candidate cut points are line ends; binary search over them.
  const ends: number[] = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) ends.push(i + 1);
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (byteLength(JSON.stringify(build(ends[mid]!))) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return build(ends[lo]!);
}

/** Wraps a bare array result as an object, per the object-only rule. */
export function wrapItems(items: unknown[]): Record<string, unknown> {
  return { items };
}
