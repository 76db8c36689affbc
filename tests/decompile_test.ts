/** End-to-end: decompile_function on the embedded backend (remcp's own decompiler). */
import assert from "node:assert/strict";
import { fails, fixture, type Harness, ok, startRemcp } from "./_harness.ts";

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

/** Decompiles every non-import function of `db`; each must give C. Returns how many. */
async function decompilesEveryFunction(h: Harness, db: string): Promise<number> {
  const fns = await ok(h.client, "list_functions", { database: db, limit: 500 });
  let decompiled = 0;
  for (const f of fns.items as { start: string; flags: string[] }[]) {
    if (f.flags.includes("import")) continue;
    const r = await ok(h.client, "decompile_function", {
      database: db,
      address: f.start,
    }) as unknown as Decompiled;
    assert.equal(r.engine, "remcp");
    assert.ok(!r.warnings?.some((w) => w.code === "decompiler_failed"), r.code);
    decompiled++;
  }
  return decompiled;
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
      assert.ok(await decompilesEveryFunction(h, db) > 20);
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "decompile_function on AArch64: C for every function, conditions from flags, switches",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const db = await open(h, "elf_aarch64_gcc_O2");
      const code = async (address: string) => {
        const r = await ok(h.client, "decompile_function", {
          database: db,
          address,
        }) as unknown as Decompiled;
        assert.equal(r.engine, "remcp");
        assert.ok(!r.warnings?.some((w) => w.code === "decompiler_failed"), r.code);
        return r.code;
      };
      const main = await code("main");
      assert.match(main, /printf\("fact=%ld fib=%d\\n", /);
      assert.match(main, /remcp_fact\(/);
      assert.doesNotMatch(main, /__asm_|__flags_/);
      assert.match(await code("remcp_op_plus"), /return arg1 \+ arg2;/);
      // cmp w0, #0x11; b.hi: an unsigned bound check before the jump table.
      const sw = await code("remcp_switch");
      assert.match(sw, /switch \(/);
      assert.match(sw, /case 17:/);
      // cmp w1, w0; cset w2, lt; cmp w0, w1; cset w0, lt: comparisons, not flag formulas.
      assert.match(await code("remcp_cmp_ints"), /\(\w+ < \w+\) - \(uint32_t\)\(\w+ < \w+\)/);
      const stripped = await open(h, "elf_aarch64_gcc_O2_stripped");
      assert.ok(await decompilesEveryFunction(h, stripped) > 20);
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
      const db = await open(h, "elf_mips_gcc_O2");
      const r = await ok(h.client, "decompile_function", {
        database: db,
        address: "main",
      }) as unknown as Decompiled;
      assert.match(r.code, /could not decompile main: .*mips/);
      assert.match(r.code, /\/\/ 0x[0-9a-f]+ {2}\w+/);
      assert.equal(r.warnings?.[0]?.code, "decompiler_failed");
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "rename_local and set_local_type change the output, undo, and travel in exports",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const db = await open(h, "elf_x86_64_gcc_O0");
      const code = async () =>
        String((await ok(h.client, "decompile_function", { database: db, address: "main" })).code);
      const before = await code();
      assert.match(before, /main\(uint32_t arg1, /);
      const r = await ok(h.client, "rename_local", {
        database: db,
        function: "main",
        variable: "arg1",
        name: "argc",
      });
      assert.deepEqual([r.variable, r.old_name, r.new_name], ["arg1", "arg1", "argc"]);
      const t = await ok(h.client, "set_local_type", {
        database: db,
        function: "main",
        variable: "argc",
        type: "int",
      });
      assert.equal(t.new_type, "int");
      const after = await code();
      assert.match(after, /main\(int argc, /);
      assert.doesNotMatch(after, /\barg1\b/);
      // Errors name what to do.
      const missing = await fails(h.client, "rename_local", {
        database: db,
        function: "main",
        variable: "nosuch",
        name: "x",
      });
      assert.equal(missing.error_type, "NotFound");
      assert.match(missing.error, /its variables: argc/);
      const bad = await fails(h.client, "set_local_type", {
        database: db,
        function: "main",
        variable: "argc",
        type: "int; system()",
      });
      assert.equal(bad.error_type, "InvalidArgument");
      // Exported and imported with the rest.
      const exported = await ok(h.client, "export_annotations", { database: db });
      assert.match(String(exported.document), /"locals":\[\{"address":"0x[0-9a-f]+","variables"/);
      // Undo twice: the type, then the name.
      await ok(h.client, "undo", { database: db });
      assert.match(await code(), /main\(uint32_t argc, /);
      await ok(h.client, "undo", { database: db });
      assert.match(await code(), /main\(uint32_t arg1, /);
      const imported = await ok(h.client, "import_annotations", {
        database: db,
        document: exported.document,
      });
      assert.ok(Number(imported.applied) >= 1);
      assert.match(await code(), /main\(int argc, /);
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "set_function_prototype changes a function's decompilation and its callers'",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const db = await open(h, "elf_x86_64_gcc_O0");
      const dec = async (address: string) =>
        String((await ok(h.client, "decompile_function", { database: db, address })).code);
      assert.match(await dec("remcp_fact"), /^uint64_t remcp_fact\(/);
      await ok(h.client, "set_function_prototype", {
        database: db,
        address: "remcp_fact",
        prototype: "long remcp_fact(int n, int unused)",
      });
      assert.match(
        await dec("remcp_fact"),
        /^long remcp_fact\(uint64_t arg1, uint64_t arg2\)|^long remcp_fact\(\w+ arg1, \w+ arg2\)/,
      );
      // The caller now passes two arguments.
      assert.match(await dec("main"), /remcp_fact\([^;]*, [^;]*\);/);
    } finally {
      await h.close();
    }
  },
);

Deno.test("decompile_function on x86-32: cdecl stack arguments and PIC strings", e2e, async () => {
  const h = await startRemcp();
  try {
    const db = await open(h, "elf_i386_gcc_O2");
    const dec = async (address: string) =>
      String((await ok(h.client, "decompile_function", { database: db, address })).code);
    assert.match(
      await dec("remcp_op_plus"),
      /\(uint32_t arg1, uint32_t arg2\)[^]*return arg2 \+ arg1;/,
    );
    assert.match(await dec("remcp_apply"), /= \(\(uint64_t \(\*\)\(\)\)arg1\)\(arg2, arg3\);/);
    assert.match(await dec("remcp_print_strings"), /puts\("Hello, remcp!"\);/);
  } finally {
    await h.close();
  }
});
