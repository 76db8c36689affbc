/**
 * Prints `remcp run` records on stdout in the form asked for (NDJSON as they come, one JSON array
 * at the end in input order, or a single file's bare result) and turns them into the exit status:
 * 0 all succeeded, 1 a script failed, 2 an input could not be opened, 130 cancelled. Local and
 * cluster runs print through this, so their output is the same.
 */
import type { FileResult } from "./file_job.ts";
import type { OutputMode } from "./run_args.ts";

/** Collects records and prints them. */
export interface RecordOutput {
  /** Prints (NDJSON) or keeps record `r` of input `index`. */
  emit(index: number, r: FileResult): void;
  /** Prints what waits for the end; resolves to the exit status for `expected` records. */
  finish(expected: number, cancelled: boolean): number;
  readonly count: number;
}

/** An output for `mode`. */
export function createRecordOutput(mode: OutputMode): RecordOutput {
  // Indexed by input position, so --json prints in input order whatever order files finish in.
  const results: (FileResult | undefined)[] = [];
  let count = 0;
  return {
    emit(index, r) {
      results[index] = r;
      count++;
      if (mode === "ndjson") console.log(JSON.stringify(r));
    },
    get count() {
      return count;
    },
    finish(expected, cancelled) {
      const done = results.filter((r) => r !== undefined);
      if (mode === "json") console.log(JSON.stringify(done, null, 2));
      if (mode === "single") {
        const r = done[0];
        if (r?.logs) {
          Deno.stderr.writeSync(
            new TextEncoder().encode(r.logs.endsWith("\n") ? r.logs : r.logs + "\n"),
          );
        }
        if (r?.ok) console.log(JSON.stringify(r.result, null, 2));
        else if (r) console.error(`remcp run: ${r.error?.error_type}: ${r.error?.message}`);
      }
      if (cancelled) return 130;
      if (done.some((r) => r.error?.error_type === "OpenFailed")) return 2;
      return done.every((r) => r.ok) && done.length === expected ? 0 : 1;
    },
  };
}
