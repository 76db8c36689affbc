/**
 * `remcp run --nats` against local `remcp run`: the same script over the same files (200 unless
 * `--files N`), local with --jobs 2 and on 1, 2 and 3 `remcp node`s (--jobs 2 each) on a loopback
 * nats-server; then the cluster's own cost per file, measured without any analysis (hash + upload
 * + queue the job; a node's pull, "started", record and ack; the submitter reading the record),
 * as a ratio to the local per-file time (goal ≤ 5%), and what 100 hosts would make of 1 M files.
 *
 *   deno run -A bench/cluster.ts [--files N] [--nodes 1,2,3]
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connectNats } from "../src/cluster/connect.ts";
import {
  type Job,
  JOBS_CONSUMER,
  JOBS_STREAM,
  jobSubject,
  RESULTS_STREAM,
  ResultSchema,
  resultSubject,
} from "../src/cluster/protocol.ts";
import { publishResult } from "../src/cluster/results.ts";
import { openCluster } from "../src/cluster/setup.ts";
import { createUploader } from "../src/cluster/upload.ts";
import { fixture } from "../tests/_harness.ts";
import { natsMissing, remcp, startNats, startNode } from "../tests/_nats.ts";

const args = parseArgs({
  args: Deno.args,
  options: { files: { type: "string" }, nodes: { type: "string" } },
}).values;
const N = Number(args.files ?? 200);
const NODE_COUNTS = (args.nodes ?? "1,2,3").split(",").map(Number);
const SCRIPT = "({ file, functions: (await invoke('list_functions', { limit: 1 })).total })";

const missing = natsMissing();
if (missing) {
  console.error(`bench/cluster.ts: ${missing}`);
  Deno.exit(1);
}

/** `n` distinct small binaries: real ELFs with a different trailing byte pair. */
async function makeFiles(n: number): Promise<{ dir: string; files: string[]; bytes: number }> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-bench-files-" });
  const names = ["elf_x86_64_gcc_O2", "elf_aarch64_gcc_O2", "elf_arm_gcc_O2", "pe_i386_O2.exe"];
  const bases = await Promise.all(names.map((b) => Deno.readFile(fixture(b))));
  const files: string[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const base = bases[i % bases.length]!;
    const b = new Uint8Array(base.length + 2);
    b.set(base);
    b[base.length] = i & 0xff;
    b[base.length + 1] = i >> 8;
    const f = join(dir, `f${i}`);
    await Deno.writeFile(f, b);
    files.push(f);
    bytes += b.length;
  }
  return { dir, files, bytes };
}

async function timed(f: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
}

function count(stdout: string[]): { ok: number; failed: number } {
  const recs = stdout.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  return { ok: recs.filter((r) => r.ok).length, failed: recs.filter((r) => !r.ok).length };
}

// The messaging measurement runs no analysis, so it always takes at least 200 files.
const M = Math.max(N, 200);
const { dir, files: all, bytes: allBytes } = await makeFiles(M);
const files = all.slice(0, N);
const bytes = allBytes / M * N;
const rows: string[][] = [];
const state = await Deno.makeTempDir({ prefix: "remcp-bench-cluster-" });

// Local reference.
let local = { ok: 0, failed: 0 };
const localS = await timed(async () => {
  const p = remcp(["run", "-e", SCRIPT, "--ndjson", "--quiet", "--jobs", "2", ...files], {
    REMCP_STATE_DIR: state,
    REMCP_LOG_LEVEL: "error",
  });
  await p.status;
  local = count(p.stdout);
});
const localPerFile = localS / N;
rows.push(["local --jobs 2", localS.toFixed(1), `${local.ok}/${N}`, "1.00"]);
console.error(`local: ${localS.toFixed(1)} s`);

for (const k of NODE_COUNTS) {
  const nats = await startNats();
  const nodes = [];
  for (let i = 0; i < k; i++) {
    nodes.push(await startNode(nats.url, ["--jobs", "2", "--lease", "30"]));
  }
  let got = { ok: 0, failed: 0 };
  const s = await timed(async () => {
    const p = remcp(["run", "--nats", nats.url, "-e", SCRIPT, "--ndjson", "--quiet", ...files], {
      REMCP_STATE_DIR: state,
      REMCP_LOG_LEVEL: "error",
    });
    await p.status;
    got = count(p.stdout);
  });
  rows.push([`${k} node(s) --jobs 2`, s.toFixed(1), `${got.ok}/${N}`, (s / localS).toFixed(2)]);
  console.error(`${k} node(s): ${s.toFixed(1)} s`);
  for (const n of nodes) await n.cleanup();
  await nats.stop();
}

// The cluster's own cost per file, with no analysis in the way.
const nats = await startNats();
const nc = await connectNats({ nats: nats.url }, "bench");
const cluster = await openCluster(nc, nats.url);
const upload = createUploader(cluster.files);
const submission = "bench";
const script = "0".repeat(64);
const uploadS = await timed(async () => {
  for (let i = 0; i < M; i++) {
    const u = await upload(all[i]!);
    const job: Job = {
      v: 1,
      submission,
      index: i,
      file: all[i]!,
      sha256: u.sha256,
      script,
      timeout_s: 600,
      max_deliveries: 3,
      annotations: false,
    };
    await cluster.js.publish(jobSubject(submission), JSON.stringify(job));
  }
});
const again = createUploader(cluster.files);
const reuploadS = await timed(async () => {
  for (const f of all) await again(f);
});
// A node that does no work, and a submitter reading the records: the messaging round trip.
const consumer = await cluster.js.consumers.get(JOBS_STREAM, JOBS_CONSUMER);
const reader = await jetstream(nc).consumers.get(RESULTS_STREAM, {
  filter_subjects: resultSubject(submission),
});
const queueS = await timed(async () => {
  const messages = await reader.consume();
  const reading = (async () => {
    let n = 0;
    for await (const m of messages) {
      if (ResultSchema.parse(m.json()).kind === "record" && ++n === M) break;
    }
  })();
  for (let i = 0; i < M; i++) {
    const m = await consumer.next({ expires: 5000 });
    if (!m) throw new Error("no job");
    const job = JSON.parse(m.string()) as Job;
    await publishResult(cluster, submission, {
      kind: "started",
      index: job.index,
      node: "bench",
      delivery: m.info.deliveryCount,
    });
    await publishResult(cluster, submission, {
      kind: "record",
      index: job.index,
      node: "bench",
      record: { file: job.file, ok: true, result: { file: job.file, functions: 10 }, seconds: 1 },
    });
    await m.ackAck();
  }
  await reading;
});
const jsm = await jetstreamManager(nc);
const storeBytes = (await cluster.files.status()).size;
await jsm.streams.purge(RESULTS_STREAM);
await nc.close();
await nats.stop();

const perFile = (s: number) => s / M * 1000;
const engineMs = perFile(uploadS) + perFile(queueS);
console.log(`\n${N} files (${(bytes / N / 1024).toFixed(0)} KiB each); script: ${SCRIPT}\n`);
console.log("| run | wall s | ok | vs local |");
console.log("| --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
console.log(
  `\nlocal per-file time (wall / files, --jobs 2): ${(localPerFile * 1000).toFixed(0)} ms`,
);
console.log(`cluster cost per file (${M} files; one submitter, one no-op node, sequential):`);
console.log(`  hash + upload + queue the job: ${perFile(uploadS).toFixed(2)} ms`);
console.log(
  `  hash + "already stored" check (second submission): ${perFile(reuploadS).toFixed(2)} ms`,
);
console.log(`  pull + started + record + ack + read: ${perFile(queueS).toFixed(2)} ms`);
console.log(
  `  total ${engineMs.toFixed(2)} ms = ${(engineMs / (localPerFile * 1000) * 100).toFixed(2)}% ` +
    `of the local per-file time (goal ≤ 5%)`,
);

// On paper: 100 hosts, 1 M files of this size, with the per-file costs just measured.
const hosts = 100;
const million = 1_000_000;
const nodeRate = hosts / localPerFile; // each host runs --jobs 2 at the local 2-job pace
const submitRate = 1000 / perFile(uploadS);
const avg = bytes / N;
console.log(`\n100 hosts, 1 M files of ${(avg / 1024).toFixed(0)} KiB:`);
console.log(
  `  analysis: ${hosts} × ${(1 / localPerFile).toFixed(2)} files/s = ${
    nodeRate.toFixed(0)
  } files/s → ${(million / nodeRate / 3600).toFixed(1)} h`,
);
console.log(
  `  one submitter uploads ${submitRate.toFixed(0)} files/s → ${
    (million / submitRate / 3600).toFixed(2)
  } h for 1 M (first submission)`,
);
console.log(
  `  messaging: ${(4 * nodeRate).toFixed(0)} messages/s at the server (job, started, record, ` +
    `ack) plus ${Math.ceil(avg / (128 * 1024))} object chunk(s) per file; one sequential client ` +
    `moved ${(4 * M / queueS).toFixed(0)} messages/s here`,
);
console.log(
  `  object store: ${(million * avg / 1024 ** 3).toFixed(1)} GiB for 1 M files (here ${
    (storeBytes / 1024 ** 2).toFixed(1)
  } MiB for ${M})`,
);

const wallH = Math.max(million / nodeRate, million / submitRate) / 3600;
console.log(
  `  → about ${wallH.toFixed(1)} h, bound by ${
    million / nodeRate > million / submitRate ? "the hosts' analysis" : "the submitter's uploads"
  }`,
);

await Deno.remove(dir, { recursive: true });
await Deno.remove(state, { recursive: true });
