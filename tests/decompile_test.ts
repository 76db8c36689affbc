/** End-to-end: decompile_function on the embedded backend (remcp's own decompiler). */
import assert from "node:assert/strict";
import { fixture, type Harness, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

async function open(h: Harness, name: string) {
  const o = await ok(h.client, "open_database", { path: fixture(name) });
  await ok(h.client, "wait_for_analysis", { database: o.database, timeout: 120 });
  return String(o.database);
}

interface Decompiled {
  name: string;
  start: string;
  engine: string;
  code: string;
  lines: { line: number; addresses: string[] }[];
  warnings?: { code: string; message: string }[];
}

Deno.test("decompile_function prints C with calls, strings and a line map", e2e, async () => {
  const h = await startRemcp();
  try {
    const db = await open(h, "elf_x86_64_gcc_O0");
    const main = await ok(h.client, "decompile_function", {
      database: db,
      address: "main",
    }) as unknown as Decompiled;
    assert.equal(main.engine, "remcp");
    assert.match(main.code, /^\S.* main\(.*\)\n\{/);
    assert.match(main.code, /printf\("fact=%ld fib=%d\\n", /);
    assert.match(main.code, /remcp_fact\(/);
    assert.ok(main.lines.length > 10);
    const fn = await ok(h.client, "get_function", { database: db, address: "main" });
    const [start, end] = [Number(fn.start), Number(fn.end)];
    for (const l of main.lines) {
      for (const a of l.addresses) {
        assert.ok(Number(a) >= start && Number(a) < end, `line ${l.line} maps into main: ${a}`);
      }
    }
    const plus = await ok(h.client, "decompile_function", {
      database: db,
      address: "remcp_op_plus",
    });
    assert.match(String(plus.code), /return .*\+/);
  } finally {
    await h.close();
  }
});

Deno.test(
  "decompile_function answers for every function of a stripped -O2 binary",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const db = await open(h, "elf_x86_64_gcc_O2_stripped");
      const fns = await ok(h.client, "list_functions", { database: db, limit: 500 });
      const items = fns.items as { start: string; flags: string[] }[];
      let decompiled = 0;
      for (const f of items) {
        if (f.flags.includes("import")) continue;
        const r = await ok(h.client, "decompile_function", {
          database: db,
          address: f.start,
        }) as unknown as Decompiled;
        assert.equal(r.engine, "remcp");
        assert.ok(!r.warnings?.some((w) => w.code === "decompiler_failed"), r.code);
        decompiled++;
      }
      assert.ok(decompiled > 20);
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "decompile_function on an ISA it does not lift yet says so and shows the disassembly",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const db = await open(h, "elf_aarch64_gcc_O2");
      const r = await ok(h.client, "decompile_function", {
        database: db,
        address: "main",
      }) as unknown as Decompiled;
      assert.match(r.code, /could not decompile main: .*aarch64/);
      assert.match(r.code, /\/\/ 0x[0-9a-f]+ {2}\w+/);
      assert.equal(r.warnings?.[0]?.code, "decompiler_failed");
    } finally {
      await h.close();
    }
  },
);
