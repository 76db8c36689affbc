/**
 * End-to-end: a worker's memory budget, the embedded file-size limit, reading only what the engine
 * keeps, and --root.
 */
import assert from "node:assert/strict";
import { fails, fixture, ok, startRemcp } from "./_harness.ts";
import { withBigSection } from "../workers/embedded/formats/_testing.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** A sparse file of `mib` MiB (cheap on disk, whole in memory once read). */
async function sparseFile(dir: string, mib: number): Promise<string> {
  const path = `${dir}/big_${mib}.bin`;
  const f = await Deno.open(path, { create: true, write: true });
  await f.truncate(mib * 1024 * 1024);
  f.close();
  return path;
}

const RAW = { raw: true, arch: "x86_64", base: 0 };

Deno.test("a file over REMCP_MAX_FILE_MB is OpenFailed naming the limit", e2e, async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-limits-" });
  const h = await startRemcp({ env: { REMCP_MAX_FILE_MB: "1" } });
  try {
    const path = await sparseFile(dir, 2);
    const e = await fails(h.client, "open_database", { path, options: RAW });
    assert.equal(e.error_type, "OpenFailed");
    assert.match(e.error, /over the 1 MiB limit .*REMCP_MAX_FILE_MB/);
    assert.equal(e.detail.max_file_mb, 1);
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a worker over REMCP_WORKER_MEMORY_MB is ended and the error says so", e2e, async () => {
  if (Deno.build.os !== "linux" && Deno.build.os !== "darwin") return;
  const dir = await Deno.makeTempDir({ prefix: "remcp-limits-" });
  const h = await startRemcp({ env: { REMCP_WORKER_MEMORY_MB: "300", REMCP_MAX_FILE_MB: "0" } });
  try {
    // Read whole and hashed, 600 MiB of zeros take the worker well past 300 MiB.
    const path = await sparseFile(dir, 600);
    const e = await fails(h.client, "open_database", { path, options: RAW });
    assert.equal(e.error_type, "WorkerCrashed");
    assert.match(e.error, /over its memory budget of 300 MiB \(REMCP_WORKER_MEMORY_MB\)/);
    assert.equal(e.detail.budget_mb, 300);
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(
  "a worker opens a file with 512 MiB of debug section within a 300 MiB budget",
  e2e,
  async () => {
    if (Deno.build.os !== "linux") return; // reads the worker's peak from /proc
    const dir = await Deno.makeTempDir({ prefix: "remcp-limits-" });
    const h = await startRemcp({ env: { REMCP_WORKER_MEMORY_MB: "300", REMCP_MAX_FILE_MB: "0" } });
    try {
      // Read whole, the file alone would take the worker past its budget; only the fixture's own
      // bytes are needed.
      const path = `${dir}/debug.elf`;
      withBigSection(await Deno.readFile(fixture("elf_x86_64_gcc_O2")), path, 512);
      const opened = await ok(h.client, "open_database", { path });
      await ok(h.client, "wait_for_analysis", { database: opened.database, timeout: 600 });
      const info = await ok(h.client, "get_database_info", { database: opened.database });
      assert.ok(Number(info.size) > 512 * 1024 * 1024);
      const list = await ok(h.client, "list_databases");
      const db = (list.items as { database: string; pid?: number }[])
        .find((d) => d.database === opened.database);
      assert.ok(db?.pid, "the worker has a pid");
      const status = await Deno.readTextFile(`/proc/${db.pid}/status`);
      const peakMib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
      assert.ok(peakMib < 256, `the worker peaked at ${peakMib.toFixed(0)} MiB`);
    } finally {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("--root confines open_database to one folder tree", e2e, async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "remcp-root-" }));
  const h = await startRemcp({ args: ["--root", `${dir}/inside`] });
  try {
    await Deno.mkdir(`${dir}/inside`);
    await Deno.copyFile(fixture("raw_x86_64.bin"), `${dir}/inside/ok.bin`);
    await Deno.symlink(fixture("elf_x86_64_gcc_O2"), `${dir}/inside/escape`);
    await ok(h.client, "open_database", { path: `${dir}/inside/ok.bin`, options: RAW });
    for (const path of [fixture("elf_x86_64_gcc_O2"), `${dir}/inside/escape`]) {
      const e = await fails(h.client, "open_database", { path });
      assert.equal(e.error_type, "OpenFailed");
      assert.match(e.error, /outside the folder this server may open \(--root/);
    }
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});
