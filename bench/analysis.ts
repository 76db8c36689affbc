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

console.log("file                         code MB   first open s   s/MB   reopen s   speedup");
for (const file of files) {
  const stateDir = await Deno.makeTempDir();
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
    await ok(h.client, "close_database", { database: a.database });
    t0 = performance.now();
    const b = await ok(h.client, "open_database", { path: file });
    await ok(h.client, "wait_for_analysis", { database: b.database, timeout: 3600 });
    const again = (performance.now() - t0) / 1000;
    console.log(
      `${file.padEnd(28)} ${mb.toFixed(2).padStart(7)}   ${first.toFixed(2).padStart(12)}   ${
        (first / mb).toFixed(2).padStart(4)
      }   ${again.toFixed(3).padStart(8)}   ${(first / again).toFixed(1).padStart(6)}×`,
    );
  } finally {
    await h.close();
    await Deno.remove(stateDir, { recursive: true });
  }
}
