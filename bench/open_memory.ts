/**
 * Open memory: the peak resident memory (VmHWM) of an embedded worker that opens a large file,
 * over that of a worker that opened the small fixture it was made from, as a multiple of the
 * file's size. A backend that reads the file whole and keeps one copy costs 1×; every transient
 * copy (hashing, parsing) adds to it. The file is the fixture padded with zero bytes (the padding
 * lies outside every section, so the analysis is the fixture's). Linux only (reads /proc).
 *
 *   deno run -A bench/open_memory.ts [MiB]
 */
import { fixture, ok, startRemcp } from "../tests/_harness.ts";

const MIB = Number(Deno.args[0] ?? 256);
const FIXTURE = fixture("elf_x86_64_gcc_O2");

function peakKib(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

if (Deno.build.os !== "linux") {
  console.log("open_memory: Linux only (reads VmHWM from /proc)");
  Deno.exit(0);
}
const dir = await Deno.makeTempDir({ prefix: "remcp-open-memory-" });
const big = `${dir}/padded.elf`;
{
  const file = await Deno.open(big, { write: true, create: true });
  await file.write(await Deno.readFile(FIXTURE));
  const zeros = new Uint8Array(1024 * 1024);
  for (let i = 0; i < MIB; i++) await file.write(zeros);
  file.close();
}
const size = (await Deno.stat(big)).size;
const h = await startRemcp({
  env: { REMCP_MAX_FILE_MB: String(MIB * 4), REMCP_WORKER_MEMORY_MB: String(MIB * 8 + 1024) },
});
try {
  const peakOf = async (path: string) => {
    const opened = await ok(h.client, "open_database", { path });
    await ok(h.client, "wait_for_analysis", { database: opened.database, timeout: 600 });
    const list = await ok(h.client, "list_databases");
    const db = (list.items as { database: string; pid?: number }[])
      .find((d) => d.database === opened.database);
    if (!db?.pid) throw new Error(`no worker pid for ${path}`);
    return peakKib(db.pid);
  };
  const small = await peakOf(FIXTURE);
  const large = await peakOf(big);
  const extraMib = (large - small) / 1024;
  const fileMib = size / 1024 / 1024;
  console.log(`file                       ${fileMib.toFixed(1).padStart(8)} MiB`);
  console.log(`worker peak, small fixture ${(small / 1024).toFixed(1).padStart(8)} MiB`);
  console.log(`worker peak, large file    ${(large / 1024).toFixed(1).padStart(8)} MiB`);
  console.log(
    `extra peak / file size     ${(extraMib / fileMib).toFixed(2).padStart(8)}×  (1× = one copy)`,
  );
} finally {
  await h.close();
  await Deno.remove(dir, { recursive: true });
}
