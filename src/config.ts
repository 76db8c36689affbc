/**
 * Configuration from `REMCP_*` environment variables and command-line flags, with defaults.
 * Every variable is listed in {@link ENV_VARS} (shown by `remcp --help` and the README).
 */
import { join } from "node:path";
import { DEFAULT_MAX_OUTPUT_BYTES } from "./protocol/results.ts";
import { type LogLevel, parseLogLevel } from "./log.ts";

/** Effective configuration of one remcp process. */
export interface Config {
  maxOutputBytes: number;
  maxWorkers: number;
  logLevel: LogLevel;
  logDir: string | undefined;
  stateDir: string;
  /** List only pinned tools plus meta-tools (REMCP_TOOL_SEARCH, default on). */
  toolSearch: boolean;
  disableExecute: boolean;
  disableBatch: boolean;
  allowWrite: boolean;
  allowScripts: boolean;
  defaultBackend: string;
  idleTimeoutS: number;
  rizinPath: string | undefined;
  python: string;
  /** Validate every tool result against its output schema (for tests). */
  checkOutput: boolean;
  /** Wall-clock limit of one worker call, in seconds. */
  callTimeoutS: number;
  /** Wall-clock budget of one database's analysis, in seconds. */
  analysisTimeoutS: number;
  /** Folder of script tools loaded at start, and where define_tool persists (REMCP_TOOLS_DIR). */
  toolsDir: string | undefined;
  /** Resident size past which a worker is ended, in MiB; 0 for none. */
  workerMemoryMb: number;
  /** Largest file (its size on disk) the embedded backend opens, in MiB; 0 for none. */
  maxFileMb: number;
  /**
   * Most bytes of a file the embedded backend holds in memory (loaded segments, the tables it
   * reads), in MiB; 0 for none. Raw blobs and debug sections are read on demand and not counted.
   */
  maxHeldMb: number;
  /** The folder tree open_database is confined to (REMCP_ROOT, --root); undefined: anywhere. */
  root: string | undefined;
  /** Where `execute` scripts run: a child process, or a thread of this one (REMCP_SANDBOX). */
  sandbox: SandboxKind;
  /** How this process's stdin and stdout are read and written (REMCP_STDIO). */
  stdio: StdioKind;
  /**
   * Whether `execute`'s invokes may reach a worker straight from the sandbox process once the
   * dispatcher granted a lane (REMCP_LANES; docs/ARCHITECTURE.md section 2).
   */
  lanes: boolean;
}

/** The two homes of the `execute` sandbox. */
export const SANDBOX_KINDS = ["process", "thread"] as const;
/** One of {@link SANDBOX_KINDS}. */
export type SandboxKind = typeof SANDBOX_KINDS[number];

/**
 * How a server reads its stdin and writes its stdout: `auto` serves sockets and pipes from the
 * event loop (Linux), `stream` always uses Deno's stdio, which reads through a blocking thread.
 */
export const STDIO_KINDS = ["auto", "stream"] as const;
/** One of {@link STDIO_KINDS}. */
export type StdioKind = typeof STDIO_KINDS[number];

/** Each variable, its default and what it does. */
export const ENV_VARS: readonly { name: string; default: string; help: string }[] = [
  {
    name: "REMCP_BACKEND",
    default: "embedded",
    help: "backend used when open_database names none",
  },
  { name: "REMCP_MAX_WORKERS", default: "16", help: "most databases open at once" },
  { name: "REMCP_MAX_OUTPUT_BYTES", default: "131072", help: "cap on one result's JSON size" },
  { name: "REMCP_TOOL_SEARCH", default: "1", help: "0 lists every tool instead of pinned + meta" },
  { name: "REMCP_DISABLE_EXECUTE", default: "0", help: "1 hides the execute tool" },
  { name: "REMCP_DISABLE_BATCH", default: "0", help: "1 hides the batch tool" },
  {
    name: "REMCP_ALLOW_WRITE",
    default: "0",
    help: "reserved for tools that write the file (none exists yet)",
  },
  { name: "REMCP_ALLOW_SCRIPTS", default: "0", help: "1 enables raw engine commands/scripts" },
  { name: "REMCP_STATE_DIR", default: "platform state folder", help: "databases, daemon state" },
  { name: "REMCP_LOG_LEVEL", default: "info", help: "error, warn, info or debug" },
  { name: "REMCP_LOG_DIR", default: "(none)", help: "per-run log files, raw worker stderr" },
  { name: "REMCP_IDLE_TIMEOUT", default: "300", help: "seconds before an idle auto daemon exits" },
  { name: "REMCP_CALL_TIMEOUT", default: "600", help: "seconds one worker call may take" },
  { name: "REMCP_ANALYSIS_TIMEOUT", default: "3600", help: "seconds one analysis may take" },
  { name: "REMCP_RIZIN", default: "rizin on PATH", help: "path of the rizin binary" },
  { name: "REMCP_PYTHON", default: "python3", help: "interpreter for Python workers" },
  { name: "REMCP_CHECK_OUTPUT", default: "0", help: "1 checks every result against its schema" },
  { name: "REMCP_TOOLS_DIR", default: "(none)", help: "folder of script tools (--tools-dir)" },
  { name: "REMCP_WORKER_MEMORY_MB", default: "4096", help: "memory one worker may use; 0: any" },
  { name: "REMCP_MAX_FILE_MB", default: "1024", help: "largest file the embedded backend opens" },
  {
    name: "REMCP_MAX_HELD_MB",
    default: "1024",
    help: "most of a file the embedded backend holds in memory",
  },
  {
    name: "REMCP_ROOT",
    default: "(anywhere)",
    help: "open_database only under this folder (--root)",
  },
  {
    name: "REMCP_SANDBOX",
    default: "process",
    help: "execute sandbox: process, or thread (a permission-less worker) (--sandbox)",
  },
  {
    name: "REMCP_LANES",
    default: "1",
    help: "0 sends every execute invoke through the supervisor (no sandbox-to-worker lanes)",
  },
  {
    name: "REMCP_STDIO",
    default: "auto",
    help: "stream reads stdin through Deno's stdio instead of the event loop",
  },
  {
    name: "REMCP_DEBUG_ANALYSIS_DELAY_MS",
    default: "0",
    help: "debugging aid: hold a new database in analysing this long",
  },
  {
    name: "REMCP_DEBUG_DECOMPILER_TIER",
    default: "(none)",
    help: "benchmark aid: simplified or last-resort forces that decompiler tier",
  },
];

type Env = Record<string, string | undefined>;

function flag(env: Env, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === "") return fallback;
  return !["0", "false", "no", "off"].includes(v.toLowerCase());
}

function int(env: Env, name: string, fallback: number, min: number): number {
  const v = env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    throw new RangeError(`${name} must be an integer ≥ ${min}, got "${v}"`);
  }
  return n;
}

/** Reads a sandbox kind; anything else is a RangeError naming the choices. */
export function sandboxKind(value: string | undefined, from = "REMCP_SANDBOX"): SandboxKind {
  if (value === undefined || value === "") return "process";
  const kind = SANDBOX_KINDS.find((k) => k === value.toLowerCase());
  if (!kind) throw new RangeError(`${from} must be process or thread, got "${value}"`);
  return kind;
}

/** Reads a stdio kind; anything else is a RangeError naming the choices. */
export function stdioKind(value: string | undefined): StdioKind {
  if (value === undefined || value === "") return "auto";
  const kind = STDIO_KINDS.find((k) => k === value.toLowerCase());
  if (!kind) throw new RangeError(`REMCP_STDIO must be auto or stream, got "${value}"`);
  return kind;
}

/** The platform's state folder for remcp. */
export function defaultStateDir(env: Env, os: string = Deno.build.os): string {
  if (env.REMCP_STATE_DIR) return env.REMCP_STATE_DIR;
  const home = env.HOME ?? env.USERPROFILE ?? ".";
  if (os === "darwin") return join(home, "Library", "Application Support", "remcp");
  if (os === "windows") return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "remcp");
  return join(env.XDG_STATE_HOME ?? join(home, ".local", "state"), "remcp");
}

/** Reads the configuration from `env`, overridden by command-line `overrides`. */
export function loadConfig(env: Env, overrides: Partial<Config> = {}): Config {
  const config: Config = {
    maxOutputBytes: int(env, "REMCP_MAX_OUTPUT_BYTES", DEFAULT_MAX_OUTPUT_BYTES, 1024),
    maxWorkers: int(env, "REMCP_MAX_WORKERS", 16, 1),
    logLevel: parseLogLevel(env.REMCP_LOG_LEVEL),
    logDir: env.REMCP_LOG_DIR || undefined,
    stateDir: defaultStateDir(env),
    toolSearch: flag(env, "REMCP_TOOL_SEARCH", true),
    disableExecute: flag(env, "REMCP_DISABLE_EXECUTE", false),
    disableBatch: flag(env, "REMCP_DISABLE_BATCH", false),
    allowWrite: flag(env, "REMCP_ALLOW_WRITE", false),
    allowScripts: flag(env, "REMCP_ALLOW_SCRIPTS", false),
    defaultBackend: env.REMCP_BACKEND || "embedded",
    idleTimeoutS: int(env, "REMCP_IDLE_TIMEOUT", 300, 1),
    rizinPath: env.REMCP_RIZIN || undefined,
    python: env.REMCP_PYTHON || "python3",
    checkOutput: flag(env, "REMCP_CHECK_OUTPUT", false),
    callTimeoutS: int(env, "REMCP_CALL_TIMEOUT", 600, 1),
    analysisTimeoutS: int(env, "REMCP_ANALYSIS_TIMEOUT", 3600, 1),
    toolsDir: env.REMCP_TOOLS_DIR || undefined,
    workerMemoryMb: int(env, "REMCP_WORKER_MEMORY_MB", 4096, 0),
    maxFileMb: int(env, "REMCP_MAX_FILE_MB", 1024, 0),
    maxHeldMb: int(env, "REMCP_MAX_HELD_MB", 1024, 0),
    root: env.REMCP_ROOT || undefined,
    sandbox: sandboxKind(env.REMCP_SANDBOX),
    stdio: stdioKind(env.REMCP_STDIO),
    lanes: flag(env, "REMCP_LANES", true),
  };
  return { ...config, ...overrides };
}

/** The version remcp reports. */
export const VERSION = "0.1.0";
