/**
 * `remcp run --nats URL SCRIPT.js FILES…`: the submitter. It uploads each binary once (skipped
 * when the object store already holds that SHA-256), queues one job per file, and prints the
 * records the nodes send back exactly as a local `remcp run` prints them, each file once even
 * when a job ran twice. Ctrl-C removes the jobs not yet started.
 */
import { parseArgs } from "node:util";
import type { JsMsg } from "@nats-io/jetstream";
import type { Config } from "../config.ts";
import { RemcpError } from "../errors.ts";
import { failedRecord, type FileResult } from "../run/file_job.ts";
import { createProgress, stderrProgressSink } from "../run/progress.ts";
import { createRecordOutput } from "../run/records.ts";
import { checkRunArgs, RUN_OPTIONS, RUN_USAGE } from "../run/run_args.ts";
import { createAnnotationImporter } from "./import_annotations.ts";
import { connectNats } from "./connect.ts";
import { NATS_OPTIONS } from "./flags.ts";
import {
  type Job,
  JOBS_STREAM,
  jobSubject,
  type ResultMessage,
  RESULTS_STREAM,
  ResultSchema,
  resultSubject,
  scriptObject,
} from "./protocol.ts";
import { bytes, type Cluster, openCluster } from "./setup.ts";
import { createUploader } from "./upload.ts";

/** Files hashed and uploaded at once. */
const UPLOADS = 4;

/** Runs a submission; resolves to the exit status (0, 1, 2, or 130 when cancelled). */
export async function submitMode(config: Config, argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        ...RUN_OPTIONS,
        ...NATS_OPTIONS,
        "import-annotations": { type: "boolean" },
        "max-deliveries": { type: "string" },
      },
      allowPositionals: true,
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const v = parsed.values;
  const a = await checkRunArgs(v, parsed.positionals);
  if (typeof a === "string") return usage(a);
  if (v.jobs !== undefined) return usage("with --nats, set --jobs on each `remcp node`");
  if (a.allowWrite || a.allowScripts) {
    return usage("--allow-write and --allow-scripts are a node's choice, not a job's");
  }
  const maxDeliveries = v["max-deliveries"] !== undefined ? Number(v["max-deliveries"]) : 3;
  if (!Number.isInteger(maxDeliveries) || maxDeliveries < 1 || maxDeliveries > 100) {
    return usage("--max-deliveries takes 1 to 100");
  }

  let cluster: Cluster;
  try {
    const nc = await connectNats(v, "remcp run");
    cluster = await openCluster(nc, v.nats ?? "").catch(async (err) => {
      await nc.close();
      throw err;
    });
  } catch (err) {
    console.error(`remcp run: ${(err as Error).message}`);
    return 2;
  }
  const say = (line: string) => {
    if (!a.quiet) console.error(`remcp run: ${line}`);
  };
  say(`NATS ${v.nats}: ${cluster.limits}`);

  const submission = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  const files: (string | undefined)[] = a.files.length > 0 ? a.files : [undefined];
  const total = files.length;
  const progress = createProgress(total, stderrProgressSink, a.quiet || a.output === "single");
  const out = createRecordOutput(a.output);
  const importer = v["import-annotations"] ? createAnnotationImporter(config) : undefined;
  const started = new Set<number>();
  const finished = new Set<number>();
  const nodes = new Set<string>();
  const cancel = new AbortController();
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => allDone = resolve);
  const onSignal = () => cancel.abort();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  cancel.signal.addEventListener("abort", () => allDone(), { once: true });

  const record = (index: number, r: FileResult, annotations?: string) => {
    if (finished.has(index)) return; // A redelivered job's second record.
    finished.add(index);
    progress.done(r.file, r.ok);
    out.emit(index, r);
    const path = files[index];
    if (importer && annotations !== undefined && path !== undefined) {
      importer.add(path, annotations);
    }
    if (finished.size === total) allDone();
  };

  // Listen before queueing: a fast node may answer before the last job is published.
  const consumer = await cluster.js.consumers.get(RESULTS_STREAM, {
    // One subject, not a list: servers before 2.10 take a single filter.
    filter_subjects: resultSubject(submission),
  });
  const messages = await consumer.consume();
  const reading = (async () => {
    for await (const m of messages) {
      const msg = await readResult(cluster, m).catch((err) => {
        say(`ignoring a bad result message: ${(err as Error).message}`);
        return undefined;
      });
      if (!msg) continue;
      nodes.add(msg.node);
      if (msg.kind === "started") {
        if (!started.has(msg.index) && !finished.has(msg.index)) {
          started.add(msg.index);
          progress.start(files[msg.index] ?? a.scriptName);
        }
      } else if (msg.kind === "record") {
        started.add(msg.index);
        record(msg.index, msg.record, msg.annotations);
      }
    }
  })();

  const stats = { uploaded: 0, uploadedBytes: 0, present: 0 };
  const idle = setTimeout(() => {
    if (started.size === 0 && finished.size < total) {
      say("no node has taken a job yet: start `remcp node --nats URL` on a worker host");
    }
  }, 15_000);
  try {
    const scriptSha = await sha256Text(a.code);
    const scriptName = scriptObject(scriptSha);
    if (!(await cluster.files.info(scriptName))) {
      await cluster.files.putBlob({ name: scriptName }, new TextEncoder().encode(a.code));
    }
    const upload = createUploader(cluster.files);
    let next = 0;
    const uploader = async () => {
      while (next < total && !cancel.signal.aborted) {
        const index = next++;
        const path = files[index];
        let sha256: string | null = null;
        if (path !== undefined) {
          try {
            const u = await upload(path);
            sha256 = u.sha256;
            if (u.uploaded) {
              stats.uploaded++;
              stats.uploadedBytes += u.size;
            } else stats.present++;
          } catch (err) {
            // As a local run reports an input it cannot open.
            const e = err instanceof RemcpError ? err : new RemcpError(
              "OpenFailed",
              `Cannot read ${path}: ${(err as Error).message}`,
              { path },
            );
            record(index, failedRecord(path, e, 0));
            continue;
          }
        }
        if (cancel.signal.aborted) break;
        const job: Job = {
          v: 1,
          submission,
          index,
          file: path ?? a.scriptName,
          sha256,
          script: scriptSha,
          timeout_s: a.timeoutS,
          ...(a.backend !== undefined ? { backend: a.backend } : {}),
          max_deliveries: maxDeliveries,
          annotations: importer !== undefined,
        };
        await cluster.js.publish(jobSubject(submission), JSON.stringify(job));
      }
    };
    await Promise.all(Array.from({ length: Math.min(UPLOADS, total) }, uploader));
    if (files.some((f) => f !== undefined)) {
      say(
        `${stats.uploaded} file(s) uploaded (${bytes(stats.uploadedBytes)}), ` +
          `${stats.present} already in the store`,
      );
    }
    await done;
  } catch (err) {
    say(`${(err as Error).message}`);
    cancel.abort();
  } finally {
    clearTimeout(idle);
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }

  const cancelled = cancel.signal.aborted && finished.size < total;
  if (cancelled) {
    // Jobs still in the queue are gone; the ones running finish on their nodes unheard.
    const purged = await cluster.jsm.streams.purge(JOBS_STREAM, {
      filter: jobSubject(submission),
    }).catch(() => ({ purged: 0 }));
    const running = started.size - finished.size;
    const notStarted = total - started.size;
    say(
      `cancelled: ${notStarted} job(s) not started were removed from the queue` +
        ` (${purged.purged} message(s)); ${finished.size} finished, ${running} still running`,
    );
  }
  progress.finish();
  messages.stop();
  await reading.catch(() => {});
  await cluster.jsm.streams.purge(RESULTS_STREAM, { filter: resultSubject(submission) })
    .catch(() => {});
  await cluster.nc.drain().catch(() => cluster.nc.close());
  if (importer) say(await importer.finish());
  if (nodes.size > 0 && !cancelled) say(`ran on ${nodes.size} node(s)`);
  return out.finish(total, cancelled);
}

async function readResult(cluster: Cluster, m: JsMsg): Promise<ResultMessage> {
  const msg = ResultSchema.parse(m.json());
  if (msg.kind !== "spilled") return msg;
  const blob = await cluster.files.getBlob(msg.object);
  if (!blob) {
    throw new RemcpError("NotFound", `The record of job ${msg.index} is gone from the store`, {});
  }
  await cluster.files.delete(msg.object).catch(() => {});
  const full = ResultSchema.parse(JSON.parse(new TextDecoder().decode(blob)));
  if (full.kind === "spilled") throw new RemcpError("Internal", "A spilled record points on", {});
  return full;
}

async function sha256Text(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join("");
}

function usage(message: string): number {
  console.error(`remcp run: ${message}\n${RUN_USAGE}`);
  return 2;
}
