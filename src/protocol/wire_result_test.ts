import assert from "node:assert/strict";
import { errorResult, okResult, resultJson, type ToolResult } from "./results.ts";
import { responseLine, WireResult, wireSuccess } from "./wire_result.ts";
import { RemcpError } from "../errors.ts";

const encoder = new TextEncoder();
const bytes = (value: unknown) => encoder.encode(JSON.stringify(value));

Deno.test("wireSuccess() takes a success and leaves anything holding an isError key to be parsed", () => {
  const ok = okResult({ name: "main", text: 'a "quoted" isError line', n: 1 });
  const wire = wireSuccess(bytes(ok));
  assert.ok(wire instanceof WireResult);
  assert.deepEqual(wire.result(), ok);
  // A failure, and a success whose value has such a key, go the parsed way.
  assert.equal(wireSuccess(bytes(errorResult(new RemcpError("Busy", "later", {})))), undefined);
  assert.equal(wireSuccess(bytes(okResult({ isError: false }))), undefined);
  // The key inside a string is escaped and does not count.
  const inText = okResult({ note: '{"isError":true}' });
  assert.ok(wireSuccess(bytes(inText)) instanceof WireResult);
});

Deno.test("wireSuccess() keeps its own copy: the reader may reuse its buffer at once", () => {
  const buffer = bytes(okResult({ v: "abc" }));
  const wire = wireSuccess(buffer)!;
  buffer.fill(0x20);
  assert.deepEqual(wire.result(), okResult({ v: "abc" }));
});

Deno.test("responseLine() writes what serializing the parsed result would, for every id", () => {
  const result = okResult({ name: "ünïcode ✓", items: [1, 2, { "10": "a", b: null }] });
  for (const id of [0, 7, 123456789, "abc", 'q"uote', "ïd", "x".repeat(100)]) {
    const expected = JSON.stringify({ jsonrpc: "2.0", id, result });
    assert.equal(responseLine(id, wireSuccess(bytes(result))!), expected);
    assert.equal(responseLine(id, result), expected);
  }
});

Deno.test("WireResult.valueJson() gives what resultJson() of the parsed result gives, in every layout", () => {
  const results: ToolResult[] = [
    okResult({ name: "main", n: 1, nested: { a: [1, "x"] } }),
    okResult({}),
    // The text holds the very sequence the reader looks for, escaped as JSON writes it.
    okResult({ trap: '"}],"structuredContent":{"x":1}', ü: "ünïcode ✓\\" }),
    // A text that is not the structured content's JSON (workers' textField results).
    { content: [{ type: "text", text: "[[1,2],[3,4]]" }], structuredContent: { count: 2 } },
    { content: [{ type: "text", text: "" }], structuredContent: {} },
    // Other layouts: parsed whole.
    { structuredContent: { a: 1 }, content: [{ type: "text", text: '{"a":1}' }] },
    { content: [{ type: "text", text: '{"a":1}' }] },
    {
      content: [{ type: "text", text: '{"a":1}' }],
      _meta: { x: [{ y: "z" }], structuredContent: 1 },
      structuredContent: { a: 1 },
    },
  ];
  for (const result of results) {
    const wire = wireSuccess(bytes(result))!;
    assert.equal(wire.valueJson("t"), resultJson(result, "t"), JSON.stringify(result));
  }
});
