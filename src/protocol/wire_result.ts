/**
 * A worker's successful tool result kept as the bytes of its JSON, so that a fast path sends it
 * to its client without parsing and serializing it again: on a routed call that was the largest
 * part of the supervisor's JavaScript (a 4 KB answer cost ~50 µs to parse, serialize and encode,
 * docs/ARCHITECTURE.md section 7). The dispatcher hands one out only to a caller that asks for it
 * (`wire: true` in the call context); every other caller gets the parsed {@link ToolResult}.
 */
import type { ToolResult } from "./results.ts";
import { takeBytes } from "./byte_slab.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Bytes kept free before a result's JSON for its response's head (one buffer per answer). */
const HEAD_ROOM = 64;

/** The compact JSON of a successful tool result, as the worker wrote it. */
export class WireResult {
  #buffer: Uint8Array<ArrayBuffer>;
  #headRoom: number;

  /** `buffer` holds the JSON from `headRoom` on, with two bytes free at its end. */
  private constructor(buffer: Uint8Array<ArrayBuffer>, headRoom: number) {
    this.#buffer = buffer;
    this.#headRoom = headRoom;
  }

  /** A copy of `json` (the reader reuses its buffer), with room for a response around it. */
  static copy(json: Uint8Array): WireResult {
    const buffer = takeBytes(HEAD_ROOM + json.length + 2);
    buffer.set(json, HEAD_ROOM);
    return new WireResult(buffer, HEAD_ROOM);
  }

  /** The result's JSON. */
  get json(): Uint8Array<ArrayBuffer> {
    return this.#buffer.subarray(HEAD_ROOM, this.#buffer.length - 2);
  }

  /** The result as an object, for a caller that needs one. */
  result(): ToolResult {
    return JSON.parse(decoder.decode(this.json)) as ToolResult;
  }

  /**
   * `head` + the JSON + `tail` as one line, written in place around the JSON when `head` is
   * ASCII and fits the room left before it and `tail` is two ASCII characters (once: the room is
   * used up); otherwise in a new buffer.
   */
  around(head: string, tail: string): Uint8Array<ArrayBuffer> {
    const buffer = this.#buffer;
    const end = buffer.length;
    if (head.length <= this.#headRoom && tail.length === 2 && ascii(head) && ascii(tail)) {
      const start = HEAD_ROOM - head.length;
      for (let i = 0; i < head.length; i++) buffer[start + i] = head.charCodeAt(i);
      buffer[end - 2] = tail.charCodeAt(0);
      buffer[end - 1] = tail.charCodeAt(1);
      this.#headRoom = 0;
      return buffer.subarray(start);
    }
    const h = encoder.encode(head);
    const t = encoder.encode(tail);
    const json = this.json;
    const out = new Uint8Array(h.length + json.length + t.length);
    out.set(h, 0);
    out.set(json, h.length);
    out.set(t, h.length + json.length);
    return out;
  }
}

function ascii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

const E = 0x45; // "E"
const IS_ERROR = encoder.encode('"isError"');
const E_AT = 3; // "E"'s place in '"isError"'

/**
 * The bytes of a result object as a {@link WireResult} when they may pass untouched: a success,
 * which the supervisor forwards as it came (the worker fitted it to the output cap). A result in
 * which the key `"isError"` appears anywhere is left to the caller to parse, since a failure goes
 * through the dispatcher's error rules; a success that merely contains such a key is parsed too,
 * which costs time, never correctness. A key cannot hide inside a JSON string: a quote there is
 * written `\"`. The bytes are copied, as the reader reuses its buffer.
 */
export function wireSuccess(json: Uint8Array): WireResult | undefined {
  for (let i = json.indexOf(E, E_AT); i !== -1; i = json.indexOf(E, i + 1)) {
    let match = true;
    for (let k = 0; k < IS_ERROR.length && match; k++) match = json[i - E_AT + k] === IS_ERROR[k];
    if (match) return undefined;
  }
  return WireResult.copy(json);
}

/** A JSON-RPC response carrying `result`, as one newline-terminated line in one buffer. */
export function responseLine(
  id: string | number,
  result: ToolResult | WireResult,
): Uint8Array<ArrayBuffer> {
  if (!(result instanceof WireResult)) {
    return encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
  }
  return result.around(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, "}\n");
}
