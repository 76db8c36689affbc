/**
 * End-to-end: `remcp node` and `remcp run --nats` on a real nats-server with JetStream, on
 * loopback. Skipped, saying why, when nats-server is not installed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, runCli } from "./_harness.ts";
import { natsMissing, remcp, startNats, startNode, submit } from "./_nats.ts";

const missing = natsMissing();
if (missing) console.error(`cluster tests skipped: ${missing}`);
const e2e = { sanitizeOps: false, sanitizeResources: false, ignore: missing !== undefined };

/** `n` small binaries with distinct content (one fixture plus a different trailing byte). */
async function binaries(n: number): Promise<{ dir: string; files: string[] }> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-files-" });
  const base = await Deno.readFile(fixture("elf_x86_64_gcc_O2_stripped_noehframe"));
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const f = join(dir, `sample_${String(i).padStart(2, "0")}`);
    const bytes = new Uint8Array(base.length + 1);
    bytes.set(base);
    bytes[base.length] = i;
    await Deno.writeFile(f, bytes);
    files.push(f);
  }
  return { dir, files };
}

function records(
  stdout: string,
): {
  file: string;
  ok: boolean;
  result?: unknown;
  error?: { error_type: string; message: string };
}[] {
  return stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
}

Deno.test(
  "three nodes run 30 files: 30 records, each once; a second submission uploads nothing; nodes leave no files",
  e2e,
  async () => {
    const nats = await startNats();
    const { dir, files } = await binaries(30);
    const cache = await Deno.makeTempDir({ prefix: "remcp-test-cache-" });
    const nodes = [
      await startNode(nats.url),
      await startNode(nats.url),
      await startNode(nats.url, ["--cache", cache]),
    ];
    const state = await Deno.makeTempDir();
    try {
      const script =
        "({ file, functions: (await invoke('list_functions', { limit: 1 })).total > 0 })";
      const first = await submit(nats.url, ["-e", script, "--ndjson", ...files], {
        REMCP_STATE_DIR: state,
      });
      assert.equal(first.code, 0, first.stderr);
      const recs = records(first.stdout);
      assert.equal(recs.length, 30);
      assert.deepEqual(recs.map((r) => r.file).sort(), files);
      assert.ok(recs.every((r) => r.ok && (r.result as { file: string }).file === r.file));
      assert.match(first.stderr, /30 file\(s\) uploaded/);
      assert.match(first.stderr, /30\/30 files, 0 failed/);

      const again = await submit(nats.url, ["-e", script, "--ndjson", ...files.slice(0, 3)], {
        REMCP_STATE_DIR: state,
      });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /0 file\(s\) uploaded \(0 B\), 3 already in the store/);
      assert.equal(records(again.stdout).length, 3);

      // The same file, local and on the cluster: the same record but for the time it took.
      const one = files[0]!;
      const local = await runCli(["-e", script, "--json", one], state);
      const remote = await submit(nats.url, ["-e", script, "--json", one], {
        REMCP_STATE_DIR: state,
      });
      const strip = (s: string) =>
        JSON.parse(s).map((r: { seconds?: number }) => ({ ...r, seconds: 0 }));
      assert.deepEqual(strip(remote.stdout), strip(local.stdout));

      // SIGTERM drains and the node removes its temporary files; a --cache keeps whole files only.
      for (const n of nodes) n.proc.kill("SIGTERM");
      for (const n of nodes) {
        assert.equal((await n.proc.status).code, 0, n.proc.stderr.join("\n"));
        assert.deepEqual(await n.leftovers(), []);
      }
      const cached = [];
      for await (const e of Deno.readDir(cache)) cached.push(e.name);
      assert.ok(cached.length > 0 && cached.every((n) => /^[0-9a-f]{64}$/.test(n)), cached.join());
    } finally {
      for (const n of nodes) await n.cleanup();
      await nats.stop();
      for (const d of [dir, cache, state]) await Deno.remove(d, { recursive: true });
    }
  },
);
