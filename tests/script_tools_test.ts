/**
 * End-to-end: script tools loaded from a tools folder and defined at run time — argument
 * checking, scopes, list_changed, containment, typed errors, and the two shipped examples.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fails, fixture, type Harness, ok, repoPath, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** A tool file from its parts; `run` is the method's source. */
function toolFile(spec: Record<string, unknown>, run: string): string {
  return `// test tool\nexport default {\n  ...${JSON.stringify(spec)},\n  ${run},\n};\n`;
}

const ECHO = toolFile(
  {
    name: "t_echo",
    description: "Echo the arguments back.\nWith details.",
    input: {
      type: "object",
      properties: {
        text: { type: "string", minLength: 1, description: "Some text" },
        count: { type: ["integer", "null"], minimum: 0, maximum: 10 },
        mode: { type: "string", enum: ["a", "b"] },
        where: { type: "string", format: "address" },
        many: { type: "array", items: { type: "string", format: "address" }, maxItems: 4 },
      },
      required: ["text"],
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    pinned: true,
  },
  `async run(args, ctx) {
    ctx.warn("echo", "echoed " + Object.keys(args).length + " arguments");
    ctx.progress(1, 1, "done");
    return { args, database: ctx.database };
  }`,
);

const HIDDEN_GLOBAL = toolFile({
  name: "t_global",
  description: "A global tool, not listed.",
  input: { type: "object", properties: { n: { type: "number" } } },
  scope: "global",
}, `run(args, ctx) { return [args.n ?? 0, ctx.database]; }`);

const ERRORS = toolFile(
  {
    name: "t_errors",
    description: "Fails in the way asked.",
    input: {
      type: "object",
      properties: { how: { type: "string", enum: ["typed", "bogus", "plain", "invoke", "shape"] } },
      required: ["how"],
    },
    output: {
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
    },
    scope: "global",
  },
  `async run({ how }, ctx) {
    if (how === "typed") {
      throw Object.assign(new Error("No such widget: try another"), { code: "NotFound", detail: { widget: 7 } });
    }
    if (how === "bogus") throw Object.assign(new Error("odd"), { code: "Bogus" });
    if (how === "plain") throw new RangeError("plain failure");
    if (how === "invoke") await ctx.invoke("get_database_info", { database: "ghost" });
    return { ok: "not a boolean" };
  }`,
);

const BROKEN: Record<string, string> = {
  "syntax.js": "export default { name: 't_syntax', run( {\n",
  "pattern.js": toolFile({
    name: "t_pattern",
    description: "x",
    input: { type: "object", properties: { s: { type: "string", pattern: "a+" } } },
  }, "run() { return {}; }"),
  "shadow.js": toolFile({
    name: "list_functions",
    description: "x",
    input: { type: "object" },
  }, "run() { return {}; }"),
  "norun.js": 'export default { name: "t_norun", description: "x", input: { type: "object" } };\n',
  "import.js": 'import x from "y";\nexport default {};\n',
  "loop.js": "while (true) {}\nexport default {};\n",
};

async function toolsDir(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-tools-" });
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
  return dir;
}

async function openFixture(h: Harness, name: string): Promise<string> {
  const r = await ok(h.client, "open_database", { path: fixture(name) });
  await ok(h.client, "wait_for_analysis", { database: r.database });
  return r.database as string;
}

Deno.test(
  "script tools load from --tools-dir, check arguments and resolve addresses",
  e2e,
  async () => {
    const dir = await toolsDir({
      "echo.js": ECHO,
      "global.mjs": HIDDEN_GLOBAL,
      "errors.js": ERRORS,
      "notes.txt": "not a tool",
      ...BROKEN,
    });
    const h = await startRemcp({ args: ["--tools-dir", dir] });
    try {
      // Broken files are reported and skipped; good ones load.
      const listed = await ok(h.client, "list_script_tools");
      const tools = listed.tools as { name: string; listed: boolean; scope: string }[];
      assert.deepEqual(tools.map((t) => t.name).sort(), ["t_echo", "t_errors", "t_global"]);
      const problems = listed.problems as { file: string; error: string }[];
      const why = (f: string) => problems.find((p) => p.file.endsWith(f))?.error ?? "";
      assert.equal(problems.length, Object.keys(BROKEN).length);
      assert.match(why("syntax.js"), /SyntaxError/);
      assert.match(why("pattern.js"), /input\.properties\.s\.pattern/);
      assert.match(why("shadow.js"), /built-in worker tool/);
      assert.match(why("norun.js"), /run\(args, ctx\) must be a function/);
      assert.match(why("import.js"), /imports/);
      assert.match(why("loop.js"), /CPU time|wall-clock/);

      // Pinned tools are listed; the others are found by search_tools and get_schema.
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("t_echo"));
      assert.ok(!names.includes("t_global"));
      const found = await ok(h.client, "search_tools", { pattern: "^t_global$" });
      assert.deepEqual((found.items as { name: string }[]).map((i) => i.name), ["t_global"]);
      const schema = await ok(h.client, "get_schema", { names: ["t_echo"] });
      const item = (schema.items as Record<string, unknown>[])[0]!;
      assert.match(
        String(item.typescript),
        /invoke\("t_echo", args: \{text: string, count\?: number \| null, mode\?: "a" \| "b", where\?: string \| number, many\?: \(string \| number\)\[\], database\?: string\}\)/,
      );
      assert.deepEqual(item.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });

      // Scope database with no database open: refused before the script runs.
      assert.equal((await fails(h.client, "t_echo", { text: "x" })).error_type, "NoDatabase");
      // Scope global runs without one; arrays come back wrapped.
      assert.deepEqual((await ok(h.client, "t_global", { n: 2 })).items, [2, null]);

      const db = await openFixture(h, "elf_x86_64_gcc_O2");
      const bad = async (args: Record<string, unknown>, re: RegExp) => {
        const e = await fails(h.client, "t_echo", args);
        assert.equal(e.error_type, "InvalidArgument", JSON.stringify(e));
        assert.match(e.error, re);
      };
      await bad({}, /missing the required parameter "text"/);
      await bad({ text: 5 }, /parameter "text" is invalid/);
      await bad({ text: "x", count: 11 }, /parameter "count" is invalid/);
      await bad({ text: "x", mode: "c" }, /parameter "mode" is invalid/);
      await bad({ text: "x", extra: 1 }, /has no parameter "extra"; it accepts: text, count/);

      const main = await ok(h.client, "resolve_address", { address: "main+4" });
      const r = await ok(h.client, "t_echo", {
        text: "hi",
        count: null,
        where: "main+4",
        many: ["main", 4096],
      });
      assert.deepEqual(r.args, {
        text: "hi",
        where: main.address,
        many: [(await ok(h.client, "resolve_address", { address: "main" })).address, "0x1000"],
      });
      assert.equal(r.database, db);
      assert.deepEqual(r.warnings, [{ code: "echo", message: "echoed 3 arguments" }]);
      // An `onprogress` makes the client ask for progress; the notes are read from the harness's
      // record, which the SDK cannot drop (see Harness.progress), and arrive before the result.
      const before = h.progress.length;
      await h.client.callTool({ name: "t_echo", arguments: { text: "p" } }, {
        onprogress: () => {},
      });
      assert.deepEqual(h.progress.slice(before).map((p) => p.message), ["done"]);
      const unresolved = await fails(h.client, "t_echo", { text: "x", where: "no_such_name" });
      assert.equal(unresolved.error_type, "InvalidAddress");
      assert.equal(unresolved.detail.param, "where");

      // Typed errors keep their type; anything else is SandboxError.
      const typed = await fails(h.client, "t_errors", { how: "typed" });
      assert.deepEqual(typed, {
        error: "No such widget: try another",
        error_type: "NotFound",
        detail: { widget: 7 },
      });
      const bogus = await fails(h.client, "t_errors", { how: "bogus" });
      assert.equal(bogus.error_type, "SandboxError");
      assert.match(bogus.error, /"Bogus", which is not an error type/);
      const plain = await fails(h.client, "t_errors", { how: "plain" });
      assert.equal(plain.error_type, "SandboxError");
      assert.match(plain.error, /RangeError: plain failure/);
      assert.equal((await fails(h.client, "t_errors", { how: "invoke" })).error_type, "NoDatabase");
      const shape = await fails(h.client, "t_errors", { how: "shape" });
      assert.equal(shape.error_type, "SandboxError");
      assert.match(shape.error, /does not match its output schema: ok/);

      // Reachable through call and execute, which fills in its database.
      const viaCall = await ok(h.client, "call", { name: "t_echo", arguments: { text: "c" } });
      assert.equal(viaCall.database, db);
      const viaExecute = await ok(h.client, "execute", {
        database: db,
        code: `(await invoke("t_echo", { text: "e" })).database`,
      });
      assert.equal(viaExecute.result, db);
    } finally {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "define_tool and delete_tool change the listing, notify the client and persist",
  e2e,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "remcp-tools-" });
    const h = await startRemcp({ env: { REMCP_TOOLS_DIR: dir } });
    let changes = 0;
    let changed = Promise.withResolvers<void>();
    h.client.setNotificationHandler("notifications/tools/list_changed", () => {
      changes++;
      changed.resolve();
    });
    const nextChange = async () => {
      await changed.promise;
      changed = Promise.withResolvers<void>();
    };
    try {
      const code = toolFile({
        name: "acme_double",
        description: "Double a number.",
        input: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
        scope: "global",
        pinned: true,
      }, "run({ x }) { return { y: 2 * x }; }");
      const defined = await ok(h.client, "define_tool", { code });
      assert.deepEqual(defined, { name: "acme_double", replaced: false, listed: true });
      await nextChange();
      assert.ok((await h.client.listTools()).tools.some((t) => t.name === "acme_double"));
      assert.deepEqual(await ok(h.client, "acme_double", { x: 21 }), { y: 42 });

      // Redefining replaces; persist writes the file that a later start loads.
      const again = await ok(h.client, "define_tool", {
        code: code.replace("2 * x", "x + x + 1"),
        persist: true,
      });
      assert.equal(again.replaced, true);
      assert.equal(again.file, join(dir, "acme_double.js"));
      await nextChange();
      assert.deepEqual(await ok(h.client, "acme_double", { x: 1 }), { y: 3 });
      assert.match(await Deno.readTextFile(join(dir, "acme_double.js")), /x \+ x \+ 1/);

      // Built-in names are refused; so are broken files, with the sandbox's message.
      const shadow = await fails(h.client, "define_tool", {
        code: code.replace("acme_double", "execute"),
      });
      assert.equal(shadow.error_type, "InvalidArgument");
      assert.match(shadow.error, /built-in meta tool/);
      const broken = await fails(h.client, "define_tool", { code: "export default {\n" });
      assert.match(broken.error, /SyntaxError/);
      const internal = await fails(h.client, "define_tool", {
        code: code.replace("acme_double", "_sneaky"),
      });
      assert.match(internal.error, /name/);

      // A script tool cannot call another script tool (nested sandboxes).
      const nest = toolFile({
        name: "acme_nest",
        description: "Calls acme_double.",
        input: { type: "object" },
        scope: "global",
      }, 'async run() { return await invoke("acme_double", { x: 1 }); }');
      await ok(h.client, "define_tool", { code: nest });
      await nextChange();
      const nested = await fails(h.client, "call", { name: "acme_nest" });
      assert.match(
        nested.error,
        /acme_double is a script tool and cannot be called through script/,
      );

      const deleted = await ok(h.client, "delete_tool", { name: "acme_double", persist: true });
      assert.deepEqual(deleted, {
        name: "acme_double",
        deleted: true,
        file: join(dir, "acme_double.js"),
      });
      await nextChange();
      assert.ok(!(await h.client.listTools()).tools.some((t) => t.name === "acme_double"));
      await assert.rejects(() => h.client.callTool({ name: "acme_double", arguments: { x: 1 } }));
      await assert.rejects(() => Deno.stat(join(dir, "acme_double.js")));
      assert.equal(
        (await fails(h.client, "delete_tool", { name: "acme_double" })).error_type,
        "NotFound",
      );
      assert.equal(
        (await fails(h.client, "delete_tool", { name: "execute" })).error_type,
        "InvalidArgument",
      );
      assert.ok(changes >= 4);
    } finally {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("hostile script tools are contained like execute", e2e, async () => {
  const h = await startRemcp();
  try {
    const hostile = (name: string, run: string, timeout_s?: number) =>
      ok(h.client, "define_tool", {
        code: toolFile({
          name,
          description: "Hostile.",
          input: { type: "object" },
          scope: "global",
          ...(timeout_s ? { timeout_s } : {}),
        }, run),
      });
    await hostile("evil_loop", "run() { for (;;) {} }", 1);
    await hostile(
      "evil_memory",
      "run() { const a = []; for (;;) a.push(new Array(1e5).fill(7)); }",
    );
    await hostile("evil_wait", "async run() { await new Promise(() => {}); }");
    const loop = await fails(h.client, "evil_loop");
    assert.equal(loop.error_type, "SandboxTimeout");
    assert.match(loop.error, /\b1000 ms\b/, "the per-tool timeout_s applies");
    assert.equal((await fails(h.client, "evil_memory")).error_type, "SandboxMemory");
    assert.equal((await fails(h.client, "evil_wait")).error_type, "SandboxError");
    // The supervisor still serves.
    assert.deepEqual((await ok(h.client, "execute", { code: "1 + 1" })).result, 2);
    const tooLong = await fails(h.client, "define_tool", {
      code: toolFile({
        name: "slow",
        description: "x",
        input: { type: "object" },
        timeout_s: 601,
      }, "run() {}"),
    });
    assert.match(tooLong.error, /timeout_s/);
  } finally {
    await h.close();
  }
});

Deno.test("the shipped examples work on fixtures", e2e, async () => {
  const h = await startRemcp({ args: ["--tools-dir", repoPath("examples/tools")] });
  try {
    const listed = await ok(h.client, "list_script_tools");
    assert.deepEqual(listed.problems, []);
    assert.deepEqual(
      (listed.tools as { name: string }[]).map((t) => t.name).sort(),
      ["find_crypto_constants", "rename_from_strings"],
    );

    // A raw x86-64 blob: sub_1010 loads a CRC-32 table with lea and uses the polynomial.
    const crc = await ok(h.client, "open_data", {
      name: "crc32.bin",
      hex: crcBlob(),
      options: { arch: "x86_64", base: 0x1000 },
    });
    await ok(h.client, "wait_for_analysis", { database: crc.database });
    const found = await ok(h.client, "find_crypto_constants", { database: crc.database });
    const findings = found.findings as { algorithm: string; kind: string; address: string }[];
    const crcFinds = findings.filter((f) => f.algorithm === "CRC-32");
    assert.deepEqual(crcFinds.map((f) => [f.kind, f.address]).sort(), [
      ["immediate", "0x1010"],
      ["table", "0x1100"],
    ]);
    assert.ok(findings.some((f) => f.algorithm === "AES" && f.address === "0x1500"));
    assert.deepEqual(found.functions, [{
      name: "sub_1010",
      start: "0x1010",
      algorithms: ["CRC-32"],
    }]);

    // gzip's layout: the CRC-32 table as 64-bit entries, read by remcp_crc.
    const cet = await openFixture(h, "elf_x86_64_cet");
    const wide = await ok(h.client, "find_crypto_constants", {
      database: cet,
      algorithms: ["crc"],
    });
    const tables = (wide.findings as { kind: string; constant: string; functions: string[] }[])
      .filter((f) => f.kind === "table");
    assert.deepEqual(tables.map((f) => [f.constant, f.functions]), [
      ["table of 64-bit entries (poly 0xEDB88320), little-endian", ["remcp_crc"]],
    ]);

    // Names from strings on a stripped binary: suggestions first, then applied.
    const db = await openFixture(h, "elf_x86_64_gcc_O2_stripped");
    const suggested = await ok(h.client, "rename_from_strings", { database: db });
    const s = suggested.suggestions as { old_name: string; new_name: string; address: string }[];
    const hello = s.find((x) => x.new_name === "hello_remcp");
    assert.ok(hello, JSON.stringify(s));
    assert.equal(suggested.applied, 0);
    const before = await ok(h.client, "get_function", { database: db, address: hello.address });
    assert.equal(before.name, hello.old_name);
    const badFilter = await fails(h.client, "rename_from_strings", { database: db, filter: "(" });
    assert.equal(badFilter.error_type, "InvalidArgument");
    assert.equal(badFilter.detail.param, "filter");
    const applied = await ok(h.client, "rename_from_strings", { database: db, apply: true });
    assert.equal(applied.applied, s.length);
    const after = await ok(h.client, "get_function", { database: db, address: hello.address });
    assert.equal(after.name, "hello_remcp");
  } finally {
    await h.close();
  }
});

/**
 * 0x1000: call 0x1010; ret — 0x1010: mov eax, 0xedb88320; lea rdx, [rip+table]; ret —
 * 0x1100: the CRC-32 table — 0x1500: the first row of the AES S-box.
 */
function crcBlob(): string {
  const bytes = new Uint8Array(0x510).fill(0xcc);
  const view = new DataView(bytes.buffer);
  bytes.set([0xe8, 0x0b, 0, 0, 0, 0xc3], 0);
  bytes.set([0xb8, 0x20, 0x83, 0xb8, 0xed, 0x48, 0x8d, 0x15], 0x10);
  view.setInt32(0x18, 0x1100 - 0x101c, true);
  bytes[0x1c] = 0xc3;
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    view.setUint32(0x100 + 4 * i, c >>> 0, true);
  }
  bytes.set([0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b], 0x500);
  bytes.set([0xfe, 0xd7, 0xab, 0x76], 0x50c);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("a tools folder of 50 files loads every one of them", e2e, async () => {
  // All files evaluate at once on a pool of a few sandbox processes: starting them and waiting
  // for a free one must not count against any file's limit.
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) {
    files[`t${i}.js`] = toolFile(
      {
        name: `t_many_${i}`,
        description: `Tool ${i}.`,
        input: { type: "object" },
        scope: "global",
      },
      `run() { return { n: ${i} }; }`,
    );
  }
  const dir = await toolsDir(files);
  const h = await startRemcp({ args: ["--tools-dir", dir] });
  try {
    const listed = await ok(h.client, "list_script_tools");
    assert.deepEqual(listed.problems, []);
    assert.equal((listed.tools as unknown[]).length, 50);
    assert.deepEqual(await ok(h.client, "call", { name: "t_many_49", arguments: {} }), { n: 49 });
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});
