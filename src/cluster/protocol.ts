/**
 * What travels through NATS between `remcp run --nats` and `remcp node`: the stream, consumer and
 * bucket names, and the job and result messages (zod schemas, parsed once where they arrive).
 */
import { z } from "zod";
import { FileResultSchema } from "../run/file_job.ts";

/** Work-queue stream of jobs; one subject per submission (`remcp.jobs.<submission>`). */
export const JOBS_STREAM = "REMCP_JOBS";
/** The durable pull consumer every node shares, so each job goes to one node at a time. */
export const JOBS_CONSUMER = "remcp-nodes";
/** Stream of results; each submitter reads its own subject (`remcp.results.<submission>`). */
export const RESULTS_STREAM = "REMCP_RESULTS";
/** Object store of binaries (named by SHA-256) and scripts (`script-<sha256>`). */
export const FILES_BUCKET = "remcp-files";

/** The subject a submission's jobs are published on. */
export function jobSubject(submission: string): string {
  return `remcp.jobs.${submission}`;
}

/** The subject a submission's results come back on. */
export function resultSubject(submission: string): string {
  return `remcp.results.${submission}`;
}

/** The object-store name of a script. */
export function scriptObject(sha256: string): string {
  return `script-${sha256}`;
}

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const Token = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** One file to run one script over. A job carries a script for the sandbox, never a command. */
export const JobSchema = z.strictObject({
  v: z.literal(1),
  submission: Token,
  index: z.number().int().min(0),
  /** The submitter's path: the record's `file` and the script's `file` global. */
  file: z.string().max(4096),
  /** The binary in the object store; null runs the script with no file. */
  sha256: Sha256.nullable(),
  script: Sha256,
  timeout_s: z.number().positive().max(86_400),
  backend: z.string().max(64).optional(),
  /** Deliveries after which the job is recorded as failed instead of run again. */
  max_deliveries: z.number().int().min(1).max(100),
  /** Send the file's annotations back as an export_annotations document. */
  annotations: z.boolean(),
});
/** A parsed job. */
export type Job = z.output<typeof JobSchema>;

/** A node's message about one job of a submission. */
export const ResultSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("started"),
    index: z.number().int().min(0),
    node: z.string(),
    delivery: z.number().int(),
  }),
  z.strictObject({
    kind: z.literal("record"),
    index: z.number().int().min(0),
    node: z.string(),
    record: FileResultSchema,
    annotations: z.string().optional(),
  }),
  /** A record too large for one NATS message waits in the object store under `object`. */
  z.strictObject({
    kind: z.literal("spilled"),
    index: z.number().int().min(0),
    node: z.string(),
    object: z.string(),
  }),
]);
/** A parsed result message. */
export type ResultMessage = z.output<typeof ResultSchema>;

/** The object store's digest string of content whose SHA-256 is `sha256` (hex). */
export function objectDigest(sha256: string): string {
  const raw = Uint8Array.from(sha256.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  const b64 = btoa(String.fromCharCode(...raw)).replace(/\+/g, "-").replace(/\//g, "_");
  return `SHA-256=${b64}`;
}
