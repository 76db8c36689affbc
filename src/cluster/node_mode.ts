/**
 * `remcp node --nats URL`: a worker host of a remcp cluster. It pulls jobs from the shared
 * work-queue consumer (at most `--jobs` at once), keeps each job's lease alive while it runs,
 * fetches the binary into a local content-addressed cache, runs the script through the same
 * in-process pool and sandbox as `remcp run` (runFileJob), publishes the record, then acks.
 * SIGTERM drains (no new jobs; in-flight ones finish, or are released after --drain seconds);
 * SIGINT releases in-flight jobs at once.
 */
import { join } from "node:path";
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import type { JsMsg } from "@nats-io/jetstream";
import type { Config } from "../config.ts";
import { RemcpError } from "../errors.ts";
import { createLogger, type Logger, stderrSink } from "../log.ts";
import { failedRecord, runFileJob } from "../run/file_job.ts";
import { createSupervisor } from "../supervisor/create.ts";
import type { Supervisor } from "../supervisor/supervisor.ts";
import { connectNats } from "./connect.ts";
import { NATS_OPTIONS } from "./flags.ts";
import { createFileCache, type FileCache } from "./file_cache.ts";
import { type Job, JOBS_CONSUMER, JOBS_STREAM, JobSchema, scriptObject } from "./protocol.ts";
import { publishResult } from "./results.ts";
import { type Cluster, openCluster } from "./setup.ts";

const USAGE = "usage: remcp node --nats URL [--jobs N] [--cache DIR] [--lease S] [--drain S]\n" +
  "  [--backend B] (the default for jobs that name none)\n" +
  "  [--creds FILE | --nkey FILE | --user U --password P | --token T]\n" +
  "  [--tls-ca FILE] [--tls-cert FILE --tls-key FILE] [--allow-insecure] [--allow-scripts]";

/** Runs a node until SIGTERM/SIGINT; resolves to the exit status. */
export async function nodeMode(config: Config, argv: string[]): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args: argv,
      options: {
        ...NATS_OPTIONS,
        jobs: { type: "string" },
        cache: { type: "string" },
        lease: { type: "string" },
        drain: { type: "string" },
        backend: { type: "string" },
        "allow-scripts": { type: "boolean" },
      },
      allowPositionals: false,
    }).values;
  } catch (err) {
    return usage((err as Error).message);
  }
  const jobs = v.jobs !== undefined ? Number(v.jobs) : 1;
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 256) return usage("--jobs takes 1 to 256");
  const leaseS = v.lease !== undefined ? Number(v.lease) : undefined;
  if (leaseS !== undefined && !(leaseS >= 1 && leaseS <= 3600)) {
    return usage("--lease takes 1 to 3600 seconds");
  }
  const drainS = v.drain !== undefined ? Number(v.drain) : 25;
  if (!(drainS >= 0)) return usage("--drain takes seconds, ≥ 0");

  const log = createLogger("node", stderrSink(config.logLevel, config.logDir, "node"));
  const name = `${hostname()}-${Deno.pid}`;
  let cluster: Cluster;
  try {
    const nc = await connectNats(v, `remcp node ${name}`);
    cluster = await openCluster(nc, v.nats ?? "", { leaseS }).catch(async (err) => {
      await nc.close();
      throw err;
    });
  } catch (err) {
    return fail(err);
  }
  log.info(`connected to ${v.nats}: ${cluster.limits}`);

  // What this node writes is its own and temporary, except a --cache the user keeps.
  const temp = await Deno.makeTempDir({ prefix: "remcp-node-" });
  const cacheDir = v.cache ?? join(temp, "cache");
  await Deno.mkdir(cacheDir, { recursive: true });
  const cache = createFileCache(cacheDir, cluster.files);
  await cache.sweep();
  const sup = createSupervisor({
    ...config,
    stateDir: join(temp, "state"),
    ...(v.backend ? { defaultBackend: v.backend } : {}),
    ...(v["allow-scripts"] ? { allowScripts: true } : {}),
    // A job never writes: the cached binary is shared by every job on the same content.
    allowWrite: false,
    maxWorkers: Math.max(config.maxWorkers, jobs),
  }, log);

  const node = new Node(cluster, sup, cache, log, name);
  const stopTaking = new AbortController();
  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  const onTerm = () => {
    if (stopTaking.signal.aborted) return node.release();
    log.info(`draining: ${node.inFlight} job(s) in flight, no new ones`);
    stopTaking.abort();
    drainTimer = setTimeout(() => node.release(), drainS * 1000);
  };
  const onInt = () => {
    stopTaking.abort();
    node.release();
  };
  Deno.addSignalListener("SIGTERM", onTerm);
  Deno.addSignalListener("SIGINT", onInt);
  try {
    const consumer = await cluster.js.consumers.get(JOBS_STREAM, JOBS_CONSUMER);
    log.info(`node ${name} ready: ${jobs} job(s) at once, cache ${cacheDir}`);
    const loop = async () => {
      while (!stopTaking.signal.aborted) {
        let m: JsMsg | null;
        try {
          m = await consumer.next({ expires: 5000 });
        } catch (err) {
          if (stopTaking.signal.aborted) break;
          log.warn(`cannot pull a job: ${(err as Error).message}`);
          await wait(1000, stopTaking.signal);
          continue;
        }
        if (!m) continue;
        // A pull that was already on its way when the drain began: hand it to another node.
        if (stopTaking.signal.aborted) {
          m.nak();
          break;
        }
        await node.handle(m);
      }
    };
    await Promise.all(Array.from({ length: jobs }, loop));
    return 0;
  } catch (err) {
    return fail(err);
  } finally {
    clearTimeout(drainTimer);
    Deno.removeSignalListener("SIGTERM", onTerm);
    Deno.removeSignalListener("SIGINT", onInt);
    await cluster.nc.drain().catch(() => cluster.nc.close());
    await sup.shutdown();
    await cache.sweep().catch(() => {});
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    log.info(`node ${name} stopped: ${node.done} job(s) done`);
  }
}

/** The jobs one node runs. */
class Node {
  done = 0;
  #running = new Map<JsMsg, { abort: AbortController; sha256: string | null }>();
  #scripts = new Map<string, Promise<string>>();

  constructor(
    readonly cluster: Cluster,
    readonly sup: Supervisor,
    readonly cache: FileCache,
    readonly log: Logger,
    readonly name: string,
  ) {}

  get inFlight(): number {
    return this.#running.size;
  }

  /** Stops every running job and gives it back to the queue for another node. */
  release(): void {
    for (const r of this.#running.values()) r.abort.abort();
  }

  async handle(m: JsMsg): Promise<void> {
    const parsed = JobSchema.safeParse(safeJson(m.data));
    if (!parsed.success) {
      // Not a remcp job: nobody waits for a record of it, and running it again will not help.
      this.log.warn(`dropping a malformed job on ${m.subject}: ${parsed.error.message}`);
      m.term("malformed remcp job");
      return;
    }
    const job = parsed.data;
    const delivery = m.info.deliveryCount;
    if (delivery > job.max_deliveries) {
      // Every earlier delivery ended without a record: the node running it died or vanished.
      this.log.warn(`${job.file}: delivered ${delivery} times, giving up (poison job)`);
      await publishResult(this.cluster, job.submission, {
        kind: "record",
        index: job.index,
        node: this.name,
        record: failedRecord(
          job.file,
          new RemcpError(
            "WorkerCrashed",
            `The job was delivered ${job.max_deliveries} time(s) and no node finished it (each ` +
              `node running it died or lost its connection): the file probably crashes remcp; ` +
              `run it alone with \`remcp run\` to see why`,
            { deliveries: job.max_deliveries },
          ),
          0,
        ),
      });
      await m.ackAck().catch(() => m.ack());
      return;
    }
    const abort = new AbortController();
    this.#running.set(m, { abort, sha256: job.sha256 });
    // In-progress acks keep the lease while the job runs; a killed node stops sending them and
    // the job goes to another node when the lease runs out.
    const leaseMs = await this.#leaseMs();
    const keepAlive = setInterval(() => m.working(), Math.max(200, leaseMs / 3));
    try {
      this.log.info(
        `started ${job.file} (job ${job.submission}/${job.index}, delivery ${delivery})`,
      );
      await publishResult(this.cluster, job.submission, {
        kind: "started",
        index: job.index,
        node: this.name,
        delivery,
      });
      const outcome = await this.#run(job, abort.signal);
      if (abort.signal.aborted) {
        m.nak();
        this.log.info(`released ${job.file} to another node`);
        return;
      }
      await publishResult(this.cluster, job.submission, {
        kind: "record",
        index: job.index,
        node: this.name,
        record: outcome.record,
        ...(outcome.annotations !== undefined ? { annotations: outcome.annotations } : {}),
      });
      await m.ackAck().catch(() => m.ack());
      this.done++;
      this.log.info(`finished ${job.file}: ${outcome.record.ok ? "ok" : "failed"}`);
    } catch (err) {
      // NATS trouble publishing the record: let the lease run out so another node retries.
      this.log.warn(`${job.file}: ${(err as Error).message}`);
      m.nak(leaseMs);
    } finally {
      clearInterval(keepAlive);
      this.#running.delete(m);
      await this.#forget(job.sha256);
    }
  }

  async #run(job: Job, signal: AbortSignal) {
    const ctx = {
      session: `node-${crypto.randomUUID().slice(0, 8)}`,
      signal,
      progress: () => {},
      via: "client" as const,
    };
    let path: string | undefined;
    let code: string;
    try {
      code = await this.#script(job.script);
      path = job.sha256 === null ? undefined : await this.cache.path(job.sha256);
    } catch (err) {
      return { record: failedRecord(job.file, err, 0) };
    }
    return await runFileJob(this.sup, ctx, {
      code,
      path,
      label: job.file,
      timeoutS: job.timeout_s,
      backend: job.backend,
      exportAnnotations: job.annotations,
    });
  }

  #script(sha256: string): Promise<string> {
    let p = this.#scripts.get(sha256);
    if (!p) {
      p = this.cluster.files.getBlob(scriptObject(sha256)).then((b) => {
        if (!b) {
          throw new RemcpError("NotFound", `The script ${sha256} is not in the object store`, {});
        }
        return new TextDecoder().decode(b);
      });
      p.catch(() => this.#scripts.delete(sha256));
      this.#scripts.set(sha256, p);
    }
    return p;
  }

  #lease: number | undefined;
  async #leaseMs(): Promise<number> {
    if (this.#lease === undefined) {
      const info = await this.cluster.jsm.consumers.info(JOBS_STREAM, JOBS_CONSUMER);
      this.#lease = (info.config.ack_wait ?? 30e9) / 1e6;
    }
    return this.#lease;
  }

  /**
   * Drops the node's annotation store of a file once no job of it runs, so the next job's
   * export carries only what its own script did.
   */
  async #forget(sha256: string | null): Promise<void> {
    if (sha256 === null) return;
    for (const r of this.#running.values()) if (r.sha256 === sha256) return;
    const dbs = join(this.sup.config.stateDir, "databases");
    for (const dir of [dbs, join(dbs, "rizin")]) {
      try {
        for await (const e of Deno.readDir(dir)) {
          if (e.isFile && e.name.startsWith(sha256)) {
            await Deno.remove(join(dir, e.name)).catch(() => {});
          }
        }
      } catch {
        // No store made for this backend.
      }
    }
  }
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

function fail(err: unknown): number {
  const msg = err instanceof RemcpError ? err.message : (err as Error).message;
  console.error(`remcp node: ${msg}`);
  return 2;
}

function usage(message: string): number {
  console.error(`remcp node: ${message}\n${USAGE}`);
  return 2;
}
