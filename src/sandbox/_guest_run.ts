/**
 * One sandbox run inside a fresh QuickJS runtime: installs the prelude and globals, evaluates the
 * script, pumps the job queue while invokes complete, and turns the end into an outcome.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import type { ErrorCode, ErrorDetail } from "../errors.ts";
import {
  disposePrelude,
  type InstalledPrelude,
  installPrelude,
  type PreludeHelpers,
} from "./guest_prelude.ts";
import { MAX_STACK_BYTES } from "./limits.ts";
import { type GuestLogLevel, LOG_LEVELS, type WireError } from "./protocol.ts";
import {
  type EngineHost,
  type EngineOutcome,
  type EngineRun,
  type InvokeOutcome,
  JS_EVAL_FLAG_ASYNC,
} from "./engine_types.ts";

const SCRIPT_FILE = "script.js";
/** QuickJS's own allocation limit sits below the WebAssembly cap, so it usually fires first. */
const ALLOCATOR_RESERVE_BYTES = 4 * 1024 * 1024;
/** CPU time granted to host-driven guest calls (describing an error, serializing the result). */
const HELPER_GRACE_MS = 100;
const LOG_TRUNCATED = "[log truncated]\n";
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The pieces a run needs. */
export interface GuestRunArgs {
  runtime: QuickJSRuntime;
  /** A new context of `runtime`, which no script has used. */
  context: QuickJSContext;
  memory: WebAssembly.Memory;
  /**
   * The prelude, installed in `context` beforehand for `run.limits.maxLogBytes`
   * (guest_prelude.ts: installPrelude); undefined: the run installs it.
   */
  prelude: InstalledPrelude | undefined;
  run: EngineRun;
  host: EngineHost;
  /** The CPU clock the run is charged by, in ms (see {@link CpuClock}). */
  cpuClock: CpuClock;
}

/** Runs one script to its end; see {@link SandboxEngine.run}. */
export async function runGuest(args: GuestRunArgs): Promise<EngineOutcome> {
  return await new GuestRun(args).execute();
}

/** How a thrown value looked from inside the guest. */
interface Described {
  name: string;
  message: string;
  /** The guest could not describe the value (often because its memory is exhausted). */
  opaque?: true;
  stack?: string;
  code?: string;
  detail?: unknown;
}

/** A failure, and whether it ended on a limit (then the instance is abandoned, not disposed). */
interface Failure {
  error: WireError;
  limit: boolean;
}

type Ending = { ok: true; resultJson: string } | { ok: false; failure: Failure };

class GuestRun {
  readonly #runtime: QuickJSRuntime;
  readonly #memory: WebAssembly.Memory;
  readonly #run: EngineRun;
  readonly #host: EngineHost;
  readonly #cpuClock: CpuClock;
  #ctx: QuickJSContext | undefined;
  #prelude: InstalledPrelude | undefined;
  #helpers: PreludeHelpers | undefined;
  #promise: QuickJSHandle | undefined;
  #limitError: QuickJSHandle | undefined;
  /** CPU time charged so far: see {@link GuestRun.#slice}. */
  #cpuUsed = 0;
  /** Wall time of every slice so far. */
  #wallUsed = 0;
  /** The CPU clock when the first slice started. */
  #cpuStart: number | undefined;
  #deadline = 0;
  /** The running slice: the charge it may reach, and when it started. */
  #sliceAllowed = 0;
  #sliceWall = 0;
  #interrupted = false;
  #invokes = 0;
  #nextCallId = 0;
  /** Invokes whose promise (the guest's, guest_prelude.ts) is not settled yet, by id. */
  readonly #pending = new Set<number>();
  readonly #completions: { callId: number; outcome: InvokeOutcome }[] = [];
  #wake: (() => void) | undefined;
  #finished = false;
  #logBytes = 0;
  #logCut = false;

  constructor({ runtime, context, memory, prelude, run, host, cpuClock }: GuestRunArgs) {
    this.#cpuClock = cpuClock;
    this.#runtime = runtime;
    this.#ctx = context;
    if (prelude) this.#takePrelude(context, prelude);
    this.#memory = memory;
    this.#run = run;
    this.#host = host;
  }

  async execute(): Promise<EngineOutcome> {
    // One listener for the run, not one per wait: a run waits once per invoke.
    const signal = this.#run.signal;
    const onAbort = () => this.#wake?.();
    signal?.addEventListener("abort", onAbort, { once: true });
    let ending: Ending;
    try {
      ending = await this.#main();
    } catch (err) {
      ending = { ok: false, failure: this.#engineFailure(err) };
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
    this.#finished = true;
    const abandon = !ending.ok && ending.failure.limit;
    const clean = abandon ? false : this.#dispose();
    const cpuMs = Math.min(this.#wallUsed, this.#cpuSinceStart());
    const stats = { invokes: this.#invokes, cpuMs: Math.round(cpuMs * 100) / 100 };
    return ending.ok
      ? { ok: true, resultJson: ending.resultJson, stats, clean }
      : { ok: false, error: ending.failure.error, stats, clean };
  }

  async #main(): Promise<Ending> {
    const { limits } = this.#run;
    const runtime = this.#runtime;
    runtime.setMemoryLimit(Math.max(1, limits.memoryBytes - ALLOCATOR_RESERVE_BYTES));
    runtime.setInterruptHandler(() => {
      const now = performance.now();
      if (now <= this.#deadline) return false;
      // The wall clock ran out; the CPU clock may not have (a busy machine). Look only now, so
      // the costlier clock is read once per budget, not on every check.
      const used = Math.min(this.#wallUsed + now - this.#sliceWall, this.#cpuSinceStart());
      const left = this.#sliceAllowed - used;
      if (left > 0) {
        this.#deadline = performance.now() + left;
        return false;
      }
      this.#interrupted = true;
      return true;
    });
    const ctx = this.#need(this.#ctx);
    if (!this.#prelude) {
      const maxChars = limits.maxLogBytes;
      this.#takePrelude(ctx, this.#slice(() => installPrelude(ctx, maxChars), HELPER_GRACE_MS));
    }
    const globalsError = this.#installGlobals(ctx);
    if (globalsError) return { ok: false, failure: { error: globalsError, limit: false } };

    const started = this.#start(ctx, this.#run.code);
    if ("failure" in started) return { ok: false, failure: started.failure };
    this.#promise = started.promise;

    for (;;) {
      const jobs = this.#slice(() => runtime.executePendingJobs());
      if (this.#interrupted) return this.#timeout();
      if (jobs.error) {
        const described = this.#describe(jobs.error);
        jobs.error.dispose();
        return { ok: false, failure: this.#thrown(described) };
      }
      const state = ctx.getPromiseState(started.promise);
      if (state.type === "fulfilled") {
        return this.#finish(ctx, state.value, started.wrapped);
      }
      if (state.type === "rejected") {
        const described = this.#describe(state.error);
        state.error.dispose();
        return { ok: false, failure: this.#thrown(described) };
      }
      if (this.#run.signal?.aborted) return this.#cancelled();
      if (this.#pending.size === 0) {
        return this.#fail(
          "SandboxError",
          "The script awaits a promise that can never settle: no invoke is pending and the " +
            "sandbox has no timers or I/O; await only invoke() results and promises built on them",
        );
      }
      if (this.#completions.length === 0) await this.#waitForCompletion();
      if (this.#run.signal?.aborted) return this.#cancelled();
      const failed = this.#deliver(ctx);
      if (this.#interrupted) return this.#timeout();
      if (failed) return { ok: false, failure: failed };
    }
  }

  /**
   * Runs guest code with the interrupt deadline set to the CPU time left (at least `graceMs`).
   *
   * A run is charged the lesser of two clocks, each an upper bound of the script's own time: the
   * wall time of its slices, and the CPU time of the thread running it (which on a busy machine
   * is the smaller). Reading a thread's CPU clock is a system call that costs more than a short
   * slice (tens of microseconds), so it is read only when the wall clock says the budget is
   * spent, not around every slice: an invoke's slice then costs two `performance.now()`.
   */
  #slice<T>(fn: () => T, graceMs = 0): T {
    this.#cpuStart ??= this.#cpuClock();
    const limit = this.#run.limits.cpuMs;
    this.#sliceWall = performance.now();
    this.#sliceAllowed = Math.max(this.#cpuUsed + graceMs, limit);
    this.#deadline = this.#sliceWall + (this.#sliceAllowed - this.#cpuUsed);
    try {
      return fn();
    } finally {
      this.#wallUsed += performance.now() - this.#sliceWall;
      this.#cpuUsed = this.#wallUsed <= limit
        ? this.#wallUsed
        : Math.min(this.#wallUsed, this.#cpuSinceStart());
    }
  }

  /** CPU time since the run's first slice, by the run's clock. */
  #cpuSinceStart(): number {
    return this.#cpuStart === undefined ? 0 : this.#cpuClock() - this.#cpuStart;
  }

  /** Uses `prelude`'s helpers, and binds its `console` and `invoke` to this run. */
  #takePrelude(ctx: QuickJSContext, prelude: InstalledPrelude): void {
    this.#prelude = prelude;
    this.#helpers = prelude.helpers;
    prelude.host.log = (level, text) => this.#onLog(ctx, level, text);
    prelude.host.invoke = (name, args) => this.#onInvoke(ctx, name, args);
  }

  #installGlobals(ctx: QuickJSContext): WireError | undefined {
    for (const [name, value] of Object.entries(this.#run.globals)) {
      const existing = ctx.getProp(ctx.global, name);
      const taken = ctx.typeof(existing) !== "undefined";
      existing.dispose();
      if (!IDENTIFIER.test(name) || taken) {
        return wire(
          "InvalidArgument",
          `Cannot define sandbox global "${name}": it is not a free identifier`,
          { name },
        );
      }
      const handle = typeof value === "string"
        ? ctx.newString(value)
        : typeof value === "number"
        ? ctx.newNumber(value)
        : value === null
        ? ctx.null
        : value
        ? ctx.true
        : ctx.false;
      ctx.defineProp(ctx.global, name, { value: handle, enumerable: true, configurable: false });
      handle.dispose();
    }
    return undefined;
  }

  /**
   * Evaluates the script as a global script with top-level `await`, whose completion value (the
   * last expression statement's value) is the result. A script with a top-level `return` is not
   * a valid script, so it is run again as the body of an async function, whose return value is
   * the result.
   */
  #start(
    ctx: QuickJSContext,
    code: string,
  ): { promise: QuickJSHandle; wrapped: boolean } | { failure: Failure } {
    const first = this.#slice(() => ctx.evalCode(code, SCRIPT_FILE, JS_EVAL_FLAG_ASYNC));
    if (!first.error) return { promise: first.value, wrapped: false };
    const described = this.#describe(first.error);
    first.error.dispose();
    if (described.name !== "SyntaxError" || !/return not in a function/.test(described.message)) {
      return { failure: this.#thrown(described) };
    }
    const body = `(async function () {${code}\n})()`;
    const second = this.#slice(() => ctx.evalCode(body, SCRIPT_FILE, { type: "global" }));
    if (!second.error) return { promise: second.value, wrapped: true };
    const again = this.#describe(second.error);
    second.error.dispose();
    return { failure: this.#thrown(again) };
  }

  #finish(ctx: QuickJSContext, settled: QuickJSHandle, wrapped: boolean): Ending {
    let value = settled;
    if (!wrapped) {
      value = ctx.getProp(settled, "value");
      settled.dispose();
    }
    const helpers = this.#need(this.#helpers);
    const serialized = this.#slice(
      () => ctx.callFunction(helpers.resultJson, ctx.undefined, value),
      HELPER_GRACE_MS,
    );
    value.dispose();
    if (this.#interrupted) return this.#timeout();
    if (serialized.error) {
      const described = this.#describe(serialized.error);
      serialized.error.dispose();
      const failure = this.#thrown(described);
      if (failure.limit) return { ok: false, failure };
      return this.#fail(
        "SandboxError",
        `The result is not JSON-serializable: ${described.message}; return plain objects, ` +
          "arrays, strings, numbers, booleans or null",
        { name: described.name },
      );
    }
    const json = serialized.value;
    try {
      const max = this.#run.limits.maxOutputBytes;
      if (ctx.typeof(json) !== "string") {
        return this.#fail("Internal", "The sandbox could not serialize the result");
      }
      // A UTF-8 encoding is never shorter than the UTF-16 length, so this check needs no copy.
      const units = lengthOf(ctx, json);
      const text = units > max ? undefined : ctx.getString(json);
      const bytes = text === undefined ? units : utf8Length(text);
      if (text === undefined || bytes > max) {
        return this.#fail(
          "OutputTooLarge",
          `The script's result is larger than ${max} bytes as JSON; return a smaller value ` +
            "(a summary, a page, or only the fields you need)",
          { limit_bytes: max, at_least_bytes: bytes },
        );
      }
      return { ok: true, resultJson: text };
    } finally {
      json.dispose();
    }
  }

  #onLog(ctx: QuickJSContext, levelH: QuickJSHandle | undefined, textH: QuickJSHandle | undefined) {
    if (this.#logCut || this.#finished || !levelH || !textH) return;
    if (ctx.typeof(levelH) !== "string" || ctx.typeof(textH) !== "string") return;
    const name = ctx.getString(levelH);
    const level: GuestLogLevel = LOG_LEVELS.find((l) => l === name) ?? "log";
    const prefix = level === "warn" || level === "error" ? `[${level}] ` : "";
    const line = `${prefix}${ctx.getString(textH)}\n`;
    const bytes = utf8Length(line);
    const budget = this.#run.limits.maxLogBytes - this.#logBytes;
    if (bytes <= budget) {
      this.#logBytes += bytes;
      this.#host.log(level, line);
      return;
    }
    this.#logCut = true;
    this.#logBytes = this.#run.limits.maxLogBytes;
    const head = utf8Prefix(line, budget);
    this.#host.log(level, (head === "" ? "" : head + "\n") + LOG_TRUNCATED);
  }

  #onInvoke(
    ctx: QuickJSContext,
    nameH: QuickJSHandle | undefined,
    argsH: QuickJSHandle | undefined,
  ): QuickJSHandle | { error: QuickJSHandle } {
    // The prelude passes two strings, and only it can call this (its `hostInvoke` is no global):
    // asking the engine each value's type cost two calls into it per invoke.
    if (!nameH || !argsH) {
      return { error: ctx.newError("invoke(name, args) needs a tool name and an object") };
    }
    const max = this.#run.limits.maxInvokes;
    if (this.#invokes >= max) {
      // One shared Error for every refused call keeps a flood of refusals cheap.
      this.#limitError ??= this.#makeError(
        ctx,
        wire(
          "SandboxError",
          `Invoke limit reached: a script may make at most ${max} invoke calls; ` +
            "do the rest in another execute call",
          { limit: max },
        ),
      );
      return { error: this.#limitError.dup() };
    }
    this.#invokes++;
    const callId = ++this.#nextCallId;
    this.#pending.add(callId);
    const name = ctx.getString(nameH);
    const argsJson = ctx.getString(argsH);
    this.#host.invoke(callId, name, argsJson).then((outcome) => {
      if (this.#finished) return;
      this.#completions.push({ callId, outcome });
      this.#wake?.();
    });
    return ctx.newNumber(callId);
  }

  /** Settles on the next completion, or on cancellation (see {@link GuestRun.execute}). */
  #waitForCompletion(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /**
   * Settles the promises of every invoke that completed since the last call; a failure of the
   * engine itself while doing so ends the run.
   */
  #deliver(ctx: QuickJSContext): Failure | undefined {
    const helpers = this.#need(this.#helpers);
    for (const { callId, outcome } of this.#completions.splice(0)) {
      if (!this.#pending.delete(callId)) continue;
      // One call into the guest settles the invoke's promise (guest_prelude.ts: `settle`, `fail`).
      const failed = this.#slice(() => {
        const id = ctx.newNumber(callId);
        const arg = outcome.ok
          ? ctx.newString(outcome.valueJson)
          : this.#makeError(ctx, outcome.error);
        const settled = ctx.callFunction(
          outcome.ok ? helpers.settle : helpers.fail,
          ctx.undefined,
          id,
          arg,
        );
        id.dispose();
        arg.dispose();
        if (!settled.error) {
          settled.value.dispose();
          return undefined;
        }
        return settled.error;
      }, HELPER_GRACE_MS);
      if (this.#interrupted) {
        failed?.dispose();
        return undefined;
      }
      // Only the engine's own failure (memory) gets here: the guest's settle catches the rest.
      if (failed) {
        const described = this.#describe(failed);
        failed.dispose();
        return this.#thrown(described);
      }
    }
    return undefined;
  }

  /** The `Error` an invoke rejects with: its `code` is the error type, `detail` the detail. */
  #makeError(ctx: QuickJSContext, error: WireError): QuickJSHandle {
    const helpers = this.#need(this.#helpers);
    const args = [
      ctx.newString(error.message),
      ctx.newString(error.code),
      ctx.newString(JSON.stringify(error.detail)),
    ];
    const made = ctx.callFunction(helpers.makeError, ctx.undefined, args);
    for (const a of args) a.dispose();
    return made.error ?? made.value;
  }

  /** Asks the guest what a thrown value was. Never throws. */
  #describe(thrown: QuickJSHandle): Described {
    const ctx = this.#need(this.#ctx);
    const helpers = this.#helpers;
    if (!helpers) return { name: "", message: String(ctx.dump(thrown)) };
    const result = this.#slice(
      () => ctx.callFunction(helpers.describe, ctx.undefined, thrown),
      HELPER_GRACE_MS,
    );
    if (result.error) {
      result.error.dispose();
      return { name: "", message: "[the thrown value could not be described]", opaque: true };
    }
    const text = ctx.typeof(result.value) === "string" ? ctx.getString(result.value) : "";
    result.value.dispose();
    return parseDescribed(text);
  }

  /** Classifies what the script threw (or what QuickJS threw at it). */
  #thrown(d: Described): Failure {
    if (this.#interrupted) return this.#timeout().failure;
    const engineError = d.name === "InternalError" || d.name === "RangeError" || d.name === "";
    if (engineError && /out of memory|string too long/i.test(d.message)) {
      return this.#outOfMemory().failure;
    }
    // Out of memory while building the exception, QuickJS throws null instead; and describing
    // a value needs memory too.
    if ((d.opaque || (d.name === "" && d.message === "null")) && this.#memoryNearlyFull()) {
      return this.#outOfMemory().failure;
    }
    if (engineError && /stack overflow|call stack size/i.test(d.message)) {
      return {
        error: wire(
          "SandboxError",
          `Stack overflow: the script recursed too deeply (the stack is limited to ` +
            `${MAX_STACK_BYTES / 1024} KiB); use a loop or an explicit work list`,
          { limit_bytes: MAX_STACK_BYTES, ...(d.stack ? { stack: d.stack } : {}) },
        ),
        limit: true,
      };
    }
    const head = d.name === "" ? d.message : `${d.name}: ${d.message}`;
    const detail: ErrorDetail = { name: d.name };
    if (d.stack) detail.stack = d.stack;
    if (d.code !== undefined) detail.error_type = d.code;
    if (d.detail !== undefined) detail.error_detail = d.detail;
    return { error: wire("SandboxError", `Uncaught ${head}`, detail), limit: false };
  }

  #timeout(): { ok: false; failure: Failure } {
    const limit = this.#run.limits.cpuMs;
    return {
      ok: false,
      failure: {
        error: wire(
          "SandboxTimeout",
          `The script used more than its ${limit} ms of CPU time and was stopped; do less work ` +
            "per execute call",
          { limit_ms: limit },
        ),
        limit: true,
      },
    };
  }

  #outOfMemory(): { ok: false; failure: Failure } {
    const limit = this.#run.limits.memoryBytes;
    return {
      ok: false,
      failure: {
        error: wire(
          "SandboxMemory",
          `The script ran out of memory (the limit is ${limit / (1024 * 1024)} MiB); keep ` +
            "less data at once, for example by paging through results",
          { limit_bytes: limit },
        ),
        limit: true,
      },
    };
  }

  #memoryNearlyFull(): boolean {
    const limit = this.#run.limits.memoryBytes;
    return this.#memory.buffer.byteLength >= limit - 2 * ALLOCATOR_RESERVE_BYTES;
  }

  #cancelled(): Ending {
    return this.#fail("Cancelled", "The script was cancelled before it finished");
  }

  #fail(code: ErrorCode, message: string, detail: ErrorDetail = {}): Ending {
    return { ok: false, failure: { error: wire(code, message, detail), limit: false } };
  }

  /** An exception out of the engine itself: the WebAssembly instance cannot be trusted further. */
  #engineFailure(err: unknown): Failure {
    if (this.#interrupted) return this.#timeout().failure;
    const message = err instanceof Error ? err.message : String(err);
    if (/out of memory|OOM|Aborted|memory access out of bounds|grow/i.test(message)) {
      return this.#outOfMemory().failure;
    }
    return { error: wire("SandboxError", `The sandbox engine failed: ${message}`), limit: true };
  }

  /** Releases every handle, the context and the runtime; false if any of that failed. */
  #dispose(): boolean {
    try {
      this.#pending.clear();
      this.#promise?.dispose();
      this.#limitError?.dispose();
      if (this.#prelude) disposePrelude(this.#prelude);
      this.#ctx?.dispose();
      this.#runtime.dispose();
      return true;
    } catch (err) {
      console.error(`sandbox: disposing a finished run failed: ${String(err)}`);
      return false;
    }
  }

  #need<T>(value: T | undefined): T {
    if (value === undefined) throw new TypeError("Sandbox run used before it was set up");
    return value;
  }
}

function wire(code: ErrorCode, message: string, detail: ErrorDetail = {}): WireError {
  return { code, message, detail };
}

function parseDescribed(text: string): Described {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { name: "", message: "[the thrown value could not be described]" };
  }
  if (typeof raw !== "object" || raw === null) return { name: "", message: String(raw) };
  const r: Record<string, unknown> = { ...raw };
  const d: Described = {
    name: typeof r.name === "string" ? r.name : "",
    message: typeof r.message === "string" ? r.message : "",
  };
  if (typeof r.stack === "string") d.stack = r.stack;
  if (typeof r.code === "string") d.code = r.code;
  if (r.detail !== undefined) d.detail = r.detail;
  return d;
}

function lengthOf(ctx: QuickJSContext, str: QuickJSHandle): number {
  const length = ctx.getProp(str, "length");
  try {
    return ctx.getNumber(length);
  } finally {
    length.dispose();
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** The longest prefix of `text` that fits in `bytes` UTF-8 bytes, not splitting a character. */
function utf8Prefix(text: string, bytes: number): string {
  if (bytes <= 0) return "";
  const cut = decoder.decode(encoder.encode(text).subarray(0, bytes));
  return cut.endsWith("\uFFFD") ? cut.slice(0, -1) : cut;
}

/**
 * A CPU clock in milliseconds, user and system time: an upper bound of the script's own CPU time.
 * A sandbox thread's is its thread's (its process is the supervisor's); a sandbox process's is the
 * whole process's (see {@link processCpuMs}).
 */
export type CpuClock = () => number;

/**
 * The process's CPU time, in ms. In a sandbox process every thread works for the script (V8's
 * collector and the compiler of its WebAssembly beside the main thread), and reading the main
 * thread's own clock would take node:process, whose Node.js set-up costs that process ~4 MB of
 * its resident memory while it idles (bench/sandbox_start.ts). `Deno.cpuUsage` (what node:process's
 * `cpuUsage` calls, in microseconds) is not in Deno's type declarations; were it gone, the wall
 * clock is the bound (a run is charged the lesser of the two clocks, so then its slices' wall time).
 */
export const processCpuMs: CpuClock = (() => {
  const cpuUsage = (Deno as { cpuUsage?: () => { user: number; system: number } }).cpuUsage;
  if (typeof cpuUsage !== "function") return () => performance.now();
  return () => {
    const used = cpuUsage();
    return (used.user + used.system) / 1000;
  };
})();
