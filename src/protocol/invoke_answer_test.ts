import assert from "node:assert/strict";
import { laneAnswerLine, readLaneAnswer } from "./invoke_answer.ts";
import { errorResult, okResult, type ToolResult } from "./results.ts";
import { RemcpError } from "../errors.ts";

Deno.test("laneAnswerLine() sends a success's value text unescaped, and readLaneAnswer() gets it back", () => {
  const value = { name: 'say "hi"\\', nested: { items: [1, 2.5, null, "\u2028é"] } };
  const line = laneAnswerLine(7, okResult(value));
  assert.ok(!line.includes("\n"));
  assert.ok(line.includes(JSON.stringify(value)), "the value's JSON is spliced in as it is");
  assert.deepEqual(readLaneAnswer(line), { id: 7, valueJson: JSON.stringify(value) });
});

Deno.test("laneAnswerLine() sends a text holding a newline as a string, so the line stays one line", () => {
  // A text field's result (workers/tool_server.ts: textFieldResult).
  const result: ToolResult = {
    content: [{ type: "text", text: "a\tb\nc\td\n" }],
    structuredContent: { n: 2 },
  };
  const line = laneAnswerLine(3, result);
  assert.equal(line.split("\n").length, 1);
  assert.deepEqual(readLaneAnswer(line), { id: 3, valueJson: "a\tb\nc\td\n" });
});

Deno.test("readLaneAnswer() hands a failure over whole, and a protocol error as unusable", () => {
  const failed: ToolResult = errorResult(new RemcpError("NotFound", "No such thing"));
  const answer = readLaneAnswer(laneAnswerLine(4, failed));
  assert.ok(answer && "resultJson" in answer);
  assert.deepEqual(JSON.parse(answer.resultJson), failed);
  assert.deepEqual(
    readLaneAnswer('{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"bad"}}'),
    { id: 5, unusable: true },
  );
  assert.deepEqual(readLaneAnswer('{"jsonrpc":"2.0","id":6,"result":{"value_json":"\\x"}}'), {
    id: 6,
    unusable: true,
  });
  assert.equal(readLaneAnswer("not json"), undefined);
  assert.equal(readLaneAnswer('{"jsonrpc":"2.0","method":"x"}'), undefined);
});
