/**
 * A worker's successful tool result kept as the JSON text it arrived in, so that a fast path
 * sends it to its client without parsing and serializing it again: on a routed call that was the
 * largest part of the supervisor's JavaScript (a 4 KB answer cost ~50 µs to parse, serialize and
 * encode, docs/ARCHITECTURE.md section 7). The dispatcher hands one out only to a caller that
 * asks for it (`callToolWire`); every other caller gets the parsed {@link ToolResult}.
 */
import { resultJson, type ToolResult } from "./results.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The compact JSON of a successful tool result, as the worker wrote it. */
export class WireResult {
  constructor(readonly json: string) {}

  /** The result as an object, for a caller that needs one. */
  result(): ToolResult {
    return JSON.parse(this.json) as ToolResult;
  }

  /**
   * What `resultJson(this.result(), tool)` gives (the text of the one text content, which is the
   * value's JSON), read without parsing the result: an invoke from a script hands it to the
   * sandbox as it is. Only the text's string literal is parsed (~3 µs for 1.4 KB against ~9 for
   * the whole result); a result in another layout is parsed whole.
   *
   * The literal ends at the first `"}],"structuredContent":` after {@link TEXT_HEAD}: inside a
   * JSON string every quote is written `\"`, so that sequence's second quote, after a comma,
   * cannot lie inside the text, and a match that started inside it would need the text's closing
   * quote to be one of `}],`. If the slice is not one string literal (another layout matched
   * further on), `JSON.parse` throws and the whole result is parsed instead.
   */
  valueJson(tool: string): string {
    const json = this.json;
    if (json.startsWith(TEXT_HEAD)) {
      const end = json.indexOf(TEXT_END, TEXT_HEAD.length);
      if (end !== -1) {
        try {
          const text: unknown = JSON.parse(json.slice(TEXT_HEAD.length - 1, end + 1));
          if (typeof text === "string") return text;
        } catch {
          // Not one string literal: parsed whole below.
        }
      }
    }
    return resultJson(this.result(), tool);
  }
}

/** How a success's JSON starts, up to its text's opening quote (the order workers write). */
const TEXT_HEAD = '{"content":[{"type":"text","text":"';
/** What follows the text's closing quote when the result has structured content. */
const TEXT_END = '"}],"structuredContent":';

const E = 0x45; // "E"
const IS_ERROR = encoder.encode('"isError"');
const E_AT = 3; // "E"'s place in '"isError"'

/**
 * The bytes of a result object as a {@link WireResult} when they may pass untouched: a success,
 * which the supervisor forwards as it came (the worker fitted it to the output cap). A result in
 * which the key `"isError"` appears anywhere is left to the caller to parse, since a failure goes
 * through the dispatcher's error rules; a success that merely contains such a key is parsed too,
 * which costs time, never correctness. A key cannot hide inside a JSON string: a quote there is
 * written `\"`. The text is decoded at once (the reader reuses its buffer); a string lives in
 * memory the garbage collector recycles, where a new buffer would cost a page fault per 4 KB.
 */
export function wireSuccess(json: Uint8Array): WireResult | undefined {
  for (let i = json.indexOf(E, E_AT); i !== -1; i = json.indexOf(E, i + 1)) {
    let match = true;
    for (let k = 0; k < IS_ERROR.length && match; k++) match = json[i - E_AT + k] === IS_ERROR[k];
    if (match) return undefined;
  }
  return new WireResult(decoder.decode(json));
}

/** The JSON-RPC response carrying `result`, as one line of JSON (without its newline). */
export function responseLine(id: string | number, result: ToolResult | WireResult): string {
  if (!(result instanceof WireResult)) return JSON.stringify({ jsonrpc: "2.0", id, result });
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.json}}`;
}
