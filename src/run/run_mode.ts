/**
 * `remcp run SCRIPT.js [FILES…]`: runs an execute script over files from the shell, with no MCP
 * client: the supervisor's pool and sandbox run in-process. Results go to stdout (one JSON value,
 * NDJSON in the order files finish, or a JSON array in input order), progress to stderr. An input
 * that cannot be opened (missing, unreadable, not a regular file, not a binary) gets its own
 * `OpenFailed` record and the rest of the batch runs. Exit 0 when every file succeeded, 1 when a
 * script failed, 2 for bad usage or when an input could not be opened.
 */
import { parseArgs } from "node:util";
import { availableParallelism } from "node:os";
import type { Config } from "../config.ts";
import { RemcpError, toErrorPayload } from "../errors.ts";
import { createLogger, stderrSink } from "../log.ts";
import { runScript } from "../meta/run_script.ts";
import { resultValue } from "../protocol/results.ts";
import { createSupervisor } from "../supervisor/create.ts";
import type { CallContext } from "../supervisor/host.ts";
import { createProgress, stderrProgressSink } from "./progress.ts";

/** One file's outcome as printed. */
export interface FileResult {
  file: string;
  ok: boolean;
  result?: unknown;
  error?: { error_type: string; message: string; detail?: Record<string, unknown> };
  logs?: string;
  seconds: number;
}

const USAGE = "usage: remcp run SCRIPT.js [FILES…] | remcp run -e CODE [FILES…]\n" +
  "       remcp run --pair SCRIPT.js OLD NEW [OLD NEW…]   (globals a, b: database ids)\n" +
  "  [--backend B] [--jobs N] [--timeout S] [--json | --ndjson] [--quiet] [--allow-write]";

/** Runs the mode; resolves to the exit status. */
export async function runMode(config: Config, argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        e: { type: "string", short: "e" },
        backend: { type: "string" },
        jobs: { type: "string" },
        timeout: { type: "string" },
        json: { type: "boolean" },
        ndjson: { type: "boolean" },
        quiet: { type: "boolean", short: "q" },
        "allow-write": { type: "boolean" },
        "allow-scripts": { type: "boolean" },
        pair: { type: "boolean" },
      },
      allowPositionals: true,
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const v = parsed.values;
  const positionals = [...parsed.positionals];
  let code: string;
  let scriptName: string;
  if (v.e !== undefined) {
    code = v.e;
    scriptName = "-e";
  } else {
    const script = positionals.shift();
    if (!script) return usage("missing SCRIPT.js (or -e CODE)");
    try {
      code = await Deno.readTextFile(script);
    } catch (err) {
      return usage(`cannot read script ${script}: ${(err as Error).message}`);
    }
    scriptName = script;
  }
  if (v.json && v.ndjson) return usage("--json and --ndjson exclude each other");
  if (v.pair && (positionals.length === 0 || positionals.length % 2 !== 0)) {
    return usage("--pair takes files two at a time: OLD NEW [OLD NEW…]");
  }
  const jobs = v.jobs !== undefined ? Number(v.jobs) : availableParallelism();
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 256) return usage("--jobs takes 1 to 256");
  const timeoutS = v.timeout !== undefined ? Number(v.timeout) : 600;
  if (!(timeoutS > 0 && timeoutS <= 86_400)) return usage("--timeout takes seconds, > 0");
  const cfg: Config = {
    ...config,
    ...(v.backend ? { defaultBackend: v.backend } : {}),
    ...(v["allow-write"] ? { allowWrite: true } : {}),
    ...(v["allow-scripts"] ? { allowScripts: true } : {}),
    // The pool holds one worker per open file (two per job with --pair).
    maxWorkers: Math.max(config.maxWorkers, jobs * 2),
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

  // A job is the files one run of the script sees: none, one, or an OLD/NEW pair.
  const jobsList: string[][] = positionals.length === 0
    ? [[]]
    : v.pair
    ? positionals.flatMap((f, i) => i % 2 === 0 ? [[f, positionals[i + 1]!]] : [])
    : positionals.map((f) => [f]);
  const mode = v.json ? "json" : v.ndjson || jobsList.length > 1 ? "ndjson" : "single";
  const progress = createProgress(
    jobsList.length,
    stderrProgressSink,
    !!v.quiet || mode === "single",
  );
  // Indexed by input position, so --json prints in input order whatever order files finish in.
  const results: (FileResult | undefined)[] = [];
  const emit = (index: number, r: FileResult) => {
    results[index] = r;
    if (mode === "ndjson") console.log(JSON.stringify(r));
  };
  const ctxFor = (session: string): CallContext => ({
    session,
    signal: abort.signal,
    progress: () => {},
    via: "client",
  });

  /** Opens a file for a job and waits for its analysis; returns its database id. */
  const openOne = async (file: string, ctx: CallContext): Promise<string> => {
    const o = await sup.callTool("open_database", { path: file, force_new: true }, ctx);
    const database = String(resultValue(o, "open_database").database);
    const w = await sup.callTool("wait_for_analysis", { database, timeout: timeoutS }, ctx);
    if (w.isError) {
      await sup.callTool("close_database", { database, force: true }, ctx).catch(() => {});
      resultValue(w, "wait_for_analysis");
    }
    return database;
  };

  const one = async (files: string[]): Promise<FileResult> => {
    const started = performance.now();
    const ctx = ctxFor(`run-${crypto.randomUUID().slice(0, 8)}`);
    const label = files.length === 0 ? scriptName : files.join(" -> ");
    const opened: string[] = [];
    try {
      for (const f of files) opened.push(await openOne(f, ctx));
      const [a, b] = opened;
      const r = await runScript(sup, ctx, {
        code,
        database: files.length === 1 ? a : undefined,
        timeoutMs: timeoutS * 1000,
        globals: files.length === 2
          ? { a: a!, b: b!, file_a: files[0]!, file_b: files[1]! }
          : files.length === 1
          ? { file: files[0]! }
          : {},
      });
      return {
        file: label,
        ok: true,
        result: r.result ?? null,
        ...(r.logs ? { logs: r.logs } : {}),
        seconds: secs(started),
      };
    } catch (err) {
      const p = toErrorPayload(
        abort.signal.aborted ? new RemcpError("Cancelled", "Interrupted", {}) : err,
      );
      return {
        file: label,
        ok: false,
        error: {
          error_type: p.error_type,
          message: p.error,
          ...(Object.keys(p.detail).length ? { detail: p.detail } : {}),
        },
        seconds: secs(started),
      };
    } finally {
      for (const database of opened) {
        await sup.callTool("close_database", { database, force: true }, ctx).catch(() => {});
      }
    }
  };

  const queue = jobsList;
  let next = 0;
  const worker = async () => {
    while (next < queue.length && !abort.signal.aborted) {
      const index = next++;
      const files = queue[index]!;
      progress.start(files.length === 0 ? scriptName : files.join(" -> "));
      const r = await one(files);
      progress.done(r.file, r.ok);
      if (!abort.signal.aborted || r.ok) emit(index, r);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker));
  } finally {
    progress.finish();
    Deno.removeSignalListener("SIGINT", onSigint);
    Deno.removeSignalListener("SIGTERM", onSigint);
    await sup.shutdown();
  }
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
  if (abort.signal.aborted) return 130;
  if (done.some((r) => r.error?.error_type === "OpenFailed")) return 2;
  return done.every((r) => r.ok) && done.length === queue.length ? 0 : 1;
}

function secs(started: number): number {
  return Math.round(performance.now() - started) / 1000;
}

function usage(message: string): number {
  console.error(`remcp run: ${message}\n${USAGE}`);
  return 2;
}
