/**
 * Analysis speed through the real server: first open (analysis) vs reopen (cache) per binary,
 * and seconds per MB of code for three sizes.
 *
 *   deno run -A bench/analysis.ts [files…]
 */
import { ok, startRemcp } from "../tests/_harness.ts";
import { openImage } from "../workers/embedded/formats/open_image.ts";

const candidates = Deno.args.length > 0
  ? Deno.args
  : ["/bin/ls", "/usr/bin/python3.11", "/usr/bin/gdb", "/usr/bin/python3", "/usr/bin/perl"];
const files: string[] = [];
for (const f of candidates) {
  try {
    if ((await Deno.stat(f)).isFile && !files.includes(await Deno.realPath(f))) {
      files.push(await Deno.realPath(f));
    }
  } catch {
    // Not on this machine.
  }
  if (files.length === 3) break;
}

function codeBytes(bytes: Uint8Array): number {
  return openImage(bytes).sections.filter((s) => s.kind === "code")
    .reduce((n, s) => n + (s.end - s.start), 0);
}

console.log(
  "file                         code MB   open s  analysis s  s/MB   reopen s  cache s  " +
    "open speedup  analysis speedup",
);
for (const file of files) {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-bench-analysis-" });
  const h = await startRemcp({
    stateDir,
    env: { REMCP_CHECK_OUTPUT: "0", REMCP_LOG_LEVEL: "error" },
  });
  try {
    const mb = codeBytes(await Deno.readFile(file)) / 1e6;
    let t0 = performance.now();
    const a = await ok(h.client, "open_database", { path: file });
    await ok(h.client, "wait_for_analysis", { database: a.database, timeout: 3600 });
    const first = (performance.now() - t0) / 1000;
    const i1 = (await ok(h.client, "get_database_info", { database: a.database })).analysis as {
      seconds: number;
    };
    await ok(h.client, "close_database", { database: a.database });
    t0 = performance.now();
    const b = await ok(h.client, "open_database", { path: file });
    await ok(h.client, "wait_for_analysis", { database: b.database, timeout: 3600 });
    const again = (performance.now() - t0) / 1000;
    const i2 = (await ok(h.client, "get_database_info", { database: b.database })).analysis as {
      seconds: number;
      cached: boolean;
    };
    if (!i2.cached) throw new Error("the reopen did not use the cache");
    console.log(
      `${file.padEnd(28)} ${mb.toFixed(2).padStart(7)} ${first.toFixed(2).padStart(8)} ${
        i1.seconds.toFixed(2).padStart(11)
      } ${(i1.seconds / mb).toFixed(2).padStart(5)} ${again.toFixed(3).padStart(10)} ${
        i2.seconds.toFixed(3).padStart(8)
      } ${(first / again).toFixed(1).padStart(12)}× ${
        (i1.seconds / i2.seconds).toFixed(1).padStart(16)
      }×`,
    );
  } finally {
    await h.close();
    await Deno.remove(stateDir, { recursive: true });
  }
}
