/**
 * The flags `remcp run` takes, local or on a cluster (`--nats`), checked once: the script, the
 * files, the limits and the output form.
 */
import { availableParallelism } from "node:os";
import type { ParseArgsConfig } from "node:util";

/** The usage text of `remcp run`. */
export const RUN_USAGE = "usage: remcp run SCRIPT.js [FILES…] | remcp run -e CODE [FILES…]\n" +
  "  [--backend B] [--jobs N] [--timeout S] [--json | --ndjson] [--quiet] [--allow-write]\n" +
  "       remcp run --pair SCRIPT.js OLD NEW [OLD NEW…]   (globals a, b: database ids)\n" +
  "  [--nats URL [cluster flags, see remcp --help]]";

/** parseArgs options of `remcp run` (the cluster adds its own beside them). */
export const RUN_OPTIONS = {
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
} as const satisfies ParseArgsConfig["options"];

/** How records are printed: one value, NDJSON lines, or one JSON array at the end. */
export type OutputMode = "single" | "ndjson" | "json";

/** A checked `remcp run` command line. */
export interface RunArgs {
  code: string;
  /** The script's path, or "-e". */
  scriptName: string;
  files: string[];
  jobs: number;
  timeoutS: number;
  output: OutputMode;
  quiet: boolean;
  backend: string | undefined;
  allowWrite: boolean;
  allowScripts: boolean;
  /** Files come two at a time (OLD NEW): each run sees both, as databases `a` and `b`. */
  pair: boolean;
}

/** The parsed values {@link checkRunArgs} reads. */
export interface RunValues {
  e?: string | undefined;
  backend?: string | undefined;
  jobs?: string | undefined;
  timeout?: string | undefined;
  json?: boolean | undefined;
  ndjson?: boolean | undefined;
  quiet?: boolean | undefined;
  "allow-write"?: boolean | undefined;
  "allow-scripts"?: boolean | undefined;
  pair?: boolean | undefined;
}

/** Checks the values and reads the script; resolves to the arguments or a usage message. */
export async function checkRunArgs(
  v: RunValues,
  positionals: readonly string[],
): Promise<RunArgs | string> {
  const files = [...positionals];
  let code: string;
  let scriptName: string;
  if (v.e !== undefined) {
    code = v.e;
    scriptName = "-e";
  } else {
    const script = files.shift();
    if (!script) return "missing SCRIPT.js (or -e CODE)";
    try {
      code = await Deno.readTextFile(script);
    } catch (err) {
      return `cannot read script ${script}: ${(err as Error).message}`;
    }
    scriptName = script;
  }
  if (v.json && v.ndjson) return "--json and --ndjson exclude each other";
  const jobs = v.jobs !== undefined ? Number(v.jobs) : availableParallelism();
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 256) return "--jobs takes 1 to 256";
  const timeoutS = v.timeout !== undefined ? Number(v.timeout) : 600;
  if (!(timeoutS > 0 && timeoutS <= 86_400)) return "--timeout takes seconds, > 0";
  if (v.pair && (files.length === 0 || files.length % 2 !== 0)) {
    return "--pair takes files two at a time: OLD NEW [OLD NEW…]";
  }
  return {
    code,
    scriptName,
    files,
    jobs,
    timeoutS,
    output: v.json ? "json" : v.ndjson || files.length > (v.pair ? 2 : 1) ? "ndjson" : "single",
    quiet: !!v.quiet,
    backend: v.backend,
    allowWrite: !!v["allow-write"],
    allowScripts: !!v["allow-scripts"],
    pair: !!v.pair,
  };
}
