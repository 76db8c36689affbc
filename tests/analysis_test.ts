/** End-to-end: the embedded analysis against fixtures with known source and ground truth. */
import assert from "node:assert/strict";
import { callTool, fixture, type Harness, ok, startRemcp } from "./_harness.ts";
import { hostilePe } from "../workers/embedded/formats/_hostile_pe.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

async function open(h: Harness, name: string) {
  const o = await ok(h.client, "open_database", { path: fixture(name) });
  await ok(h.client, "wait_for_analysis", { database: o.database });
  return String(o.database);
}

async function truth(name: string) {
  return JSON.parse(await Deno.readTextFile(fixture(`${name}.truth.json`)));
}

type Fn = { name: string; start: string; end: string };

async function allFunctions(h: Harness, db: string): Promise<Fn[]> {
  const r = await ok(h.client, "list_functions", { database: db, limit: 10000 });
  return r.items as Fn[];
}

Deno.test("every function of the source is found with the right start", e2e, async () => {
  const h = await startRemcp();
  try {
    for (const name of ["elf_x86_64_gcc_O2", "elf_x86_64_clang_O2", "elf_aarch64_gcc_O2"]) {
      const t = await truth(name);
      const db = await open(h, name);
      const found = new Map((await allFunctions(h, db)).map((f) => [f.start, f]));
      for (const f of t.functions as { name: string; address: string; size: number }[]) {
        if (f.name.includes(".cold") || f.size === 0) continue;
        const got = found.get(f.address);
        assert.ok(got, `${name}: ${f.name} at ${f.address} found`);
        assert.equal(got.name, f.name, `${name}: named ${f.name}`);
        const end = Number(got.end);
        const want = Number(f.address) + f.size;
        assert.ok(end >= want && end - want < 16, `${name}: ${f.name} ends at ${got.end}`);
      }
    }
  } finally {
    await h.close();
  }
});

Deno.test("main's callees, string users and switch cases match the source", e2e, async () => {
  const h = await startRemcp();
  try {
    const t = await truth("elf_x86_64_gcc_O2");
    const db = await open(h, "elf_x86_64_gcc_O2");
    const s = await ok(h.client, "function_summary", {
      database: db,
      address: "main",
      max_items: 50,
    });
    const callees = new Set((s.callees as { name: string }[]).map((c) => c.name));
    const want = (t.direct_calls as Record<string, string[]>).main!.filter((n) =>
      !n.endsWith("@plt")
    );
    for (const n of want) assert.ok(callees.has(n), `main calls ${n}`);
    assert.ok((s.imports as string[]).includes("printf"));

    const users = await ok(h.client, "find_code_by_string", {
      database: db,
      pattern: "^Hello, remcp!",
    });
    assert.ok(
      (users.items as { function?: string }[]).some((u) => u.function === "remcp_print_strings"),
    );

    const cfg = await ok(h.client, "call", {
      name: "get_cfg",
      arguments: { database: db, address: "remcp_switch" },
    });
    const cases = (cfg.edges as { kind: string }[]).filter((e) => e.kind === "case");
    assert.ok(cases.length >= 18, `switch has ${cases.length} case edges`);

    const graph = await ok(h.client, "call", {
      name: "get_call_graph",
      arguments: { database: db, address: "main", depth: 2 },
    });
    assert.ok((graph.nodes as { name: string }[]).some((n) => n.name === "remcp_fact"));
  } finally {
    await h.close();
  }
});

Deno.test(
  "a stripped binary yields the same function starts as its unstripped twin",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const full = await open(h, "elf_x86_64_gcc_O2");
      const stripped = await open(h, "elf_x86_64_gcc_O2_stripped");
      const a = new Set((await allFunctions(h, full)).map((f) => f.start));
      const b = new Set((await allFunctions(h, stripped)).map((f) => f.start));
      const missing = [...a].filter((x) => !b.has(x));
      assert.deepEqual(missing, [], "no function lost by stripping");
      const names = (await allFunctions(h, stripped)).map((f) => f.name);
      assert.ok(names.some((n) => n.startsWith("sub_")), "unnamed functions get sub_ names");
    } finally {
      await h.close();
    }
  },
);

Deno.test("a rename shows in summaries, xrefs and function disassembly", e2e, async () => {
  const h = await startRemcp();
  try {
    const db = await open(h, "elf_x86_64_gcc_O2_stripped");
    const t = await truth("elf_x86_64_gcc_O2");
    const fact = (t.functions as { name: string; address: string }[]).find((f) =>
      f.name === "remcp_fact"
    )!;
    await ok(h.client, "rename", { database: db, address: fact.address, name: "factorial" });
    const main = (t.functions as { name: string; address: string }[]).find((f) =>
      f.name === "main"
    )!;
    const s = await ok(h.client, "function_summary", {
      database: db,
      address: main.address,
      max_items: 50,
    });
    assert.ok((s.callees as { name: string }[]).some((c) => c.name === "factorial"));
    const x = await ok(h.client, "xrefs_to", { database: db, address: "factorial" });
    assert.ok((x.items as { to_name?: string }[]).every((i) => i.to_name === "factorial"));
    const dis = await ok(h.client, "disassemble_function", {
      database: db,
      address: main.address,
      limit: 500,
    });
    assert.ok((dis.items as { target_name?: string }[]).some((i) => i.target_name === "factorial"));
    const fns = await ok(h.client, "list_functions", { database: db, filter: "^factorial$" });
    assert.equal((fns.items as { flags: string[] }[])[0]!.flags.includes("user_named"), true);
  } finally {
    await h.close();
  }
});

Deno.test("an analysis over its time budget leaves the file usable and says why", e2e, async () => {
  const big = Deno.realPathSync("/usr/bin/python3");
  const h = await startRemcp({ env: { REMCP_ANALYSIS_TIMEOUT: "1" } });
  try {
    const o = await ok(h.client, "open_database", { path: big });
    await ok(h.client, "wait_for_analysis", { database: o.database });
    const info = await ok(h.client, "get_database_info", { database: o.database });
    assert.equal((info.analysis as { state: string }).state, "failed");
    assert.match(JSON.stringify(info.warnings), /REMCP_ANALYSIS_TIMEOUT/);
    const r = await callTool(h.client, "list_functions", { database: o.database });
    assert.equal(r.isError, true);
    assert.match(r.text, /still work/);
    const dis = await ok(h.client, "disassemble", {
      database: o.database,
      address: String(info.entry),
      count: 3,
    });
    assert.equal((dis.items as unknown[]).length, 3);
  } finally {
    await h.close();
  }
});

Deno.test("a 6 KB PE whose .text claims 4 GiB analyses to the end", e2e, async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-hostile-" });
  const h = await startRemcp();
  try {
    const path = `${dir}/huge_text.exe`;
    await Deno.writeFile(path, hostilePe(await Deno.readFile(fixture("pe_x86_64_O2.exe"))));
    const o = await ok(h.client, "open_database", { path });
    await ok(h.client, "wait_for_analysis", { database: o.database });
    const info = await ok(h.client, "get_database_info", { database: o.database });
    assert.equal((info.analysis as { state: string }).state, "ready");
    assert.match(JSON.stringify(info.details), /\.text claims 0xffffffff bytes/);
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(
  "a stripped clang ARM binary's A32 functions disassemble and decompile as A32",
  e2e,
  async () => {
    // clang builds armhf code as A32 between Thumb crt files; without mapping symbols the modes
    // are learnt by the analysis, and the tools must decode by them.
    const name = "elf_arm_modes_clang_O2_stripped";
    const t = await truth(name);
    const addr = (fn: string) =>
      (t.functions as { name: string; address: string }[]).find((f) => f.name === fn)!.address;
    const h = await startRemcp();
    try {
      const db = await open(h, name);
      const dis = await ok(h.client, "disassemble_function", {
        database: db,
        address: addr("main"),
        limit: 500,
      });
      const rows = dis.items as { bytes: string; mnemonic: string; operands: string }[];
      assert.equal(rows[0]!.mnemonic, "push");
      assert.match(rows[0]!.operands, /lr\}/);
      assert.ok(rows.every((r) => r.bytes.length === 8), "every instruction is 4 bytes");
      // The Thumb half stays Thumb.
      const thumb = await ok(h.client, "disassemble_function", {
        database: db,
        address: addr("remcp_thumb_sum"),
      });
      assert.ok((thumb.items as { bytes: string }[]).some((r) => r.bytes.length === 4));
      const c = await ok(h.client, "decompile_function", { database: db, address: addr("main") });
      const code = String(c.code);
      // The embedded decompiler does not lift 32-bit ARM: its fallback lists the A32 disassembly.
      assert.match(code, /printf/, code);
      assert.doesNotMatch(code, /\(bad\)|invalid/, code);
    } finally {
      await h.close();
    }
  },
);
