/**
 * End-to-end: `remcp node` and `remcp run --nats` on a real nats-server with JetStream, on
 * loopback. Skipped, saying why, when nats-server is not installed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, repoPath, runCli } from "./_harness.ts";
import { firstWith, natsMissing, remcp, startNats, startNode, submit } from "./_nats.ts";

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
    const state = await Deno.makeTempDir({ prefix: "remcp-test-cluster-" });
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

/** A script that keeps a node busy for about `ms` before returning its file. */
const busy = (ms: number) => `const t = Date.now(); while (Date.now() - t < ${ms}) {} file`;

Deno.test(
  "a node killed with -9 mid-job: its job goes to another node and every file has one record",
  e2e,
  async () => {
    const nats = await startNats();
    const { dir, files } = await binaries(4);
    const a = await startNode(nats.url);
    const b = await startNode(nats.url);
    try {
      const run = remcp(["run", "--nats", nats.url, "-e", busy(3000), "--ndjson", ...files], {
        REMCP_STATE_DIR: dir,
      });
      await a.proc.line(/started .*sample_/);
      a.proc.kill("SIGKILL");
      const status = await run.status;
      assert.equal(status.code, 0, run.stderr.join("\n"));
      const recs = records(run.stdout.join("\n"));
      assert.deepEqual(recs.map((r) => r.file).sort(), files);
      assert.ok(recs.every((r) => r.ok));
      // The killed node's one job came back to b as a second delivery; b's own jobs, longer than
      // the 2 s lease, kept theirs with in-progress acks and were never delivered again.
      const redelivered = b.proc.stderr.filter((l) => /delivery [2-9]\)/.test(l));
      assert.equal(redelivered.length, 1, b.proc.stderr.join("\n"));
      assert.match(redelivered[0]!, /delivery 2\)/);
    } finally {
      await a.cleanup();
      await b.cleanup();
      await nats.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "a poison job that kills every node ends as a failed record after N deliveries",
  e2e,
  async () => {
    const nats = await startNats();
    const { dir, files } = await binaries(1);
    const nodes = [await startNode(nats.url), await startNode(nats.url), await startNode(nats.url)];
    try {
      const run = remcp([
        "run",
        "--nats",
        nats.url,
        "--max-deliveries",
        "2",
        "-e",
        "while (true) {}",
        "--json",
        ...files,
      ], { REMCP_STATE_DIR: dir });
      // Play the crash: whichever node starts the job dies, twice.
      let alive = [...nodes];
      for (let i = 0; i < 2; i++) {
        const victim = await firstWith(alive, /started/);
        victim.proc.kill("SIGKILL");
        alive = alive.filter((n) => n !== victim);
      }
      const status = await run.status;
      assert.equal(status.code, 1, run.stderr.join("\n"));
      const [rec] = JSON.parse(run.stdout.join("\n"));
      assert.equal(rec.ok, false);
      assert.equal(rec.error.error_type, "WorkerCrashed");
      assert.match(rec.error.message, /delivered 2 time/);
    } finally {
      for (const n of nodes) await n.cleanup();
      await nats.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "a 50 MB binary travels through the object store; annotations come back with --import-annotations",
  e2e,
  async () => {
    const nats = await startNats();
    const dir = await Deno.makeTempDir({ prefix: "remcp-test-files-" });
    const cache = await Deno.makeTempDir({ prefix: "remcp-test-cache-" });
    const node = await startNode(nats.url, ["--cache", cache]);
    try {
      // A real ELF with 50 MB of noise after it: the loaders ignore trailing bytes.
      const big = join(dir, "big.elf");
      const elf = await Deno.readFile(fixture("elf_x86_64_gcc_O2"));
      const bytes = new Uint8Array(elf.length + 50 * 1024 * 1024);
      bytes.set(elf);
      for (let i = elf.length; i < bytes.length; i += 65536) {
        crypto.getRandomValues(bytes.subarray(i, Math.min(i + 65536, bytes.length)));
      }
      await Deno.writeFile(big, bytes);
      const sha = Array.from(
        new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
        (b) => b.toString(16).padStart(2, "0"),
      ).join("");
      const r = await submit(nats.url, [
        "-e",
        "const i = await invoke('get_database_info', {}); ({ sha256: i.sha256, size: i.size })",
        big,
      ], { REMCP_STATE_DIR: dir });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { sha256: sha, size: bytes.length });
      assert.equal((await Deno.stat(join(cache, sha))).size, bytes.length);

      const state = await Deno.makeTempDir({ prefix: "remcp-test-cluster-", dir });
      const o0 = fixture("elf_x86_64_gcc_O0");
      const renamed = await submit(nats.url, [
        "--import-annotations",
        "-e",
        "await invoke('rename', { address: 'remcp_fib', name: 'fib_from_cluster' })",
        o0,
      ], { REMCP_STATE_DIR: state });
      assert.equal(renamed.code, 0, renamed.stderr);
      assert.match(renamed.stderr, /imported annotations into 1 file\(s\): 1 applied/);
      const local = await runCli([
        "-e",
        "(await invoke('resolve_address', { address: 'fib_from_cluster' })).symbol",
        o0,
      ], state);
      assert.equal(local.code, 0, local.stderr);
      assert.equal(JSON.parse(local.stdout), "fib_from_cluster");
    } finally {
      await node.cleanup();
      await nats.stop();
      for (const d of [dir, cache]) await Deno.remove(d, { recursive: true });
    }
  },
);

Deno.test(
  "Ctrl-C on the submitter removes the jobs not started and says how many ran",
  e2e,
  async () => {
    const nats = await startNats();
    const { dir, files } = await binaries(6);
    const node = await startNode(nats.url);
    try {
      const run = remcp(["run", "--nats", nats.url, "-e", busy(1500), "--ndjson", ...files], {
        REMCP_STATE_DIR: dir,
      });
      await run.until(() => run.stdout.some((l) => l.startsWith("{")), "a first record");
      run.kill("SIGINT");
      const status = await run.status;
      assert.equal(status.code, 130, run.stderr.join("\n"));
      const line = run.stderr.find((l) => /cancelled:/.test(l)) ?? "";
      const m = /cancelled: (\d+) job\(s\) not started.*; (\d+) finished, (\d+) still running/.exec(
        line,
      );
      assert.ok(m, run.stderr.join("\n"));
      const [notStarted, finished, running] = [Number(m[1]), Number(m[2]), Number(m[3])];
      assert.ok(notStarted >= 1);
      assert.equal(notStarted + finished + running, files.length);
      assert.equal(records(run.stdout.join("\n")).length, finished);
      // Nothing of that submission is left for the node: it goes idle after its current job.
      const { connect } = await import("@nats-io/transport-node");
      const { jetstreamManager } = await import("@nats-io/jetstream");
      const nc = await connect({ servers: nats.url });
      try {
        const info = await (await jetstreamManager(nc)).streams.info("REMCP_JOBS");
        assert.equal(info.state.messages, 0);
      } finally {
        await nc.close();
      }
    } finally {
      await node.cleanup();
      await nats.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "a server that requires credentials refuses a node without them and serves one with them",
  e2e,
  async () => {
    const nats = await startNats({ args: ["--user", "alice", "--pass", "s3cret-pw"] });
    const { dir, files } = await binaries(1);
    try {
      const refused = remcp(["node", "--nats", nats.url]);
      assert.equal((await refused.status).code, 2);
      assert.match(refused.stderr.join("\n"), /requires credentials/);

      const creds = ["--user", "alice", "--password", "s3cret-pw"];
      const node = await startNode(nats.url, creds);
      try {
        const r = await submit(nats.url, [...creds, "-e", "file", ...files], {
          REMCP_STATE_DIR: dir,
        });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(JSON.parse(r.stdout), files[0]);
        // Both sides say what bounds the run before it starts.
        assert.match(r.stderr, /JetStream storage .* jobs stream .* file store .* message max/);
        assert.ok(node.proc.stderr.some((l) => /connected to .*JetStream storage/.test(l)));
        // A record over the server's 1 MiB message limit travels through the object store.
        const big = await submit(nats.url, [...creds, "-e", "'x'.repeat(1_500_000)", ...files], {
          REMCP_STATE_DIR: dir,
        });
        assert.equal(big.code, 0, big.stderr);
        assert.equal(JSON.parse(big.stdout).length, 1_500_000);
        const anonymous = await submit(nats.url, ["-e", "file", ...files], {
          REMCP_STATE_DIR: dir,
        });
        assert.equal(anonymous.code, 2);
        assert.match(anonymous.stderr, /requires credentials/);
      } finally {
        await node.cleanup();
      }
    } finally {
      await nats.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "remcp node refuses an open remote server and a server without JetStream",
  e2e,
  async () => {
    const remote = remcp(["node", "--nats", "nats://192.0.2.1:4222"]);
    assert.equal((await remote.status).code, 2);
    assert.match(remote.stderr.join("\n"), /without authentication.*--allow-insecure/);

    const nats = await startNats({ jetstream: false });
    try {
      const node = remcp(["node", "--nats", nats.url]);
      assert.equal((await node.status).code, 2);
      assert.match(node.stderr.join("\n"), /JetStream is not enabled.*nats-server -js/);
    } finally {
      await nats.stop();
    }
  },
);

Deno.test("deploy/kubernetes/remcp-node.yaml is a Deployment that runs remcp node with credentials", async () => {
  const { parse } = await import("yaml");
  const doc = parse(await Deno.readTextFile(repoPath("deploy/kubernetes/remcp-node.yaml")));
  assert.equal(doc.apiVersion, "apps/v1");
  assert.equal(doc.kind, "Deployment");
  assert.deepEqual(doc.spec.selector.matchLabels, doc.spec.template.metadata.labels);
  const [c] = doc.spec.template.spec.containers;
  assert.equal(c.args[0], "node");
  const flag = (name: string) => c.args[c.args.indexOf(name) + 1];
  assert.match(flag("--nats"), /^nats:\/\//);
  const creds = flag("--creds");
  const mounts = c.volumeMounts.map((m: { mountPath: string }) => m.mountPath);
  assert.ok(mounts.some((m: string) => creds.startsWith(m + "/")), "the creds file is mounted");
  // The pod gets longer to stop than the node's drain.
  assert.ok(doc.spec.template.spec.terminationGracePeriodSeconds > Number(flag("--drain")));
});

Deno.test(
  "SIGTERM drains a node: a running job finishes, or after --drain goes back to the queue",
  e2e,
  async () => {
    const nats = await startNats();
    const { dir, files } = await binaries(2);
    const a = await startNode(nats.url, ["--drain", "0"]);
    let b: Awaited<ReturnType<typeof startNode>> | undefined;
    try {
      // a cannot wait: its job goes back to the queue, and b takes it when it comes.
      const first = remcp(["run", "--nats", nats.url, "-e", busy(3000), files[0]!], {
        REMCP_STATE_DIR: dir,
      });
      await a.proc.line(/started/);
      a.proc.kill("SIGTERM");
      assert.equal((await a.proc.status).code, 0);
      assert.ok(
        a.proc.stderr.some((l) => /released .*sample_00/.test(l)),
        a.proc.stderr.join("\n"),
      );
      b = await startNode(nats.url);
      assert.equal((await first.status).code, 0, first.stderr.join("\n"));
      assert.equal(JSON.parse(first.stdout.join("\n")), files[0]);
      assert.ok(b.proc.stderr.some((l) => /sample_00 .*delivery 2\)/.test(l)));

      // b may wait (25 s by default): its running job finishes and is recorded.
      const second = remcp(["run", "--nats", nats.url, "-e", busy(3000), files[1]!], {
        REMCP_STATE_DIR: dir,
      });
      await b.proc.line(/started .*sample_01/);
      b.proc.kill("SIGTERM");
      assert.equal((await second.status).code, 0, second.stderr.join("\n"));
      assert.equal(JSON.parse(second.stdout.join("\n")), files[1]);
      assert.equal((await b.proc.status).code, 0);
      assert.deepEqual(await b.leftovers(), []);
    } finally {
      await a.cleanup();
      await b?.cleanup();
      await nats.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

/** A CA and a server certificate for 127.0.0.1, made with openssl in `dir`. */
async function makeCerts(dir: string): Promise<boolean> {
  const steps = [
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem"],
    ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr"],
    ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key"],
  ];
  await Deno.writeTextFile(join(dir, "ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  const extra = [
    ["-days", "1", "-subj", "/CN=remcp-test-ca"],
    ["-subj", "/CN=localhost"],
    ["-CAcreateserial", "-out", "server.pem", "-days", "1", "-extfile", "ext.cnf"],
  ];
  for (const [i, step] of steps.entries()) {
    try {
      const out = await new Deno.Command("openssl", {
        args: [...step, ...extra[i]!],
        cwd: dir,
        stdout: "null",
        stderr: "null",
      }).output();
      if (!out.success) return false;
    } catch {
      return false;
    }
  }
  return true;
}

Deno.test(
  "TLS: a node trusts the server through --tls-ca and refuses it without",
  e2e,
  async (t) => {
    const certs = await Deno.makeTempDir({ prefix: "remcp-test-tls-" });
    try {
      if (!(await makeCerts(certs))) {
        console.error("TLS test skipped: openssl cannot make certificates here");
        return;
      }
      const nats = await startNats({
        args: [
          "--tls",
          "--tlscert",
          join(certs, "server.pem"),
          "--tlskey",
          join(certs, "server.key"),
        ],
      });
      // By name: under Deno the client checks an IP-addressed server's certificate against
      // "localhost" instead of the IP.
      const url = `tls://localhost:${nats.port}`;
      const { dir, files } = await binaries(1);
      try {
        await t.step("without the CA the connection fails", async () => {
          const untrusted = remcp(["node", "--nats", url]);
          assert.equal((await untrusted.status).code, 2);
          assert.match(untrusted.stderr.join("\n"), /Cannot connect to NATS/);
        });
        const ca = ["--tls-ca", join(certs, "ca.pem")];
        const node = await startNode(url, ca);
        try {
          const r = await submit(url, [...ca, "-e", "file", ...files], { REMCP_STATE_DIR: dir });
          assert.equal(r.code, 0, r.stderr);
          assert.equal(JSON.parse(r.stdout), files[0]);
        } finally {
          await node.cleanup();
        }
      } finally {
        await nats.stop();
        await Deno.remove(dir, { recursive: true });
      }
    } finally {
      await Deno.remove(certs, { recursive: true });
    }
  },
);
