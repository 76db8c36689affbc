/**
 * `remcp run SCRIPT.js [FILES…]`: runs an execute script over files from the shell, with no MCP
 * client: the supervisor's pool and sandbox run in-process. Results go to stdout (one JSON value,
 * NDJSON in the order files finish, or a JSON array in input order), progress to stderr. An input
 * that cannot be opened (missing, unreadable, not a regular file, not a binary) gets its own
 * `OpenFailed` record and the rest of the batch runs. Exit 0 when every file succeeded, 1 when a
 * script failed, 2 for bad usage or when an input could not be opened. With `--nats URL` the
 * files run on a cluster instead.
 */
import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { createLogger, stderrSink } from "../log.ts";
import { createSupervisor } from "../supervisor/create.ts";
import { runFileJob } from "./file_job.ts";
import { createProgress, stderrProgressSink } from "./progress.ts";
import { createRecordOutput } from "./records.ts";
import { checkRunArgs, RUN_OPTIONS, RUN_USAGE } from "./run_args.ts";

/** Runs the mode; resolves to the exit status. */
export async function runMode(config: Config, argv: string[]): Promise<number> {
  if (argv.some((a) => a === "--nats" || a.startsWith("--nats="))) {
    const { submitMode } = await import("../cluster/submit_mode.ts");
    return await submitMode(config, argv);
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: true });
  } catch (err) {
    return usage((err as Error).message);
  }
  const a = await checkRunArgs(parsed.values, parsed.positionals);
  if (typeof a === "string") return usage(a);

  const cfg: Config = {
    ...config,
    ...(a.backend ? { defaultBackend: a.backend } : {}),
    ...(a.allowWrite ? { allowWrite: true } : {}),
    ...(a.allowScripts ? { allowScripts: true } : {}),
    // The pool holds one worker per open file (two per job with --pair).
    maxWorkers: Math.max(config.maxWorkers, a.pair ? a.jobs * 2 : a.jobs),
    logLevel: config.logLevel === "info" ? "warn" : config.logLevel,
  };
  const log = createLogger("run", stderrSink(cfg.logLevel, cfg.logDir, "run"));
  const sup = createSupervisor(cfg, log, {
    noDatabaseHint: "name the files after the script (remcp run SCRIPT.js FILES…)",
  });
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  Deno.addSignalListener("SIGINT", onSigint);
  Deno.addSignalListener("SIGTERM", onSigint);

  // A job is what one run of the script sees: no file, one file, or an OLD/NEW pair.
  const queue: (string[] | undefined)[] = a.files.length === 0
    ? [undefined]
    : a.pair
    ? a.files.flatMap((f, i) => i % 2 === 0 ? [[f, a.files[i + 1]!]] : [])
    : a.files.map((f) => [f]);
  const progress = createProgress(
    queue.length,
    stderrProgressSink,
    a.quiet || a.output === "single",
  );
  const out = createRecordOutput(a.output);
  let next = 0;
  const worker = async () => {
    while (next < queue.length && !abort.signal.aborted) {
      const index = next++;
      const files = queue[index];
      const label = files ? files.join(" -> ") : a.scriptName;
      progress.start(label);
      const { record } = await runFileJob(sup, {
        session: `run-${crypto.randomUUID().slice(0, 8)}`,
        signal: abort.signal,
        progress: () => {},
        via: "client",
      }, {
        code: a.code,
        path: files?.[0],
        pairWith: files?.[1],
        label,
        timeoutS: a.timeoutS,
      });
      progress.done(record.file, record.ok);
      if (!abort.signal.aborted || record.ok) out.emit(index, record);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(a.jobs, queue.length) }, worker));
  } finally {
    progress.finish();
    Deno.removeSignalListener("SIGINT", onSigint);
    Deno.removeSignalListener("SIGTERM", onSigint);
    await sup.shutdown();
  }
  return out.finish(queue.length, abort.signal.aborted);
}

function usage(message: string): number {
  console.error(`remcp run: ${message}\n${RUN_USAGE}`);
  return 2;
}
