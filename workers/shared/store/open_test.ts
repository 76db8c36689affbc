import assert from "node:assert/strict";
import { RemcpError } from "../../../src/errors.ts";
import { AnnotationStore } from "./store.ts";

async function inTempDir(f: (dir: string) => void | Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "remcp-store-" });
  try {
    await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function assertWriteFailed(f: () => unknown, pattern: RegExp) {
  assert.throws(f, (err: unknown) => {
    assert.ok(err instanceof RemcpError, String(err));
    assert.equal(err.code, "WriteFailed");
    assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("AnnotationStore.set() on a full disk is WriteFailed and keeps what was saved", () =>
  inTempDir((dir) => {
    const s = AnnotationStore.open(`${dir}/db.sqlite`, { maxPageCount: 16 });
    try {
      s.set("comment", 0x10, "kept");
      assertWriteFailed(() => {
        for (let i = 0; i < 1000; i++) s.set("comment", 0x100 + i, "x".repeat(4000));
      }, /Saving the change failed: .*full.*Free space/);
      assert.equal(s.get("comment", 0x10), "kept");
      // What get() remembers agrees with the file after the failed write.
      const saved = new Map(s.all("comment"));
      for (let i = 0; i < 1000; i++) {
        assert.equal(s.get("comment", 0x100 + i), saved.get(0x100 + i));
      }
    } finally {
      s.close();
    }
  }));

Deno.test("AnnotationStore.open() moves a damaged store aside and recovers its annotations", () =>
  inTempDir((dir) => {
    const path = `${dir}/db.sqlite`;
    const s = AnnotationStore.open(path);
    s.set("name", 0x1000, "parse_header");
    s.set("comment", 0x1004, "checks the magic");
    s.saveCache("analysis:1", new Uint8Array(256 * 1024).fill(7));
    s.close();
    // Damage the cache's pages at the end of the file; the annotations sit in the first pages.
    const bytes = Deno.readFileSync(path);
    bytes.fill(0xa5, bytes.length - 64 * 1024, bytes.length - 1024);
    Deno.writeFileSync(path, bytes);

    const again = AnnotationStore.open(path);
    try {
      assert.equal(again.notices.length, 1);
      assert.match(again.notices[0]!, /was damaged .*moved to .*\.damaged-.*recovered/s);
      assert.equal(again.get("name", 0x1000), "parse_header");
      assert.equal(again.get("comment", 0x1004), "checks the magic");
      assert.equal(again.changes(0, 10).total, 2, "the journal came along");
      assert.equal(again.loadCache("analysis:1"), undefined, "the cache is rebuilt");
      again.set("name", 0x2000, "writable_again");
    } finally {
      again.close();
    }
    const aside = [...Deno.readDirSync(dir)].filter((e) => /\.damaged-/.test(e.name));
    assert.ok(aside.length >= 1, "the damaged file is kept");
  }));

Deno.test("AnnotationStore.open() of a file that is not a database says what is lost", () =>
  inTempDir((dir) => {
    const path = `${dir}/db.sqlite`;
    Deno.writeTextFileSync(path, "not a database at all ".repeat(400));
    const s = AnnotationStore.open(path);
    try {
      assert.match(s.notices.join("\n"), /damaged .*could not read .*only in .*\.damaged-/s);
      s.set("name", 1, "fresh");
    } finally {
      s.close();
    }
  }));

Deno.test("AnnotationStore.open() gives a second writer a read-only view (one writer per store)", () =>
  inTempDir((dir) => {
    const path = `${dir}/db.sqlite`;
    const first = AnnotationStore.open(path);
    first.set("name", 0x10, "from_first");
    const second = AnnotationStore.open(path);
    try {
      assert.match(second.notices.join("\n"), /another remcp process .* read-only/);
      assert.equal(second.get("name", 0x10), "from_first");
      assertWriteFailed(() => second.set("name", 0x10, "from_second"), /not saved: another/);
      assertWriteFailed(() => second.undo(), /not saved/);
      assert.equal(first.get("name", 0x10), "from_first");
    } finally {
      second.close();
      first.close();
    }
    const third = AnnotationStore.open(path);
    assert.deepEqual(third.notices, []);
    third.set("name", 0x10, "after_close");
    third.close();
  }));

Deno.test("AnnotationStore.open() without a writable state folder opens in memory, read-only", () =>
  inTempDir((dir) => {
    Deno.writeTextFileSync(`${dir}/not_a_folder`, "");
    const s = AnnotationStore.open(`${dir}/not_a_folder/db.sqlite`);
    try {
      assert.match(s.notices.join("\n"), /state folder is not writable.*read-only/);
      assert.equal(s.get("name", 1), undefined);
      assertWriteFailed(() => s.set("name", 1, "x"), /not saved/);
    } finally {
      s.close();
    }
  }));
