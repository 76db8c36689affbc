/**
 * Open memory: the peak resident memory (VmHWM) of an embedded worker that opens a large file,
 * over that of a worker that opened the small fixture it was made from, as a multiple of the
 * file's size. A backend that reads files whole costs at least 1× (one copy); one that reads what
 * the engine keeps costs about 0× for a file whose size is debug information or an overlay, and a
 * raw blob or mapped debug sections, read on demand, cost about 0× too. The large files are
 * fixtures grown by a sparse hole:
 *
 * - ELF + debug section: `elf_x86_64_gcc_O2` whose last non-loaded section holds the zeros;
 * - PE + debug sections: `pe_x86_64_debug.exe` (mingw, `-g`) whose last `.debug_*` section, mapped
 *   at an address like every mingw debug section, holds the zeros;
 * - ELF + overlay, PE + overlay: the fixture followed by zeros outside every section;
 * - raw blob: `raw_aarch64.bin` followed by zeros (empty flash, `udf` to the decoder), opened as
 *   a raw AArch64 blob: all of it is mapped, and the analysis scans all of it for code.
 *
 * The analysis of each but the raw blob is the fixture's. Linux only (reads /proc).
 *
 *   deno run -A bench/open_memory.ts [MiB]
 */
import { analysed, fixture, ok, startRemcp } from "../tests/_harness.ts";
import { withBigPeSection, withBigSection } from "../workers/embedded/formats/_testing.ts";

const MIB = Number(Deno.args[0] ?? 256);
const BYTES = MIB * 1024 * 1024;

function peakKib(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

/** `source` followed by a hole of BYTES zeros. */
function padded(source: string, path: string): string {
  Deno.writeFileSync(path, Deno.readFileSync(source));
  Deno.truncateSync(path, Deno.statSync(path).size + BYTES);
  return path;
}

if (Deno.build.os !== "linux") {
  console.log("open_memory: Linux only (reads VmHWM from /proc)");
  Deno.exit(0);
}
const dir = await Deno.makeTempDir({ prefix: "remcp-open-memory-" });
const elf = fixture("elf_x86_64_gcc_O2");
const pe = fixture("pe_x86_64_O2.exe");
const peDebug = fixture("pe_x86_64_debug.exe");
const raw = fixture("raw_aarch64.bin");
const RAW = { raw: true, arch: "aarch64", base: 0 };
withBigSection(Deno.readFileSync(elf), `${dir}/debug.elf`, MIB);
withBigPeSection(Deno.readFileSync(peDebug), `${dir}/debug.exe`, MIB);
const cases: { name: string; small: string; large: string; options?: Record<string, unknown> }[] = [
  { name: "ELF + debug section", small: elf, large: `${dir}/debug.elf` },
  { name: "ELF + overlay", small: elf, large: padded(elf, `${dir}/overlay.elf`) },
  { name: "PE + overlay", small: pe, large: padded(pe, `${dir}/overlay.exe`) },
  { name: "PE + debug sections", small: peDebug, large: `${dir}/debug.exe` },
  { name: "raw blob", small: raw, large: padded(raw, `${dir}/flash.bin`), options: RAW },
];
const h = await startRemcp({
  env: { REMCP_MAX_FILE_MB: String(MIB * 4), REMCP_WORKER_MEMORY_MB: String(MIB * 8 + 1024) },
});
try {
  const peakOf = async (path: string, options?: Record<string, unknown>) => {
    const opened = await ok(h.client, "open_database", { path, ...(options ? { options } : {}) });
    await analysed(h.client, opened.database);
    const list = await ok(h.client, "list_databases");
    const db = (list.items as { database: string; pid?: number }[])
      .find((d) => d.database === opened.database);
    if (!db?.pid) throw new Error(`no worker pid for ${path}`);
    const peak = peakKib(db.pid);
    await ok(h.client, "close_database", { database: opened.database });
    return peak;
  };
  console.log(`file size: the fixture + ${MIB} MiB`);
  console.log(
    `${"case".padEnd(24)}${"small peak".padStart(12)}${"large peak".padStart(12)}` +
      `${"extra / file".padStart(14)}`,
  );
  for (const c of cases) {
    const small = await peakOf(c.small, c.options);
    const large = await peakOf(c.large, c.options);
    const fileMib = Deno.statSync(c.large).size / 1024 / 1024;
    const extra = (large - small) / 1024 / fileMib;
    console.log(
      `${c.name.padEnd(24)}${(small / 1024).toFixed(1).padStart(8)} MiB` +
        `${(large / 1024).toFixed(1).padStart(8)} MiB${extra.toFixed(3).padStart(13)}×`,
    );
  }
  console.log("(extra / file: the large file's extra peak over its size; 1× = one whole copy)");
} finally {
  await h.close();
  await Deno.remove(dir, { recursive: true });
}
