/**
 * The JetStream side of a remcp cluster: checks JetStream is on, creates the jobs stream, the
 * nodes' consumer, the results stream and the file store when they are missing (streams an
 * operator made beforehand, with replicas or limits of their own, are used as they are), and
 * describes the limits that will bound a run.
 */
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  type JetStreamClient,
  type JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { type ObjectStore, Objm } from "@nats-io/obj";
import { RemcpError } from "../errors.ts";
import { FILES_BUCKET, JOBS_CONSUMER, JOBS_STREAM, RESULTS_STREAM } from "./protocol.ts";

/** Handles on a ready cluster. */
export interface Cluster {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  files: ObjectStore;
  /** One line on the server's limits and what the streams hold. */
  limits: string;
}

const NANOS_PER_S = 1_000_000_000;

/** Makes sure the streams, consumer and store exist; `leaseS`, when given, sets the ack wait. */
export async function openCluster(
  nc: NatsConnection,
  server: string,
  opts: { leaseS?: number | undefined } = {},
): Promise<Cluster> {
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc, { checkAPI: true });
  } catch (err) {
    throw new RemcpError(
      "Unavailable",
      `JetStream is not enabled on the NATS server at ${server} (${(err as Error).message}): ` +
        `start it with \`nats-server -js\` or enable jetstream in its configuration`,
      { server },
    );
  }
  const account = await jsm.getAccountInfo();
  const step = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      throw new RemcpError(
        "Unavailable",
        `Cannot create ${what} on the NATS server at ${server}: ${(err as Error).message}. ` +
          `Check the account's JetStream limits or create it with the nats CLI`,
        { server },
      );
    }
  };
  const jobs = await step(`the ${JOBS_STREAM} stream`, () =>
    ensureStream(jsm, JOBS_STREAM, {
      subjects: ["remcp.jobs.>"],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
    }));
  await step(`the ${JOBS_CONSUMER} consumer`, () => ensureConsumer(jsm, opts.leaseS));
  await step(`the ${RESULTS_STREAM} stream`, () =>
    ensureStream(jsm, RESULTS_STREAM, {
      subjects: ["remcp.results.>"],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      // Submitters purge their own results; this only bounds those of one that vanished.
      max_age: 7 * 24 * 3600 * NANOS_PER_S,
    }));
  const js = jetstream(nc);
  const files = await step(
    `the ${FILES_BUCKET} object store`,
    () => new Objm(js).create(FILES_BUCKET, { storage: StorageType.File }),
  );
  const status = await files.status();
  const consumer = await jsm.consumers.info(JOBS_STREAM, JOBS_CONSUMER);
  const l = account.limits;
  const limits = [
    `JetStream storage ${bytes(account.storage)} used of ${cap(l.max_storage, bytes)}`,
    `jobs stream ${jobs.state.messages} waiting (max ${cap(jobs.config.max_bytes, bytes)})`,
    `file store ${bytes(status.size)} (max ${cap(status.streamInfo.config.max_bytes, bytes)})`,
    `message max ${bytes(nc.info?.max_payload ?? 0)}`,
    `lease ${(consumer.config.ack_wait ?? 0) / NANOS_PER_S}s`,
  ].join(", ");
  return { nc, js, jsm, files, limits };
}

async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  cfg: Partial<StreamConfig>,
) {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (!/not found/i.test((err as Error).message)) throw err;
    return await jsm.streams.add({ name, ...cfg });
  }
}

async function ensureConsumer(jsm: JetStreamManager, leaseS: number | undefined) {
  const ackWait = Math.round((leaseS ?? 30) * NANOS_PER_S);
  try {
    const info = await jsm.consumers.info(JOBS_STREAM, JOBS_CONSUMER);
    // The lease is the consumer's: a node given --lease sets it for every node.
    if (leaseS !== undefined && info.config.ack_wait !== ackWait) {
      await jsm.consumers.update(JOBS_STREAM, JOBS_CONSUMER, { ack_wait: ackWait });
    }
  } catch (err) {
    if (!/not found/i.test((err as Error).message)) throw err;
    await jsm.consumers.add(JOBS_STREAM, {
      durable_name: JOBS_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ackWait,
      // Poison jobs are ended by the nodes (see Job.max_deliveries), which can say why.
      max_deliver: -1,
      max_ack_pending: 10_000,
    });
  }
}

function cap(n: number | undefined, fmt: (n: number) => string): string {
  return n === undefined || n < 0 ? "unlimited" : fmt(n);
}

/** A byte count for people. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
