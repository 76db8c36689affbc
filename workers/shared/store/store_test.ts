import assert from "node:assert/strict";
import { AnnotationStore } from "./store.ts";

async function withStore(f: (s: AnnotationStore, path: string) => void | Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "remcp-store-test-" });
  const path = `${dir}/db.sqlite`;
  const s = AnnotationStore.open(path);
  try {
    await f(s, path);
  } finally {
    s.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("AnnotationStore.set() returns the old value and persists across reopen", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-store-test-" });
  const path = `${dir}/db.sqlite`;
  const s = AnnotationStore.open(path);
  assert.equal(s.set("name", 0x1000, "parse").old, null);
  assert.equal(s.set("name", 0x1000, "parse_header").old, "parse");
  s.close();
  const again = AnnotationStore.open(path);
  assert.equal(again.get("name", 0x1000), "parse_header");
  assert.deepEqual(again.all("name"), [[0x1000, "parse_header"]]);
  again.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("AnnotationStore.undo() and redo() walk the journal; a new change drops redo", () =>
  withStore((s) => {
    s.set("comment", 0x10, "a");
    s.set("comment", 0x10, "b");
    assert.equal(s.undo()?.new, "b");
    assert.equal(s.get("comment", 0x10), "a");
    assert.equal(s.redo()?.new, "b");
    assert.equal(s.get("comment", 0x10), "b");
    s.undo();
    s.undo();
    assert.equal(s.get("comment", 0x10), undefined);
    assert.equal(s.undo(), null);
    s.set("comment", 0x10, "c");
    assert.equal(s.redo(), null);
    const { items, total } = s.changes(0, 10);
    assert.equal(total, 1);
    assert.equal(items[0]!.new, "c");
  }));

Deno.test("AnnotationStore.get() after reads agrees with every later write, undo and redo", () =>
  withStore((s) => {
    s.set("prototype", 0x20, "int f(void)");
    assert.equal(s.get("prototype", 0x20), "int f(void)");
    assert.equal(s.get("prototype", 0x30), undefined);
    s.set("prototype", 0x30, "void g(int)");
    assert.equal(s.get("prototype", 0x30), "void g(int)");
    s.undo();
    assert.equal(s.get("prototype", 0x30), undefined);
    s.redo();
    assert.equal(s.get("prototype", 0x30), "void g(int)");
    s.set("prototype", 0x20, null);
    assert.equal(s.get("prototype", 0x20), undefined);
  }));

Deno.test("AnnotationStore caches blobs", () =>
  withStore((s) => {
    s.saveCache("analysis:1", new Uint8Array([1, 2, 3]));
    assert.deepEqual(s.loadCache("analysis:1"), new Uint8Array([1, 2, 3]));
    assert.equal(s.loadCache("nope"), undefined);
    s.saveCache("analysis:0", new Uint8Array([4]));
    s.saveCache("other:0", new Uint8Array([5]));
    s.dropCache("analysis:", "analysis:1");
    assert.equal(s.loadCache("analysis:0"), undefined, "an older format is dropped");
    assert.deepEqual(s.loadCache("analysis:1"), new Uint8Array([1, 2, 3]));
    assert.deepEqual(s.loadCache("other:0"), new Uint8Array([5]));
  }));
