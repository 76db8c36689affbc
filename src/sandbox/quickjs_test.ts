import assert from "node:assert/strict";
import { resolveLimits } from "./limits.ts";
import type { GlobalValue, GuestLogLevel } from "./protocol.ts";
import type { EngineHost, EngineOutcome, InvokeOutcome } from "./engine_types.ts";
import { SandboxEngine } from "./quickjs.ts";

const engine = await SandboxEngine.load();

interface Harness {
  outcome: EngineOutcome;
  logs: string;
  calls: { name: string; args: unknown }[];
}

/** Runs `code` in-process; `answer` plays the tools (default: echo the args back). */
async function run(
  code: string,
  options: {
    answer?: (name: string, args: unknown) => Promise<InvokeOutcome> | InvokeOutcome;
    limits?: Parameters<typeof resolveLimits>[0];
    globals?: Record<string, GlobalValue>;
  } = {},
): Promise<Harness> {
  let logs = "";
  const calls: { name: string; args: unknown }[] = [];
  const answer = options.answer ??
    ((_name: string, args: unknown) => ({ ok: true, valueJson: JSON.stringify({ echo: args }) }));
  const host: EngineHost = {
    invoke: async (_callId, name, argsJson) => {
      const args: unknown = JSON.parse(argsJson);
      calls.push({ name, args });
      return await answer(name, args);
    },
    log: (_level: GuestLogLevel, text: string) => {
      logs += text;
    },
  };
  const outcome = await engine.run({
    code,
    globals: options.globals ?? {},
    limits: resolveLimits({ cpuMs: 2000, ...options.limits }),
  }, host);
  return { outcome, logs, calls };
}

function result(h: Harness): unknown {
  assert.ok(h.outcome.ok, `expected success, got ${JSON.stringify(h.outcome)}`);
  assert.equal(h.outcome.clean, true, "a run that succeeded must dispose every handle");
  return JSON.parse(h.outcome.resultJson);
}

function failure(h: Harness) {
  assert.ok(!h.outcome.ok, `expected failure, got ${JSON.stringify(h.outcome)}`);
  return h.outcome.error;
}

Deno.test("SandboxEngine.run() returns the value of the last expression", async () => {
  assert.deepEqual(result(await run("const a = 2;\nlet b = { x: a * 21 };\nb")), { x: 42 });
  assert.equal(result(await run("const r = await invoke('t', { n: 1 }); r.echo.n + 1")), 2);
});

Deno.test("SandboxEngine.run() returns an explicit return value, and null for undefined", async () => {
  assert.deepEqual(result(await run("const v = await invoke('t', {});\nreturn [v, 3];")), [
    { echo: {} },
    3,
  ]);
  assert.equal(result(await run("if (true) return;\n5")), null);
  assert.equal(result(await run("let x = 1;")), null);
});

Deno.test("SandboxEngine.run() reports a syntax error as SandboxError", async () => {
  const error = failure(await run("let = ;"));
  assert.equal(error.code, "SandboxError");
  assert.match(error.message, /SyntaxError/);
  const withReturn = failure(await run("return (;"));
  assert.match(withReturn.message, /SyntaxError/);
});

Deno.test("invoke() passes name and args to the host and resolves with its object", async () => {
  const h = await run("await invoke('list_functions', { offset: 5, filter: 'main' })");
  assert.deepEqual(result(h), { echo: { offset: 5, filter: "main" } });
  assert.deepEqual(h.calls, [{ name: "list_functions", args: { offset: 5, filter: "main" } }]);
  assert.equal(h.outcome.stats.invokes, 1);
});

Deno.test("invoke() rejects with an Error carrying the tool's code and detail", async () => {
  const h = await run(
    "try { await invoke('decompile', {}); } catch (e) {\n" +
      "  [e instanceof Error, e.message, e.code, e.detail]\n}",
    {
      answer: () => ({
        ok: false,
        error: { code: "NotFound", message: "No function at 0x10", detail: { nearest: "0x20" } },
      }),
    },
  );
  assert.deepEqual(result(h), [true, "No function at 0x10", "NotFound", { nearest: "0x20" }]);
});

Deno.test("an uncaught invoke rejection keeps its error_type in the detail", async () => {
  const h = await run("await invoke('x', {})", {
    answer: () => ({ ok: false, error: { code: "Busy", message: "Still analysing", detail: {} } }),
  });
  const error = failure(h);
  assert.equal(error.code, "SandboxError");
  assert.equal(error.message, "Uncaught Error: Still analysing");
  assert.equal(error.detail.error_type, "Busy");
});

Deno.test("invoke() refuses args that are not a JSON object, inside the script", async () => {
  const h = await run(
    "const out = [];\n" +
      "for (const a of [[1], 5, { f() {} }, { b: 1n }]) {\n" +
      "  try { await invoke('x', a); out.push('ok'); } catch (e) { out.push(e.name); }\n" +
      "}\nout",
  );
  assert.deepEqual(result(h), ["TypeError", "TypeError", "TypeError", "TypeError"]);
  assert.equal(h.calls.length, 0);
});

Deno.test("invoke() refuses args whose toJSON leaves no text, inside the script", async () => {
  const h = await run(
    "try { await invoke('x', { toJSON() { return undefined; } }); 'ok' }\n" +
      "catch (e) { [e.name, e.message] }",
  );
  assert.deepEqual(result(h), ["TypeError", 'invoke("x", args): args serialize to nothing']);
  assert.equal(h.calls.length, 0);
});

Deno.test("Promise.all over invokes has every call in flight before any resolves", async () => {
  let inFlight = 0;
  let peak = 0;
  const gate = Promise.withResolvers<void>();
  const h = await run(
    "const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => invoke('t', { i })));\n" +
      "rs.map((r) => r.echo.i).reduce((a, b) => a + b, 0)",
    {
      answer: async (_name, args) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        if (inFlight === 100) gate.resolve();
        await gate.promise;
        inFlight--;
        return { ok: true, valueJson: JSON.stringify({ echo: args }) };
      },
    },
  );
  assert.equal(result(h), 4950);
  assert.equal(peak, 100);
});

Deno.test("the invoke limit rejects the call past it inside the script", async () => {
  const h = await run(
    "let n = 0;\n" +
      "try { for (;;) { await invoke('t', {}); n++; } } catch (e) { [n, e.code, e.message] }",
    { limits: { maxInvokes: 5 } },
  );
  const [count, code, message] = result(h) as [number, string, string];
  assert.equal(count, 5);
  assert.equal(code, "SandboxError");
  assert.match(message, /Invoke limit reached: .* at most 5 /);
  assert.equal(h.outcome.stats.invokes, 5);
});

Deno.test("console output is captured with its level and cut at the log limit", async () => {
  const h = await run(
    "console.log('a', 1, { b: [2] }); console.warn('careful'); console.error(new TypeError('t'));\n" +
      "console.info(null, undefined); 0",
  );
  result(h);
  assert.equal(
    h.logs,
    'a 1 {"b":[2]}\n[warn] careful\n[error] TypeError: t\n    at <eval> (script.js:1:76)\n' +
      "null undefined\n",
  );
  const big = await run("for (let i = 0; i < 1000; i++) console.log('x'.repeat(100)); 1", {
    limits: { maxLogBytes: 1000 },
  });
  assert.equal(result(big), 1);
  assert.ok(big.logs.endsWith("[log truncated]\n"));
  assert.ok(new TextEncoder().encode(big.logs).length <= 1000 + "\n[log truncated]\n".length);
});

Deno.test("a result that is not JSON is a SandboxError that says so", async () => {
  for (const code of ["() => 1", "10n", "const o = {}; o.self = o; o", "({ f: Symbol('s') })"]) {
    const error = failure(await run(code));
    assert.equal(error.code, "SandboxError", code);
    assert.match(error.message, /not JSON-serializable/, code);
  }
});

Deno.test("a result over the output limit is OutputTooLarge", async () => {
  const error = failure(await run("'x'.repeat(5000)", { limits: { maxOutputBytes: 4096 } }));
  assert.equal(error.code, "OutputTooLarge");
  const fits = result(await run("'é'.repeat(2000)", { limits: { maxOutputBytes: 4096 } }));
  assert.equal(fits, "é".repeat(2000));
  const wide = failure(await run("'é'.repeat(3000)", { limits: { maxOutputBytes: 4096 } }));
  assert.equal(wide.code, "OutputTooLarge");
});

Deno.test("thrown non-Errors become SandboxError with the value in the message", async () => {
  const cases: [string, string][] = [
    ["throw 42", "Uncaught 42"],
    ["throw { a: 1 }", 'Uncaught {"a":1}'],
    ["throw 'boom'", "Uncaught boom"],
    ["throw null", "Uncaught null"],
    ["throw new RangeError('r')", "Uncaught RangeError: r"],
    ["await Promise.reject(7)", "Uncaught 7"],
  ];
  for (const [code, message] of cases) {
    const error = failure(await run(code));
    assert.equal(error.code, "SandboxError", code);
    assert.equal(error.message, message, code);
  }
  const withStack = failure(await run("function f() { throw new Error('deep'); }\nf()"));
  assert.match(String(withStack.detail.stack), /at f \(script\.js:1/);
});

Deno.test("a promise that can never settle ends the run at once", async () => {
  // No time limit applies here: without the check the run would never end.
  const error = failure(await run("await new Promise(() => {})", { limits: { cpuMs: 3_600_000 } }));
  assert.equal(error.code, "SandboxError");
  assert.match(error.message, /can never settle/);
});

Deno.test("the script sees its globals read-only, and no way out but invoke", async () => {
  const h = await run(
    "database = 'other';\n" +
      "[database, file, typeof fetch, typeof Deno, typeof process, typeof require,\n" +
      " typeof setTimeout, typeof setInterval, typeof WebAssembly, typeof XMLHttpRequest,\n" +
      " typeof invoke, typeof console.log]",
    { globals: { database: "db1", file: "/bin/ls" } },
  );
  assert.deepEqual(result(h), [
    "db1",
    "/bin/ls",
    "undefined",
    "undefined",
    "undefined",
    "undefined",
    "undefined",
    "undefined",
    "undefined",
    "undefined",
    "function",
    "function",
  ]);
  const dynamicImport = failure(await run("await import('data:text/javascript,1')"));
  assert.equal(dynamicImport.code, "SandboxError");
});

Deno.test("a global that would shadow a built-in is InvalidArgument", async () => {
  const error = failure(await run("1", { globals: { JSON: "x" } }));
  assert.equal(error.code, "InvalidArgument");
});

Deno.test("each run gets a fresh realm: prototype pollution does not carry over", async () => {
  result(await run("Object.prototype.polluted = 1; Array.prototype.map = null; 0"));
  assert.deepEqual(result(await run("[typeof ({}).polluted, typeof [].map]")), [
    "undefined",
    "function",
  ]);
});

Deno.test("an infinite loop stops at the CPU limit with SandboxTimeout", async () => {
  const h = await run("while (true) {}", { limits: { cpuMs: 200 } });
  assert.equal(failure(h).code, "SandboxTimeout");
  // Stopped on the CPU clock, which a busy machine does not stretch (no wall-clock bound here).
  assert.ok(h.outcome.stats.cpuMs >= 200, `used ${h.outcome.stats.cpuMs} ms`);
});

Deno.test("time spent waiting on invokes does not count as CPU time", async () => {
  const h = await run("for (let i = 0; i < 3; i++) await invoke('slow', {}); 1", {
    limits: { cpuMs: 50 },
    answer: async () => {
      await new Promise((r) => setTimeout(r, 40));
      return { ok: true, valueJson: "{}" };
    },
  });
  assert.equal(result(h), 1);
});

Deno.test("memory bombs end with SandboxMemory", async () => {
  for (
    const code of [
      "new Uint8Array(1e9)",
      "const a = []; while (true) a.push({ i: a.length })",
      "let s = 'x'; while (true) { s += s; s.indexOf('y') }",
    ]
  ) {
    const error = failure(await run(code, { limits: { memoryBytes: 32 * 1024 * 1024 } }));
    assert.equal(error.code, "SandboxMemory", code);
  }
});

Deno.test("deep recursion is a SandboxError saying stack overflow", async () => {
  const error = failure(await run("function f(n) { return f(n + 1) + 1 }\nf(0)"));
  assert.equal(error.code, "SandboxError");
  assert.match(error.message, /^Stack overflow/);
});

Deno.test("aborting the signal while the script waits ends it with Cancelled", async () => {
  const abort = new AbortController();
  const host: EngineHost = {
    invoke: () => {
      abort.abort();
      return new Promise<InvokeOutcome>(() => {});
    },
    log: () => {},
  };
  const outcome = await engine.run({
    code: "await invoke('hang', {})",
    globals: {},
    limits: resolveLimits(),
    signal: abort.signal,
  }, host);
  assert.ok(!outcome.ok);
  assert.equal(outcome.error.code, "Cancelled");
  assert.equal(outcome.clean, true);
});

Deno.test("a result that is a pending Promise (invoke without await) is an error saying so", async () => {
  const bare = failure(await run("invoke('list_functions', {})"));
  assert.equal(bare.code, "SandboxError");
  assert.match(bare.message, /the result is a pending Promise.*await/);
  const nested = failure(await run("({ fns: invoke('list_functions', {}) })"));
  assert.match(nested.message, /key "fns" is a pending Promise/);
  assert.deepEqual(result(await run("await invoke('t', { a: 1 })")), { echo: { a: 1 } });
});

Deno.test("making an instance leaves the global process as it was", async () => {
  // The engine hides it while emscripten's module starts (quickjs.ts: withoutNodeDetection).
  const before = Object.getOwnPropertyDescriptor(globalThis, "process");
  const other = await SandboxEngine.load();
  const outcome = await other.run(
    { code: "1", globals: {}, limits: resolveLimits() },
    { invoke: () => Promise.resolve({ ok: true, valueJson: "1" }), log: () => {} },
  );
  assert.ok(outcome.ok);
  const after = Object.getOwnPropertyDescriptor(globalThis, "process");
  assert.equal(after?.get, before?.get);
  assert.equal(after?.set, before?.set);
  assert.equal(
    typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process
      ?.versions?.node,
    "string",
  );
});
