/**
 * End-to-end: a worker's memory budget, the embedded file-size limit, reading only what the engine
 * keeps, and --root.
 */
import assert from "node:assert/strict";
import { analysed, callTool, fails, fixture, ok, startRemcp } from "./_harness.ts";
import {
  withBigLoadSegment,
  withBigPeSection,
  withBigSection,
} from "../workers/embedded/formats/_testing.ts";

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

/** Runs `f` against a server started with `options` and a scratch folder; both go afterwards. */
async function withServer(
  options: Parameters<typeof startRemcp>[0],
  f: (h: Awaited<ReturnType<typeof startRemcp>>, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-limits-" });
  const h = await startRemcp(options);
  try {
    await f(h, dir);
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a file over REMCP_MAX_FILE_MB is OpenFailed naming the limit", e2e, async () => {
  await withServer({ env: { REMCP_MAX_FILE_MB: "1" } }, async (h, dir) => {
    const path = await sparseFile(dir, 2);
    const e = await fails(h.client, "open_database", { path, options: RAW });
    assert.equal(e.error_type, "OpenFailed");
    assert.match(e.error, /over the 1 MiB limit .*REMCP_MAX_FILE_MB/);
    assert.equal(e.detail.max_file_mb, 1);
  });
});

Deno.test(
  "a file holding over REMCP_MAX_HELD_MB is OpenFailed naming it; a raw blob is not held",
  e2e,
  async () => {
    await withServer({ env: { REMCP_MAX_HELD_MB: "1" } }, async (h, dir) => {
      const path = `${dir}/big_segment.elf`;
      withBigLoadSegment(await Deno.readFile(fixture("elf_x86_64_gcc_O2")), path, 2);
      const e = await fails(h.client, "open_database", { path });
      assert.equal(e.error_type, "OpenFailed");
      assert.match(e.error, /over the 1 MiB limit .*REMCP_MAX_HELD_MB/);
      assert.equal(e.detail.max_held_mb, 1);
      await ok(h.client, "open_database", { path: await sparseFile(dir, 2), options: RAW });
    });
  },
);

Deno.test("a worker over REMCP_WORKER_MEMORY_MB is ended and the error says so", e2e, async () => {
  if (Deno.build.os !== "linux" && Deno.build.os !== "darwin") return;
  await withServer(
    { env: { REMCP_WORKER_MEMORY_MB: "300", REMCP_MAX_FILE_MB: "0" } },
    async (h, dir) => {
      // A loaded segment is held: one grown by 600 MiB takes the worker well past 300 MiB.
      const path = `${dir}/big_segment.elf`;
      withBigLoadSegment(await Deno.readFile(fixture("elf_x86_64_gcc_O2")), path, 600);
      // The worker holds the segment from its load on: the open fails, or (when the load beat the
      // next memory sample) the calls after it do.
      let r = await callTool(h.client, "open_database", { path });
      const database = r.sc.database;
      const deadline = Date.now() + 120_000;
      const pending = () => !r.isError || ["Busy", "Timeout"].includes(String(r.sc.error_type));
      while (database !== undefined && pending() && Date.now() < deadline) {
        r = await callTool(h.client, "wait_for_analysis", { database, timeout: 5 });
      }
      const e = r.sc as { error_type?: string; error?: string; detail?: Record<string, unknown> };
      assert.equal(e.error_type, "WorkerCrashed");
      assert.match(String(e.error), /over its memory budget of 300 MiB \(REMCP_WORKER_MEMORY_MB\)/);
      assert.equal(e.detail?.budget_mb, 300);
    },
  );
});

/** The peak resident MiB of the worker holding `database`. */
async function workerPeakMib(client: Parameters<typeof ok>[0], database: unknown): Promise<number> {
  const list = await ok(client, "list_databases");
  const db = (list.items as { database: string; pid?: number }[])
    .find((d) => d.database === database);
  assert.ok(db?.pid, "the worker has a pid");
  const status = await Deno.readTextFile(`/proc/${db.pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

Deno.test(
  "a worker opens a file with 512 MiB of debug section within a 300 MiB budget",
  e2e,
  async () => {
    if (Deno.build.os !== "linux") return; // reads the worker's peak from /proc
    await withServer(
      { env: { REMCP_WORKER_MEMORY_MB: "300", REMCP_MAX_FILE_MB: "0" } },
      async (h, dir) => {
        // Read whole, each file alone would take the worker past its budget; only the fixture's
        // own bytes are needed. mingw's debug sections are mapped in the image (they have
        // addresses), so they are read when asked, and only then.
        const elf = `${dir}/debug.elf`;
        withBigSection(await Deno.readFile(fixture("elf_x86_64_gcc_O2")), elf, 512);
        const pe = `${dir}/debug.exe`;
        withBigPeSection(await Deno.readFile(fixture("pe_x86_64_debug.exe")), pe, 512);
        for (const path of [elf, pe]) {
          const opened = await ok(h.client, "open_database", { path });
          await analysed(h.client, opened.database);
          const info = await ok(h.client, "get_database_info", { database: opened.database });
          assert.ok(Number(info.size) > 512 * 1024 * 1024);
          const peakMib = await workerPeakMib(h.client, opened.database);
          assert.ok(peakMib < 256, `the worker of ${path} peaked at ${peakMib.toFixed(0)} MiB`);
          await ok(h.client, "close_database", { database: opened.database });
        }
      },
    );
  },
);

Deno.test(
  "a worker opens and analyses a 256 MiB raw blob within a 300 MiB budget",
  e2e,
  async () => {
    if (Deno.build.os !== "linux") return; // reads the worker's peak from /proc
    await withServer(
      { env: { REMCP_WORKER_MEMORY_MB: "300", REMCP_MAX_FILE_MB: "0" } },
      async (h, dir) => {
        // AArch64 code, 256 MiB of zeros (empty flash: `udf`, so nothing runs into it), the code
        // again. Held, the blob alone would take the worker past its budget.
        const code = await Deno.readFile(fixture("raw_aarch64.bin"));
        const path = `${dir}/flash.bin`;
        const gap = 256 * 1024 * 1024;
        {
          using f = await Deno.open(path, { write: true, create: true });
          await f.write(code);
          await f.seek(code.length + gap, Deno.SeekMode.Start);
          await f.write(code);
        }
        const options = { raw: true, arch: "aarch64", base: 0 };
        const opened = await ok(h.client, "open_database", { path, options });
        const database = opened.database;
        await analysed(h.client, database);
        const second = code.length + gap;
        const read = await ok(h.client, "call", {
          name: "read_bytes",
          arguments: { database, address: `0x${second.toString(16)}`, size: 64 },
        });
        const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0"));
        assert.equal(read.hex, hex(code.subarray(0, 64)).join(""));
        // The first 16 bytes of the code, found in both copies across the search's windows.
        const pattern = hex(code.subarray(0, 16)).join(" ");
        const found = await ok(h.client, "call", {
          name: "search_bytes",
          arguments: { database, pattern },
        });
        const addrs = (found.items as { address: string }[]).map((i) => Number(i.address));
        assert.deepEqual(addrs, [0, second]);
        const functions = await ok(h.client, "list_functions", { database, limit: 1000 });
        const starts = (functions.items as { start: string }[]).map((f) => Number(f.start));
        assert.ok(starts.some((a) => a >= second), "the gap scan reached the copy past the zeros");
        const peakMib = await workerPeakMib(h.client, database);
        assert.ok(peakMib < 256, `the worker peaked at ${peakMib.toFixed(0)} MiB`);
      },
    );
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
