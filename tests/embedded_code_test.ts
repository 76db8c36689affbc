/** End-to-end: disassembly and immediate search on several ISAs. */
import assert from "node:assert/strict";
import { fails, fixture, type Harness, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

async function open(h: Harness, name: string, options?: Record<string, unknown>) {
  const o = await ok(h.client, "open_database", {
    path: fixture(name),
    ...(options ? { options } : {}),
  });
  await ok(h.client, "wait_for_analysis", { database: o.database });
  return String(o.database);
}

type Row = { address: string; mnemonic: string; operands: string; target_name?: string };

Deno.test("disassemble shows main's calls by name on x86-64 and AArch64", e2e, async () => {
  const h = await startRemcp();
  try {
    for (const name of ["elf_x86_64_gcc_O0", "elf_aarch64_gcc_O2"]) {
      const db = await open(h, name);
      const r = await ok(h.client, "disassemble", { database: db, address: "main", count: 200 });
      const rows = r.items as Row[];
      assert.ok(rows.length > 10);
      const calls = rows.filter((x) => x.target_name).map((x) => x.target_name);
      assert.ok(calls.includes("remcp_fact"), `${name}: main calls remcp_fact (${calls})`);
      assert.ok(r.next_address);
    }
    const unmapped = await fails(h.client, "disassemble", {
      database: "elf_x86_64_gcc_O0",
      address: "0x7ffff0000000",
    });
    assert.equal(unmapped.error_type, "InvalidAddress");
  } finally {
    await h.close();
  }
});

Deno.test("disassemble decodes every supported ISA fixture", e2e, async () => {
  const h = await startRemcp();
  try {
    const names = [
      "elf_i386_gcc_O2",
      "elf_arm_gcc_O2",
      "elf_mips_gcc_O2",
      "elf_riscv64_gcc_O2",
      "elf_ppc64le_gcc_O2",
      "pe_x86_64_O2.exe",
      "macho_arm64",
    ];
    for (const name of names) {
      const db = await open(h, name);
      const info = await ok(h.client, "get_database_info", { database: db });
      const r = await ok(h.client, "disassemble", {
        database: db,
        address: String(info.entry),
        count: 10,
      });
      const rows = r.items as Row[];
      assert.equal(rows.length, 10, name);
      assert.ok(rows.every((x) => x.mnemonic.length > 0), `${name} has mnemonics`);
      assert.ok(rows.filter((x) => x.mnemonic === "db" || x.mnemonic === "(bad)").length < 3, name);
    }
  } finally {
    await h.close();
  }
});

Deno.test("search_immediate finds a magic constant in code", e2e, async () => {
  const h = await startRemcp();
  try {
    const db = await open(h, "elf_x86_64_gcc_O0");
    // remcp_switch_values returns irregular constants; find the instructions that load them.
    const dis = await ok(h.client, "disassemble", {
      database: db,
      address: "remcp_switch_values",
      count: 60,
    });
    const imm = (dis.items as Row[]).map((r) => /\b0x([0-9a-f]{3,8})\b/.exec(r.operands)?.[1])
      .find((v) => v !== undefined && !((r) => r)(undefined));
    assert.ok(imm, "found a constant to look for");
    const r = await ok(h.client, "call", {
      name: "search_immediate",
      arguments: { database: db, value: `0x${imm}` },
    });
    assert.ok((r.total as number) >= 1);
  } finally {
    await h.close();
  }
});
