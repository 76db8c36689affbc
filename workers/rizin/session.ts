/**
 * A live rizin for one database: starts `rizin -q0`, configures and analyses it, runs commands
 * with a timeout, judges each command's success from its output and stderr (and `_sj` where the
 * rizin has it), and restarts a rizin that timed out or died — redoing the analysis — while the
 * failed call says so.
 */
import { type ErrorCode, RemcpError } from "../../src/errors.ts";
import type { Logger } from "../../src/log.ts";
import type { AnalysisStatus } from "../backend.ts";
import type { RizinVersion } from "../../src/probes/rizin.ts";
import { PipeDead, type PipeSpawner, RizinPipe } from "./pipe.ts";

/** How much analysis to run at open. */
export type AnalysisLevel = "none" | "aa" | "aaa" | "aaaa";

/** An advisory warning, as results carry them. */
export interface Warning {
  code: string;
  message: string;
}

/** What a session needs. */
export interface SessionOptions {
  binary: string;
  path: string;
  version: RizinVersion;
  /** Timeout of one command. */
  timeoutMs: number;
  /** Timeout of the analysis at open. */
  analysisTimeoutMs: number;
  analysis: AnalysisLevel;
  log: Logger;
  spawn?: PipeSpawner;
  /** Extra rizin flags (e.g. `-a`/`-b`/`-m` for raw files). */
  extraArgs?: readonly string[];
  /** Runs after each (re)start, before analysis: reads what needs no analysis. */
  beforeAnalysis: (c: Conn) => Promise<void>;
  /** Runs after each (re)start's analysis: recovers main, replays annotations. */
  prepare: (c: Conn) => Promise<void>;
}

/** One command's judged result. */
export interface CmdResult {
  output: string;
  /** Messages that report an error. */
  errors: string[];
  /** Other messages (warnings, info). */
  notes: string[];
  failed: boolean;
}

/** Settings that make results depend only on the query. */
const SETUP = [
  "e scr.color=0",
  "e scr.interactive=false",
  "e scr.prompt=false",
  "e scr.utf8=false",
  "e scr.utf8.curvy=false",
  "e search.flags=false",
  "e search.maxhits=0",
  "e rop.sdb=false",
  "e rop.db=false",
];

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** Commands that exist only in some versions; errors from them are expected. */
const OPTIONAL_SETUP = ["e rop.cache=false"];

// The stderr fence for rizins without `_sj`: seeking to an unknown flag logs exactly one error
// line naming it (and moves nothing), after everything the previous command logged.
const FENCE_NAME = "remcp_fence_0x7e";
const FENCE_COMMAND = `s ${FENCE_NAME}`;

/** A rizin process for one database, restarted when it wedges. */
export class RizinSession {
  readonly opts: SessionOptions;
  #pipe: RizinPipe | undefined;
  #status: AnalysisStatus = { state: "loading", message: "starting rizin" };
  #generation = 0;
  #lock: Promise<unknown> = Promise.resolve();
  #statusCmd = false;
  #started = performance.now();
  #closed = false;
  /** Restarts so far. */
  restarts = 0;

  constructor(opts: SessionOptions) {
    this.opts = opts;
  }

  /** The analysis state, as `_status` reports it. */
  get status(): AnalysisStatus {
    return this.#status;
  }

  /** Increments at every restart: caches of rizin state must be dropped when it changes. */
  get generation(): number {
    return this.#generation;
  }

  /** Whether command status comes from `_sj` (Rizin ≥ 0.10) rather than stderr alone. */
  get usesStatusCommand(): boolean {
    return this.#statusCmd;
  }

  /** Starts rizin, analyses, prepares; never throws (failure is in `status`). */
  async start(): Promise<void> {
    this.#started = performance.now();
    try {
      await this.#boot();
      this.#status = { state: "ready", seconds: this.#seconds() };
    } catch (err) {
      const e = err instanceof RemcpError
        ? err
        : new RemcpError("OpenFailed", `rizin failed to open ${this.opts.path}: ${err}`, {});
      this.#status = {
        state: "failed",
        error: { error: e.message, error_type: e.code, detail: e.detail },
        seconds: this.#seconds(),
      };
      this.opts.log.warn(`rizin open failed: ${e.message}`);
    }
  }

  /**
   * Runs `f` with exclusive use of rizin (tool calls must not interleave their seeks and
   * settings). Refuses with Busy while rizin is (re)starting.
   */
  call<T>(f: (c: Conn) => Promise<T>): Promise<T> {
    const run = async () => {
      if (this.#status.state !== "ready" || !this.#pipe) {
        throw new RemcpError(
          "Busy",
          `rizin is ${this.#status.state === "failed" ? "not running" : "restarting"}` +
            `${this.#status.message ? ` (${this.#status.message})` : ""}: call ` +
            `wait_for_analysis, then retry`,
          { state: this.#status.state },
        );
      }
      return await f(new Conn(this, this.#pipe));
    };
    const next = this.#lock.then(run);
    this.#lock = next.catch(() => {});
    return next;
  }

  /** Quits rizin. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pipe?.quit();
  }

  /** Runs one command on `pipe` and judges it; restarts rizin on a timeout or crash. */
  async exec(pipe: RizinPipe, line: string, timeoutMs = this.opts.timeoutMs): Promise<CmdResult> {
    let r;
    try {
      r = await pipe.run(line, timeoutMs);
    } catch (err) {
      // While booting, a failure fails the open instead of restarting.
      if (
        !(err instanceof PipeDead) || pipe !== this.#pipe || this.#closed ||
        this.#status.state !== "ready"
      ) throw err;
      const timedOut = err.code === "Timeout";
      void this.#restart(timedOut ? `"${line}" timed out` : `rizin died running "${line}"`);
      throw new RemcpError(
        timedOut ? "Timeout" : "Internal",
        `${err.message}; rizin was ${timedOut ? "killed and is" : ""} restarting and ` +
          `re-analysing the file: call wait_for_analysis, then retry with a narrower request`,
        { ...err.detail, restarted: true },
      );
    }
    // Progress lines (`\x1b[2K…`) land on stdout even with colours off.
    r.output = r.output.replace(ANSI, "");
    const errors = r.messages.filter((m) => !/^(WARNING|INFO|DEBUG)\b/.test(m));
    const notes = r.messages.filter((m) => /^(WARNING|INFO|DEBUG)\b/.test(m));
    let failed = r.output.trim() === "" && errors.length > 0;
    if (this.#statusCmd) {
      const st = await pipe.run("_sj", timeoutMs).catch(() => undefined);
      const verdict = st ? statusVerdict(st.output) : undefined;
      if (verdict !== undefined) failed = !verdict;
    }
    return { output: r.output, errors, notes, failed };
  }

  async #boot(): Promise<void> {
    const o = this.opts;
    this.#status = { state: "loading", message: "starting rizin" };
    const argv = [o.binary, "-q0", "-N", "-e", "scr.color=0", ...(o.extraArgs ?? []), o.path];
    const pipe = await RizinPipe.start(argv, {
      startupTimeoutMs: o.analysisTimeoutMs,
      ...spawn(o),
    });
    this.#pipe = pipe;
    const conn = new Conn(this, pipe);
    for (const line of SETUP) await conn.must(line, "OpenFailed");
    for (const line of OPTIONAL_SETUP) await this.exec(pipe, line);
    await this.#detectStatus(pipe);
    await o.beforeAnalysis(conn);
    if (o.analysis !== "none") {
      this.#status = { state: "analysing", message: `running ${o.analysis}` };
      const r = await this.exec(pipe, o.analysis, o.analysisTimeoutMs).catch((err) => {
        throw new RemcpError(
          "Timeout",
          `rizin's analysis (${o.analysis}) did not finish within ` +
            `${Math.round(o.analysisTimeoutMs / 1000)} s: reopen with options.analysis "aa" ` +
            `or "none"`,
          { cause: (err as Error).message },
        );
      });
      if (r.failed) o.log.warn(`analysis reported: ${r.errors.join("; ")}`);
    }
    this.#status = { state: "analysing", message: "recovering names and annotations" };
    await o.prepare(conn);
  }

  async #detectStatus(pipe: RizinPipe): Promise<void> {
    const st = await pipe.run("_sj", this.opts.timeoutMs);
    this.#statusCmd = statusVerdict(st.output) !== undefined;
    if (this.#statusCmd) return;
    const probe = await pipe.run(FENCE_COMMAND, this.opts.timeoutMs);
    if (probe.messages.some((m) => m.includes(FENCE_NAME))) {
      pipe.useFence({ command: FENCE_COMMAND, marker: FENCE_NAME });
    } else {
      this.opts.log.info("rizin logs no fence message: stderr is matched to commands by timing");
    }
  }

  async #restart(why: string): Promise<void> {
    this.opts.log.warn(`restarting rizin: ${why}`);
    this.restarts++;
    this.#generation++;
    this.#pipe?.kill();
    this.#pipe = undefined;
    this.#status = { state: "analysing", message: `restarting rizin after ${why}` };
    await this.start();
  }

  #seconds(): number {
    return Math.round((performance.now() - this.#started) / 10) / 100;
  }
}

function spawn(o: SessionOptions): { spawn?: PipeSpawner } {
  return o.spawn ? { spawn: o.spawn } : {};
}

/**
 * Reads `_sj` output: true for success, false for failure, undefined when it is not a status
 * (older rizins answer `_sj` with an error and no JSON).
 */
export function statusVerdict(output: string): boolean | undefined {
  let v: unknown;
  try {
    v = JSON.parse(output);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  for (const k of ["success", "ok"]) if (typeof o[k] === "boolean") return o[k] as boolean;
  for (const k of ["status", "result", "rc", "code"]) {
    const x = o[k];
    if (typeof x === "number") return x === 0;
    if (typeof x === "string") return /^(ok|success|succeeded)$/i.test(x);
  }
  return undefined;
}

/** Exclusive use of rizin during one tool call; collects the call's warnings. */
export class Conn {
  readonly session: RizinSession;
  readonly pipe: RizinPipe;
  readonly warnings: Warning[] = [];

  constructor(session: RizinSession, pipe: RizinPipe) {
    this.session = session;
    this.pipe = pipe;
  }

  /** Runs a command and returns the judged result, failing or not. */
  run(line: string, timeoutMs?: number): Promise<CmdResult> {
    return this.session.exec(this.pipe, line, timeoutMs);
  }

  /**
   * Runs a command that must succeed: a failure throws `code` with rizin's message; messages
   * that came with a successful output become warnings.
   */
  async must(line: string, code: ErrorCode = "Internal", what?: string): Promise<string> {
    const r = await this.run(line);
    if (r.failed) {
      throw new RemcpError(
        code,
        `${what ?? `rizin refused "${line}"`}: ${r.errors.join("; ") || "no output"}`,
        { command: line, messages: r.errors },
      );
    }
    for (const m of r.errors) this.warnings.push({ code: "rizin", message: m });
    return r.output;
  }

  /** Runs a command whose output is JSON; empty output is `fallback` when given. */
  async json<T = unknown>(line: string, fallback?: T): Promise<T> {
    const out = (await this.must(line)).trim();
    if (out === "" && fallback !== undefined) return fallback;
    try {
      return JSON.parse(out) as T;
    } catch {
      if (fallback !== undefined) return fallback;
      throw new RemcpError(
        "Internal",
        `rizin's "${line}" did not print JSON: ${out.slice(0, 200)}`,
        {
          command: line,
        },
      );
    }
  }

  /** The call's warnings, for spreading into a result. */
  warningsOut(): { warnings?: Warning[] } {
    return this.warnings.length ? { warnings: [...this.warnings] } : {};
  }
}
