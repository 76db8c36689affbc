/**
 * End-to-end: the embedded backend's format and data tools against fixture binaries, compared
 * with ground truth recorded from readelf/objdump/llvm tools at build time.
 */
import assert from "node:assert/strict";
import { fails, fixture, type Harness, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

async function truth(name: string) {
  return JSON.parse(await Deno.readTextFile(fixture(`${name}.truth.json`)));
}

async function open(h: Harness, path: string, options?: Record<string, unknown>) {
  const o = await ok(h.client, "open_database", { path, ...(options ? { options } : {}) });
  await ok(h.client, "wait_for_analysis", { database: o.database });
  return String(o.database);
}

Deno.test("ELF info, sections and imports match readelf", e2e, async () => {
  const h = await startRemcp();
  try {
    const t = await truth("elf_x86_64_gcc_O2");
    const db = await open(h, fixture("elf_x86_64_gcc_O2"));
    const info = await ok(h.client, "get_database_info", { database: db });
    assert.equal(info.format, "elf");
    assert.equal(info.arch, "x86_64");
    assert.equal(info.bits, 64);
    assert.equal(info.entry, t.entry);
    assert.equal(info.sha256, t.sha256);
    const secs = await ok(h.client, "call", {
      name: "list_sections",
      arguments: { database: db, limit: 1000 },
    });
    const byName = new Map(
      (secs.items as { name: string; start: string }[]).map((s) => [s.name, s]),
    );
    for (const s of t.sections as { name: string; addr: string; flags: string }[]) {
      if (!s.flags.includes("A")) continue;
      assert.equal(byName.get(s.name)?.start, s.addr, `section ${s.name}`);
    }
    const imports = await ok(h.client, "list_imports", { database: db, limit: 1000 });
    const plt = new Map(
      (imports.items as { name: string; address: string }[]).map((i) => [i.name, i.address]),
    );
    for (const p of t.plt as { name: string; address: string }[]) {
      assert.equal(plt.get(p.name), p.address, `PLT stub of ${p.name}`);
    }
  } finally {
    await h.close();
  }
});

Deno.test("names resolve as addresses; reads and searches work on them", e2e, async () => {
  const h = await startRemcp();
  try {
    const t = await truth("elf_x86_64_gcc_O2");
    const db = await open(h, fixture("elf_x86_64_gcc_O2"));
    const fact = (t.functions as { name: string; address: string }[]).find((f) =>
      f.name === "remcp_fact"
    )!;
    const r = await ok(h.client, "call", {
      name: "resolve_address",
      arguments: { database: db, address: "remcp_fact+0x4" },
    });
    assert.equal(r.address, "0x" + (Number(fact.address) + 4).toString(16));
    assert.equal(r.symbol, "remcp_fact");
    assert.equal(r.symbol_offset, 4);
    assert.equal(r.section, ".text");
    const bytes = await ok(h.client, "call", {
      name: "read_bytes",
      arguments: { database: db, address: "remcp_fact", size: 4 },
    });
    assert.equal(String(bytes.hex).length, 8);
    const hit = await ok(h.client, "call", {
      name: "search_text",
      arguments: { database: db, text: "hello, REMCP" },
    });
    const items = hit.items as { address: string; encoding: string }[];
    assert.ok(items.some((i) => i.encoding === "ascii"), "case-insensitive ASCII hit");
    const str = await ok(h.client, "call", {
      name: "read_data",
      arguments: { database: db, address: items[0]!.address, type: "cstring" },
    });
    assert.match(String((str.values as string[])[0]), /^Hello, remcp!/);
    const wide = await ok(h.client, "call", {
      name: "search_text",
      arguments: { database: db, text: "wide string here", case_sensitive: true },
    });
    assert.ok((wide.items as { encoding: string }[]).some((i) => i.encoding === "utf16"));
    const pat = await ok(h.client, "call", {
      name: "search_bytes",
      arguments: { database: db, pattern: "48 65 6c 6c 6f ?? 20 72" },
    });
    assert.equal(pat.total, 1);
    const bad = await fails(h.client, "call", {
      name: "read_bytes",
      arguments: { database: db, address: "0x7fffffff0000", size: 4 },
    });
    assert.equal(bad.error_type, "InvalidAddress");
    assert.match(bad.error, /not mapped/);
    const badName = await fails(h.client, "call", {
      name: "read_bytes",
      arguments: { database: db, address: "remcp_fcat", size: 4 },
    });
    assert.equal(badName.error_type, "InvalidAddress");
  } finally {
    await h.close();
  }
});

Deno.test("PE exports with ordinals and forwarders; Mach-O fat needs a slice", e2e, async () => {
  const h = await startRemcp();
  try {
    const dll = await open(h, fixture("remcp_dll.dll"));
    const ex = await ok(h.client, "call", { name: "list_exports", arguments: { database: dll } });
    const items = ex.items as { name: string; ordinal?: number; forwarder?: string }[];
    assert.ok(items.some((e) => e.name === "remcp_dll_add" && e.ordinal === 1));
    assert.ok(items.some((e) => e.forwarder === "KERNEL32.Beep"));
    const user = await open(h, fixture("pe_x86_64_dlluser.exe"));
    const imp = await ok(h.client, "list_imports", { database: user, filter: "remcp_dll" });
    assert.ok((imp.items as { ordinal?: number }[]).some((i) => i.ordinal === 2));

    const fat = await fails(h.client, "open_database", { path: fixture("macho_fat") });
    assert.equal(fat.error_type, "AmbiguousFatBinary");
    assert.match(fat.error, /arch/);
    const slice = await open(h, fixture("macho_fat"), { arch: "arm64" });
    const info = await ok(h.client, "get_database_info", { database: slice });
    assert.equal(info.arch, "aarch64");
    assert.equal(info.format, "macho");
    // The other slice of the same file is a different database.
    const other = await open(h, fixture("macho_fat"), { arch: "x86_64" });
    assert.notEqual(other, slice);
  } finally {
    await h.close();
  }
});

Deno.test("raw blobs open with arch and base; junk files fail with OpenFailed", e2e, async () => {
  const h = await startRemcp();
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-info-" });
  try {
    const db = await open(h, fixture("raw_x86_64.bin"), { arch: "x86_64", base: "0x10c0" });
    const info = await ok(h.client, "get_database_info", { database: db });
    assert.equal(info.format, "raw");
    assert.equal(info.image_base, "0x10c0");
    const junk = `${dir}/junk`;
    await Deno.writeFile(junk, new TextEncoder().encode("just some text, not a binary\n"));
    const e = await fails(h.client, "open_database", { path: junk });
    assert.equal(e.error_type, "OpenFailed");
    assert.match(e.error, /arch/);
    const truncated = `${dir}/truncated`;
    await Deno.writeFile(
      truncated,
      (await Deno.readFile(fixture("elf_x86_64_gcc_O2"))).slice(0, 100),
    );
    const t = await fails(h.client, "open_database", { path: truncated });
    assert.equal(t.error_type, "OpenFailed");
    assert.equal((await ok(h.client, "list_databases")).items instanceof Array, true);
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(
  "a 500-item page cut by the output cap stays valid JSON with next_offset",
  e2e,
  async () => {
    const h = await startRemcp({ env: { REMCP_MAX_OUTPUT_BYTES: "8192" } });
    try {
      const path = (await Deno.stat("/usr/lib/x86_64-linux-gnu/libc.so.6").catch(() => null))
        ? "/usr/lib/x86_64-linux-gnu/libc.so.6"
        : fixture("elf_x86_64_gcc_O0");
      const db = await open(h, path);
      const r = await h.client.callTool({
        name: "call",
        arguments: { name: "list_names", arguments: { database: db, limit: 500 } },
      });
      const text = (r.content as { text: string }[])[0]!.text;
      assert.ok(new TextEncoder().encode(text).length <= 8192);
      const page = JSON.parse(text);
      assert.equal(page.truncated, true);
      assert.equal(page.next_offset, page.items.length);
      const next = await ok(h.client, "call", {
        name: "list_names",
        arguments: { database: db, offset: page.next_offset, limit: 5 },
      });
      assert.equal(next.offset, page.next_offset);
    } finally {
      await h.close();
    }
  },
);

Deno.test("get_entropy ranks packed bytes above code and zeros", e2e, async () => {
  // A raw blob: 4 KiB of zeros, then 4 KiB of random bytes.
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-info-" });
  const path = `${dir}/blob.bin`;
  const bytes = new Uint8Array(8192);
  crypto.getRandomValues(bytes.subarray(4096));
  await Deno.writeFile(path, bytes);
  const h = await startRemcp();
  try {
    const db = await open(h, path, { arch: "x86_64", base: "0x0" });
    const r = await ok(h.client, "call", {
      name: "get_entropy",
      arguments: { database: db, address: "0x0", block_size: 4096 },
    });
    const blocks = r.items as { start: string; entropy: number }[];
    assert.deepEqual(blocks.map((b) => b.start), ["0x0", "0x1000"]);
    assert.equal(blocks[0]!.entropy, 0);
    assert.ok(blocks[1]!.entropy > 7.9, `random block entropy ${blocks[1]!.entropy}`);
    const whole = await ok(h.client, "call", {
      name: "get_entropy",
      arguments: { database: await open(h, fixture("elf_x86_64_gcc_O2")) },
    });
    const text = (whole.items as { name: string; entropy: number }[]).find((s) =>
      s.name === ".text"
    );
    assert.ok(text && text.entropy > 4 && text.entropy < 7, `.text entropy ${text?.entropy}`);
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});
