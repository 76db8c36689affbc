/**
 * One file of `remcp run`: open it, wait for analysis, run the script in the sandbox, close it,
 * and shape the outcome as the record printed. Local runs and cluster nodes both call this, so
 * a record means the same wherever the file ran.
 */
import { z } from "zod";
import { RemcpError, toErrorPayload } from "../errors.ts";
import { runScript } from "../meta/run_script.ts";
import { resultValue } from "../protocol/results.ts";
import type { CallContext, Host } from "../supervisor/host.ts";

/** One file's outcome as printed (the schema a cluster's records are checked against). */
export const FileResultSchema = z.strictObject({
  file: z.string(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.strictObject({
    error_type: z.string(),
    message: z.string(),
    detail: z.record(z.string(), z.unknown()).optional(),
  }).optional(),
  logs: z.string().optional(),
  seconds: z.number(),
});
/** One record. */
export type FileResult = z.output<typeof FileResultSchema>;

/** One job: the script and the file it runs over. */
export interface FileJob {
  code: string;
  /** The file to open; none runs the script alone. */
  path: string | undefined;
  /** The name the record and the script's `file` global show (the path on a cluster node is a
   * cache entry, the label is the submitter's path). */
  label: string;
  timeoutS: number;
  backend?: string | undefined;
  /** Return the file's annotations as an export_annotations JSON document. */
  exportAnnotations?: boolean;
  /**
   * A second file (`remcp run --pair`): both are opened and the script sees them as databases
   * `a` (path) and `b` (this), with `file_a`/`file_b`, and no default database.
   */
  pairWith?: string | undefined;
}

/** A record plus what a cluster sends beside it. */
export interface FileOutcome {
  record: FileResult;
  /** export_annotations JSON, when asked for and the file has annotations. */
  annotations?: string;
}

/** Runs one job; never throws (a failure is a record with `ok: false`). */
export async function runFileJob(
  sup: Host,
  ctx: CallContext,
  job: FileJob,
): Promise<FileOutcome> {
  const started = performance.now();
  let database: string | undefined;
  const opened: string[] = [];
  let annotations: string | undefined;
  let record: FileResult;
  try {
    const open = async (path: string): Promise<string> => {
      const o = await sup.callTool("open_database", {
        path,
        force_new: true,
        ...(job.backend !== undefined ? { backend: job.backend } : {}),
      }, ctx);
      const id = String(resultValue(o, "open_database").database);
      opened.push(id);
      const w = await sup.callTool(
        "wait_for_analysis",
        { database: id, timeout: job.timeoutS },
        ctx,
      );
      resultValue(w, "wait_for_analysis");
      return id;
    };
    if (job.path !== undefined) database = await open(job.path);
    const other = job.pairWith !== undefined ? await open(job.pairWith) : undefined;
    const r = await runScript(sup, ctx, {
      code: job.code,
      database: other === undefined ? database : undefined,
      timeoutMs: job.timeoutS * 1000,
      ...(other !== undefined
        ? { globals: { a: database!, b: other, file_a: job.path!, file_b: job.pairWith! } }
        : job.path !== undefined
        ? { globals: { file: job.label } }
        : {}),
    });
    record = {
      file: job.label,
      ok: true,
      result: r.result ?? null,
      ...(r.logs ? { logs: r.logs } : {}),
      seconds: secs(started),
    };
  } catch (err) {
    record = failedRecord(
      job.label,
      ctx.signal.aborted ? new RemcpError("Cancelled", "Interrupted", {}) : err,
      secs(started),
    );
  }
  try {
    // A script that failed half-way may still have renamed things: those come back too, as a
    // local run would have kept them in the store.
    if (job.exportAnnotations && database !== undefined) {
      const x = await sup.callTool("export_annotations", { database, format: "json" }, ctx);
      const doc = resultValue(x, "export_annotations");
      if (Number(doc.count) > 0) annotations = String(doc.document);
    }
    return { record, ...(annotations !== undefined ? { annotations } : {}) };
  } catch (err) {
    return { record: record.ok ? failedRecord(job.label, err, secs(started)) : record };
  } finally {
    for (const id of opened) {
      await sup.callTool("close_database", { database: id, force: true }, ctx).catch(() => {});
    }
  }
}

/** The record of a file that failed with `err`. */
export function failedRecord(file: string, err: unknown, seconds: number): FileResult {
  const p = toErrorPayload(err);
  return {
    file,
    ok: false,
    error: {
      error_type: p.error_type,
      message: p.error,
      ...(Object.keys(p.detail).length ? { detail: p.detail } : {}),
    },
    seconds,
  };
}

function secs(started: number): number {
  return Math.round(performance.now() - started) / 1000;
}
