/**
 * Hostile input for decompile_function: a 50,000-instruction function, self-overlapping code and
 * garbage bytes. Each call ends (with code or a clear error) and the worker keeps answering.
 */
import assert from "node:assert/strict";
import { callTool, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** `count` instructions: `add eax, ecx`, and every 40th a `cmp; jne` into the middle of a `mov`. */
function blob(count: number, garbage: number): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 40 === 39) out.push(0x83, 0xf8, 0x07, 0x75, 0x01, 0xb8, 0x90, 0x90, 0x90, 0x90);
    else out.push(0x01, 0xc8);
  }
  out.push(0xc3);
  // Deterministic garbage (an LCG), then a last function the analysis may find inside it.
  let x = 12345;
  for (let i = 0; i < garbage; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(x & 0xff);
  }
  return Uint8Array.from(out);
}

async function openBlob(h: Awaited<ReturnType<typeof startRemcp>>, bytes: Uint8Array) {
  const path = await Deno.makeTempFile({ prefix: "remcp-test-decompile-", suffix: ".bin" });
  await Deno.writeFile(path, bytes);
  const o = await ok(h.client, "open_database", {
    path,
    options: { raw: true, arch: "x86_64", base: "0x1000" },
  });
  await ok(h.client, "wait_for_analysis", { database: o.database, timeout: 300 });
  return { db: String(o.database), path };
}

Deno.test(
  "decompile_function: 50,000 instructions, overlapping code, garbage — the worker answers",
  e2e,
  async () => {
    const h = await startRemcp();
    const paths: string[] = [];
    try {
      const big = await openBlob(h, blob(50_000, 0));
      paths.push(big.path);
      const r = await callTool(h.client, "decompile_function", {
        database: big.db,
        address: "0x1000",
      });
      if (r.isError) {
        const e = r.sc as { error_type: string; error: string };
        assert.match(e.error_type, /^(Unsupported|Timeout)$/);
        assert.match(e.error, /disassemble_function/);
      } else {
        // Past the full pipeline's cap: the simplified tier's C, which says so.
        assert.match(String(r.sc.code), /^\/\* remcp: (simplified|last-resort) output: /);
        const warnings = r.sc.warnings as { code: string }[];
        assert.ok(warnings.some((w) => w.code === "decompiler_degraded"));
      }

      const odd = await openBlob(h, blob(2_000, 4096));
      paths.push(odd.path);
      const fns = await ok(h.client, "list_functions", { database: odd.db, limit: 50 });
      const starts = (fns.items as { start: string }[]).map((f) => f.start);
      assert.ok(starts.length > 0);
      for (const start of starts) {
        const d = await callTool(h.client, "decompile_function", {
          database: odd.db,
          address: start,
        });
        if (d.isError) {
          assert.match((d.sc as { error_type: string }).error_type, /^(Unsupported|Timeout)$/);
        } else assert.match(String(d.sc.code), /\{/);
      }
      // Still answering.
      const again = await ok(h.client, "list_functions", { database: big.db, limit: 1 });
      assert.ok((again.items as unknown[]).length === 1);
    } finally {
      await h.close();
      for (const p of paths) await Deno.remove(p).catch(() => {});
    }
  },
);
