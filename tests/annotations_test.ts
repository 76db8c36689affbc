/** End-to-end: annotations persist, show everywhere, undo, export and import. */
import assert from "node:assert/strict";
import { fails, fixture, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ELF = fixture("elf_x86_64_gcc_O0");

Deno.test(
  "rename persists across close/reopen, shows in disassembly, undo restores",
  e2e,
  async () => {
    const stateDir = await Deno.makeTempDir({ prefix: "remcp-test-annotations-" });
    const h = await startRemcp({ stateDir });
    try {
      let o = await ok(h.client, "open_database", { path: ELF });
      await ok(h.client, "wait_for_analysis", {});
      const r = await ok(h.client, "rename", { address: "remcp_fact", name: "factorial" });
      assert.equal(r.old_name, "remcp_fact");
      assert.equal(r.new_name, "factorial");
      const dup = await fails(h.client, "rename", { address: "remcp_fib", name: "factorial" });
      assert.equal(dup.error_type, "InvalidArgument");
      const bad = await fails(h.client, "rename", { address: "remcp_fib", name: "has space" });
      assert.equal(bad.error_type, "InvalidArgument");
      const c = await ok(h.client, "set_comment", { address: "factorial", comment: "n!" });
      assert.equal(c.old_comment, null);
      await ok(h.client, "close_database", { database: o.database });

      o = await ok(h.client, "open_database", { path: ELF });
      await ok(h.client, "wait_for_analysis", {});
      const dis = await ok(h.client, "disassemble", { address: "main", count: 200 });
      const targets = (dis.items as { target_name?: string }[]).map((x) => x.target_name);
      assert.ok(targets.includes("factorial"), "renamed callee shows in main's disassembly");
      const at = await ok(h.client, "disassemble", { address: "factorial", count: 1 });
      assert.equal((at.items as { comment?: string }[])[0]!.comment, "n!");

      const u = await ok(h.client, "undo");
      assert.equal((u.undone as { kind: string }).kind, "comment");
      const u2 = await ok(h.client, "undo");
      // The journal records the user annotation: there was none before the rename.
      assert.equal((u2.undone as { old: string | null }).old, null);
      assert.equal((u2.undone as { new: string }).new, "factorial");
      const back = await ok(h.client, "call", {
        name: "resolve_address",
        arguments: { address: "remcp_fact" },
      });
      assert.ok(back.address);
      const redo = await ok(h.client, "redo");
      assert.equal((redo.redone as { new: string }).new, "factorial");
      const changes = await ok(h.client, "call", { name: "list_changes", arguments: {} });
      assert.equal(changes.total, 2);
    } finally {
      await h.close();
      await Deno.remove(stateDir, { recursive: true });
    }
  },
);

Deno.test("export_annotations round-trips through import_annotations", e2e, async () => {
  const a = await startRemcp();
  const b = await startRemcp();
  try {
    await ok(a.client, "open_database", { path: ELF });
    await ok(a.client, "wait_for_analysis", {});
    await ok(a.client, "rename", { address: "remcp_fib", name: "fibonacci" });
    await ok(a.client, "set_comment", { address: "main", comment: "entry of the demo" });
    await ok(a.client, "call", {
      name: "add_bookmark",
      arguments: { address: "remcp_switch", note: "jump table" },
    });
    await ok(a.client, "call", {
      name: "set_function_prototype",
      arguments: { address: "remcp_fact", prototype: "long remcp_fact(int n)" },
    });
    const ex = await ok(a.client, "call", { name: "export_annotations", arguments: {} });
    assert.equal(ex.count, 4);
    const rz = await ok(a.client, "call", {
      name: "export_annotations",
      arguments: { format: "rizin" },
    });
    assert.match(String(rz.document), /^afn "?fibonacci"? @ 0x/m);
    assert.match(String(rz.document), /^CCu base64:/m);

    await ok(b.client, "open_database", { path: ELF });
    await ok(b.client, "wait_for_analysis", {});
    const imp = await ok(b.client, "call", {
      name: "import_annotations",
      arguments: { document: ex.document },
    });
    assert.equal(imp.applied, 4);
    const again = await ok(b.client, "call", { name: "export_annotations", arguments: {} });
    // The annotations round-trip; each side keeps its own journal of how it got there.
    const strip = (d: unknown) => {
      const { journal, ...rest } = JSON.parse(String(d));
      assert.ok(Array.isArray(journal) && journal.length === 4, "the journal is exported");
      return rest;
    };
    assert.deepEqual(strip(again.document), strip(ex.document));
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("a worker killed after annotating keeps the annotations", e2e, async () => {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-test-annotations-" });
  const h = await startRemcp({ stateDir });
  try {
    await ok(h.client, "open_database", { path: ELF });
    await ok(h.client, "wait_for_analysis", {});
    for (let i = 0; i < 20; i++) {
      await ok(h.client, "set_comment", { address: `main+${i}`, comment: `note ${i}` });
    }
    const list = await ok(h.client, "list_databases");
    Deno.kill((list.items as { pid: number }[])[0]!.pid, "SIGKILL");
    // Reopen once the supervisor has seen the death (else it hands back the dying database).
    while (
      !((await ok(h.client, "list_databases")).items as { state: string }[]).some((d) =>
        d.state === "crashed"
      )
    ) await new Promise((r) => setTimeout(r, 50));
    const o = await ok(h.client, "open_database", { path: ELF });
    await ok(h.client, "wait_for_analysis", { database: o.database });
    const comments = await ok(h.client, "call", {
      name: "list_comments",
      arguments: { database: o.database },
    });
    assert.equal(comments.total, 20);
  } finally {
    await h.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});
