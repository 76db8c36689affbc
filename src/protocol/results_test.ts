import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import {
  byteLength,
  errorResult,
  fitToCap,
  okResult,
  resultError,
  resultValue,
} from "./results.ts";
import { paginate } from "./paging.ts";

Deno.test("okResult() text is the compact JSON of the structured content", () => {
  const r = okResult({ a: 1, b: [1, 2] });
  assert.equal(r.content[0]?.text, '{"a":1,"b":[1,2]}');
  assert.deepEqual(r.structuredContent, { a: 1, b: [1, 2] });
});

Deno.test("errorResult() carries error, error_type and detail", () => {
  const r = errorResult(new RemcpError("NotFound", "No such thing", { x: 1 }));
  assert.equal(r.isError, true);
  assert.deepEqual(JSON.parse(r.content[0]!.text), {
    error: "No such thing",
    error_type: "NotFound",
    detail: { x: 1 },
  });
});

Deno.test("errorResult() has no structured content, so no output schema can reject it", () => {
  const r = errorResult(new RemcpError("NoDatabase", "Open one first"));
  assert.equal("structuredContent" in r, false);
});

Deno.test("resultError() rebuilds the error from the text or from older structured content", () => {
  const e = resultError(errorResult(new RemcpError("NotFound", "No such thing", { x: 1 })), "t");
  assert.equal(e.code, "NotFound");
  assert.equal(e.message, "No such thing");
  assert.deepEqual(e.detail, { x: 1 });
  const old = {
    content: [{ type: "text" as const, text: "ignored" }],
    structuredContent: { error: "Gone", error_type: "WorkerCrashed", detail: {} },
    isError: true,
  };
  assert.equal(resultError(old, "t").code, "WorkerCrashed");
  const junk = { content: [{ type: "text" as const, text: "not json" }], isError: true };
  assert.equal(resultError(junk, "t").code, "Internal");
  assert.match(resultError(junk, "t").message, /not json/);
});

Deno.test("resultValue() returns a success's object and throws a failure's error", () => {
  assert.deepEqual(resultValue(okResult({ a: 1 }), "t"), { a: 1 });
  assert.throws(
    () => resultValue(errorResult(new RemcpError("Busy", "Wait")), "t"),
    (e: unknown) => e instanceof RemcpError && e.code === "Busy",
  );
});

Deno.test("fitToCap() cuts a 500-item page to valid JSON with next_offset", () => {
  const items = Array.from(
    { length: 500 },
    (_, i) => ({ name: `function_${i}`, pad: "x".repeat(80) }),
  );
  const page = paginate(items, { limit: 500 }, (i) => i.name, (i) => i);
  const fitted = fitToCap(page, 8 * 1024);
  const text = JSON.stringify(fitted);
  assert.ok(byteLength(text) <= 8 * 1024);
  const parsed = JSON.parse(text);
  assert.equal(parsed.truncated, true);
  assert.equal(parsed.has_more, true);
  assert.equal(parsed.next_offset, parsed.items.length);
  assert.ok(parsed.items.length > 10 && parsed.items.length < 500);
  assert.equal(parsed.total, 500);
});

Deno.test("fitToCap() cuts long text at a line end with a notice", () => {
  const text = Array.from({ length: 2000 }, (_, i) => `line ${i} ${"y".repeat(40)}`).join("\n");
  const fitted = fitToCap({ text }, 4096);
  assert.ok(byteLength(JSON.stringify(fitted)) <= 4096);
  const kept = fitted.text as string;
  assert.ok(kept.endsWith("\n"));
  assert.ok(text.startsWith(kept));
  assert.equal(fitted.truncated, true);
});

Deno.test("fitToCap() refuses an object that cannot be cut", () => {
  const big = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
  assert.throws(
    () => fitToCap(big, 1024),
    (e: unknown) => e instanceof RemcpError && e.code === "OutputTooLarge",
  );
});

Deno.test("paginate() filters with a case-insensitive regex and refuses nested quantifiers", () => {
  const page = paginate(["Main", "foo", "domain"], { filter: "main" }, (s) => s, (s) => s);
  assert.deepEqual(page.items, ["Main", "domain"]);
  assert.throws(() => paginate(["a"], { filter: "(a+)+$" }, (s) => s, (s) => s), RemcpError);
  assert.throws(() => paginate(["a"], { filter: "([" }, (s) => s, (s) => s), RemcpError);
});

Deno.test("errorResult() keeps an error within the output cap, message head and code kept", () => {
  const huge = "x".repeat(5 * 1024 * 1024);
  const r = errorResult(new RemcpError("SandboxError", huge, { blob: huge }), 4096);
  const text = r.content[0]!.text;
  assert.ok(new TextEncoder().encode(text).length <= 4096, `error text is ${text.length} bytes`);
  const payload = JSON.parse(text);
  assert.equal(payload.error_type, "SandboxError");
  assert.match(payload.error, /^x+… \[cut: the message was 5242880 characters\]$/);
  assert.equal(payload.detail.detail_cut, true);
});
