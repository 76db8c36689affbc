import assert from "node:assert/strict";
import { encodeParentMessage, type InvokeResultMessage, parseParentMessage } from "./protocol.ts";

const runId = crypto.randomUUID();

Deno.test("encodeParentMessage() splices an invoke's JSON text in as it is, and parseParentMessage() cuts it out", () => {
  const valueJson = '{"name":"a \\"quoted\\" name","items":[1,2,{"x":null}]}';
  const line = encodeParentMessage({
    type: "invoke_result",
    runId,
    callId: 7,
    ok: true,
    valueJson,
  });
  assert.ok(line.endsWith(`"value":${valueJson}}`), "the text must travel unescaped");
  assert.deepEqual(JSON.parse(line).value, JSON.parse(valueJson), "the line must stay JSON");
  assert.deepEqual(parseParentMessage(line), {
    type: "invoke_result",
    runId,
    callId: 7,
    ok: true,
    valueJson,
  });
});

Deno.test("encodeParentMessage() sends a text with a raw newline as a string, which parses back", () => {
  const valueJson = '{\n  "pretty": true\n}';
  const message: InvokeResultMessage = {
    type: "invoke_result",
    runId,
    callId: 1,
    ok: true,
    valueJson,
  };
  const line = encodeParentMessage(message);
  assert.ok(!line.includes("\n"), "a protocol line holds no raw newline");
  assert.deepEqual(parseParentMessage(line), message);
});

Deno.test("encodeParentMessage() keeps failures and a run id that needs escapes in the plain form", () => {
  const failure: InvokeResultMessage = {
    type: "invoke_result",
    runId,
    callId: 2,
    ok: false,
    error: { code: "NotFound", message: "no such function", detail: { address: "0x10" } },
  };
  assert.deepEqual(parseParentMessage(encodeParentMessage(failure)), failure);
  const odd: InvokeResultMessage = {
    type: "invoke_result",
    runId: 'a"b\\c',
    callId: 3,
    ok: true,
    valueJson: "{}",
  };
  assert.deepEqual(parseParentMessage(encodeParentMessage(odd)), odd);
});

Deno.test("parseParentMessage() still refuses an invoke_result without a value", () => {
  const refused = parseParentMessage(`{"type":"invoke_result","runId":"r","callId":1,"ok":true}`);
  assert.equal(typeof refused, "string");
});
