/** End-to-end: execute through the real server, functional and hostile scripts. */
import assert from "node:assert/strict";
import { fails, fixture, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test("execute runs a pipeline of invokes and returns only the result", e2e, async () => {
  const h = await startRemcp();
  try {
    const a = await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
    const b = await ok(h.client, "open_database", { path: fixture("pe_x86_64_O2.exe") });
    await ok(h.client, "wait_for_analysis", { database: a.database });
    await ok(h.client, "wait_for_analysis", { database: b.database });
    const r = await ok(h.client, "execute", {
      database: a.database,
      code: `
        const info = await invoke("get_database_info", {});
        const [x, y] = await Promise.all([
          invoke("get_database_info", {}),
          invoke("get_database_info", { database: ${JSON.stringify(b.database)} }),
        ]);
        console.log("formats", x.format, y.format);
        ({ size: info.size, formats: [x.format, y.format] })
      `,
    });
    assert.deepEqual((r.result as { formats: string[] }).formats, ["elf", "pe"]);
    assert.equal(r.invokes, 3);
    assert.match(String(r.logs), /formats elf pe/);

    const caught = await ok(h.client, "execute", {
      code: `try { await invoke("get_database_info", { database: "ghost" }); return "no"; }
             catch (e) { return { code: e.code, open: e.detail.open }; }`,
    });
    assert.equal((caught.result as { code: string }).code, "NoDatabase");

    const lifecycle = await ok(h.client, "execute", {
      code: `try { await invoke("close_database", { database: ${JSON.stringify(a.database)} }); }
             catch (e) { return e.code; }`,
    });
    assert.equal(lifecycle.result, "InvalidArgument");
    const meta = await ok(h.client, "execute", {
      code: `try { await invoke("execute", { code: "1" }); } catch (e) { return e.code; }`,
    });
    assert.equal(meta.result, "InvalidArgument");
  } finally {
    await h.close();
  }
});

Deno.test("hostile execute scripts end with the right error and harm nothing", e2e, async () => {
  const h = await startRemcp();
  try {
    const a = await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
    await ok(h.client, "wait_for_analysis", {});
    // [code, error, timeout_s]: only the loop meets its time limit; the others get time enough
    // that a busy machine cannot make them end any other way than the one under test.
    const cases: [string, string, number?][] = [
      ["while (true) {}", "SandboxTimeout", 2],
      ["const a = []; while (true) a.push(new Array(1e5).fill(1));", "SandboxMemory"],
      ["function f() { return f() + 1; } f()", "SandboxError"],
      ["throw 42", "SandboxError"],
      ["await new Promise(() => {})", "SandboxError"],
      [
        "typeof fetch === 'undefined' && typeof Deno === 'undefined' ? undefined.x : 1",
        "SandboxError",
      ],
    ];
    for (const [code, type, timeout_s] of cases) {
      const e = await fails(h.client, "execute", { code, timeout_s: timeout_s ?? 300 });
      assert.equal(e.error_type, type, `${code} → ${e.error}`);
    }
    const big = await ok(h.client, "execute", {
      code: "Array.from({length: 50000}, (_, i) => ({ i, s: 'x'.repeat(20) }))",
    });
    assert.equal(big.truncated, true);
    assert.ok((big.result as unknown[]).length < 50000);
    // The supervisor and the worker are still fine.
    const info = await ok(h.client, "get_database_info", { database: a.database });
    assert.equal(info.format, "elf");
    const again = await ok(h.client, "execute", { code: "1 + 1" });
    assert.equal(again.result, 2);
  } finally {
    await h.close();
  }
});
