/**
 * Prints `remcp run` records on stdout in the form asked for (NDJSON as they come, one JSON array
 * at the end, or a single file's bare result) and turns them into the exit status. Local and
 * cluster runs print through this, so their output is the same.
 */
import type { FileResult } from "./file_job.ts";
import type { OutputMode } from "./run_args.ts";

/** Collects records and prints them. */
export interface RecordOutput {
  emit(r: FileResult): void;
  /** Prints what waits for the end; resolves to the exit status for `expected` records. */
  finish(expected: number, cancelled: boolean): number;
  readonly count: number;
}

/** An output for `mode`. */
export function createRecordOutput(mode: OutputMode): RecordOutput {
  const results: FileResult[] = [];
  return {
    emit(r) {
      results.push(r);
      if (mode === "ndjson") console.log(JSON.stringify(r));
    },
    get count() {
      return results.length;
    },
    finish(expected, cancelled) {
      if (mode === "json") console.log(JSON.stringify(results, null, 2));
      if (mode === "single") {
        const r = results[0];
        if (r?.logs) {
          Deno.stderr.writeSync(
            new TextEncoder().encode(r.logs.endsWith("\n") ? r.logs : r.logs + "\n"),
          );
        }
        if (r?.ok) console.log(JSON.stringify(r.result, null, 2));
        else if (r) console.error(`remcp run: ${r.error?.error_type}: ${r.error?.message}`);
      }
      if (cancelled) return 130;
      return results.every((r) => r.ok) && results.length === expected ? 0 : 1;
    },
  };
}
