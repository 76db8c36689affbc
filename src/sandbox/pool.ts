/**
 * A warm pool of `remcp sandbox` processes that run `execute` scripts, one script per process at
 * a time, with a hard wall-clock deadline enforced by killing the process.
 */
import { RemcpError } from "../errors.ts";
import { invokeFailure } from "../protocol/invoke_answer.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import type { GlobalValue, GuestLogLevel, LaneGrant, RunStats, WireError } from "./protocol.ts";
import type { ChildMessage } from "./child_messages.ts";
import { type SandboxChild, spawnSandboxChild } from "./sandbox_child.ts";
import { describeExit, SandboxProcess } from "./sandbox_process.ts";

/** How a pool is built. */
export interface SandboxPoolOptions {
  /** Processes kept started and idle between runs (default 2). */
  size?: number;
  /** Most processes alive at once, busy ones included (default 8); more runs wait. */
  maxProcesses?: number;
  /** Starts one sandbox (default: `remcp sandbox` through `Deno.Command`; or sandbox_thread.ts). */
  spawn?: () => SandboxChild;
  /** Time a cancelled run gets to stop cleanly before its process is killed (default 200 ms). */
  graceMs?: number;
}

/** An invoke's result as JSON text already (a tool result's text): sent on as it is. */
export class JsonText {
  constructor(readonly json: string) {}
}

/**
 * Runs a tool for the script. `args` is the JSON object the script passed; the result must be a
 * JSON object, or {@link JsonText} of one. A thrown {@link RemcpError} reaches the script as an
 * `Error` with its `code` and `detail`. `signal` aborts when the run ends, so work nobody will
 * read can stop. `lanes` is there when the sandbox can take lanes to workers (lane_hub.ts).
 */
export type InvokeHandler = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  lanes: LaneLink | undefined,
) => Promise<Record<string, unknown> | JsonText>;

/** How the host grants a run lanes. */
export interface LaneLink {
  /** The sandbox's lane socket, where the worker is to connect. */
  readonly path: string;
  /** Announces a lane to the sandbox; false when the run is over (then nobody connects). */
  grant(lane: LaneGrant): boolean;
}

/** One script run's inputs. */
export interface SandboxRunOptions {
  /** Read-only globals the script sees, such as `database` and `file`. */
  globals?: Readonly<Record<string, GlobalValue>>;
  invoke: InvokeHandler;
  /** Wall-clock limit of the whole run, invokes included. */
  timeoutMs: number;
  limits?: Partial<Limits>;
  /** Aborting ends the run with `Cancelled`. */
  signal?: AbortSignal;
  /** Called with each piece of console output as it happens (the same text lands in `logs`). */
  onLog?: (level: GuestLogLevel, text: string) => void;
  /**
   * Called as the run starts, when the sandbox can take lanes: lanes granted during the call go
   * in the run message itself, so the script's first invoke finds them. The worker told to
   * connect may do so before the sandbox has read the run message (lane_hub.ts parks it).
   */
  onStart?: (lanes: LaneLink) => void;
  /** Called now and then with how many invokes lanes answered so far (never through `invoke`). */
  onLaneInvokes?: (count: number) => void;
  /**
   * A result larger than this many bytes of JSON is cut structurally (shrink.ts) inside the
   * sandbox before it is sent, so the host never receives (nor parses) more than about this.
   */
  fitResultBytes?: number;
}

/** What a run used. `cpuMs` is the script's own time as the sandbox measured it. */
export interface SandboxRunStats extends RunStats {
  wallMs: number;
}

/** How a run ended. `logs` is the captured console output either way. */
export type SandboxRunResult =
  | { ok: true; result: unknown; cut: string[]; logs: string; stats: SandboxRunStats }
  | { ok: false; error: RemcpError; logs: string; stats: SandboxRunStats };

/** Longest a run waits for a ready process (start-up, or a busy pool), beside its own timeout. */
const ACQUIRE_MS = 30_000;

const RECYCLED_AFTER: ReadonlySet<string> = new Set(["SandboxTimeout", "SandboxMemory"]);

/** A pool of sandbox processes. Processes start on the first run or on {@link warm}. */
export class SandboxPool {
  readonly #size: number;
  readonly #max: number;
  readonly #spawn: () => SandboxChild;
  readonly #graceMs: number;
  readonly #idle: SandboxProcess[] = [];
  readonly #starting = new Set<SandboxProcess>();
  readonly #busy = new Set<SandboxProcess>();
  readonly #exits = new Set<Promise<unknown>>();
  #waiting = 0;
  #changed = Promise.withResolvers<void>();
  #startError: string | undefined;
  #closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    this.#size = Math.max(0, options.size ?? 2);
    this.#max = Math.max(1, this.#size, options.maxProcesses ?? 8);
    this.#spawn = options.spawn ?? spawnSandboxChild;
    this.#graceMs = options.graceMs ?? 200;
  }

  /** Starts processes up to the pool size and waits until they are ready (or failed). */
  async warm(): Promise<void> {
    this.#startError = undefined;
    this.#topUp();
    await Promise.allSettled([...this.#starting].map((p) => p.ready));
  }

  /** Runs `code` in a fresh sandbox. Failures of the script are results, not rejections. */
  async run(code: string, options: SandboxRunOptions): Promise<SandboxRunResult> {
    if (this.#closed) throw new RemcpError("SandboxError", "The sandbox pool is closed");
    const limits = resolveLimits(options.limits);
    // Starting a process (or waiting for a busy pool) is not the script's time: a cold pool must
    // run `1` under timeout_s 0.1. It has its own bound, and the script's clock starts after.
    const waitMs = Math.max(options.timeoutMs, ACQUIRE_MS);
    const proc = await this.#acquire(performance.now() + waitMs, options.signal);
    if (typeof proc === "string") {
      const error = proc === "timeout"
        ? new RemcpError(
          "SandboxTimeout",
          `No sandbox process was ready within ${waitMs / 1000} s (every one busy or still ` +
            "starting); the script did not run: try again",
          { waited_s: waitMs / 1000 },
        )
        : proc === "cancelled"
        ? cancelled()
        : new RemcpError("SandboxError", proc);
      return { ok: false, error, logs: "", stats: { invokes: 0, cpuMs: 0, wallMs: 0 } };
    }
    const started = performance.now();
    const deadline = started + options.timeoutMs;
    const ended = await this.#runOn(proc, code, options, limits, deadline);
    const wallMs = Math.round((performance.now() - started) * 100) / 100;
    this.#release(proc, ended.reusable);
    const stats = { ...ended.stats, wallMs };
    return ended.error
      ? { ok: false, error: ended.error, logs: ended.logs, stats }
      : { ok: true, result: ended.result, cut: ended.cut, logs: ended.logs, stats };
  }

  /** Kills every process and waits for them to exit. Runs in progress end with an error. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const p of [...this.#idle, ...this.#starting, ...this.#busy]) p.kill();
    this.#notify();
    await Promise.allSettled([...this.#exits]);
  }

  async #runOn(
    proc: SandboxProcess,
    code: string,
    options: SandboxRunOptions,
    limits: Limits,
    deadline: number,
  ): Promise<RunEnd> {
    const id = crypto.randomUUID();
    const invokesDone = new AbortController();
    let logs = "";
    let invokes = 0;
    let laneInvokes = 0;
    let inFlight = 0;
    let stopReason: "timeout" | "cancelled" | undefined;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const ended = Promise.withResolvers<RunEnd>();

    const stop = (reason: "timeout" | "cancelled") => {
      if (stopReason) return;
      stopReason = reason;
      proc.send({ type: "cancel", id });
      timers.push(setTimeout(() => proc.kill(), this.#graceMs));
    };
    const onAbort = () => stop("cancelled");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) stop("cancelled");
    timers.push(setTimeout(() => stop("timeout"), Math.max(0, deadline - performance.now())));

    const answer = (callId: number, outcome: { valueJson: string } | WireError) => {
      inFlight--;
      if ("valueJson" in outcome) {
        proc.send({
          type: "invoke_result",
          runId: id,
          callId,
          ok: true,
          valueJson: outcome.valueJson,
        });
      } else {
        proc.send({ type: "invoke_result", runId: id, callId, ok: false, error: outcome });
      }
    };

    const lanePath = proc.lanePath;
    /** Lanes granted before the run message is sent: they go in it. */
    let atStart: LaneGrant[] | undefined = [];
    const lanes: LaneLink | undefined = lanePath === undefined ? undefined : {
      path: lanePath,
      grant: (lane) => {
        if (invokesDone.signal.aborted) return false;
        if (atStart) atStart.push(lane);
        else proc.send({ type: "lane", runId: id, ...lane });
        return true;
      },
    };
    if (lanes) options.onStart?.(lanes);

    const stoppedError = (): RemcpError =>
      stopReason === "timeout" ? wallTimeout(options.timeoutMs, inFlight) : cancelled();

    proc.listen({
      onMessage: (message: Exclude<ChildMessage, { type: "ready" }>) => {
        switch (message.type) {
          case "invoke": {
            if (message.runId !== id) return;
            invokes++;
            inFlight++;
            callHost(options.invoke, message.name, message.args, invokesDone.signal, lanes)
              .then((outcome) => answer(message.callId, outcome));
            return;
          }
          case "lane_invokes":
            if (message.runId !== id || message.count <= laneInvokes) return;
            laneInvokes = message.count;
            options.onLaneInvokes?.(laneInvokes);
            return;
          case "log":
            if (message.runId !== id) return;
            logs += message.text;
            options.onLog?.(message.level, message.text);
            return;
          case "done": {
            if (message.id !== id) return;
            const error = stopReason
              ? stoppedError()
              : message.ok
              ? undefined
              : new RemcpError(message.error.code, message.error.message, message.error.detail);
            ended.resolve({
              error,
              result: message.ok ? message.result : undefined,
              cut: message.ok ? message.cut ?? [] : [],
              stats: message.stats,
              logs,
              reusable: !RECYCLED_AFTER.has(message.ok ? "" : message.error.code),
            });
            return;
          }
        }
      },
      onExit: (exit, stderr) => {
        const error = stopReason ? stoppedError() : new RemcpError(
          "SandboxError",
          `${describeExit(exit, stderr, proc.kind)}; the script was lost, run it again`,
          { exit_code: exit.code, signal: exit.signal, stderr },
        );
        ended.resolve({
          error,
          result: undefined,
          cut: [],
          stats: { invokes: invokes + laneInvokes, cpuMs: 0 },
          logs,
          reusable: false,
        });
      },
    });
    proc.send({
      type: "run",
      id,
      code,
      globals: { ...options.globals },
      limits,
      ...(options.fitResultBytes !== undefined ? { fitBytes: options.fitResultBytes } : {}),
      ...(atStart.length > 0 ? { lanes: atStart } : {}),
    });
    atStart = undefined;
    try {
      return await ended.promise;
    } finally {
      proc.listen(undefined);
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      invokesDone.abort();
    }
  }

  /** An idle, ready process; or why none could be had before the deadline. */
  async #acquire(
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<SandboxProcess | "timeout" | "cancelled" | string> {
    this.#waiting++;
    let spawned = 0;
    try {
      for (;;) {
        if (this.#closed) return "The sandbox pool is closed";
        if (signal?.aborted) return "cancelled";
        const idle = this.#idle.pop();
        if (idle) {
          this.#busy.add(idle);
          return idle;
        }
        if (this.#startError !== undefined && spawned > 0 && this.#starting.size === 0) {
          return `The sandbox process could not start: ${this.#startError}`;
        }
        if (this.#starting.size < this.#waiting && this.#live() < this.#max) {
          spawned++;
          this.#startOne();
        }
        const left = deadline - performance.now();
        if (left <= 0) return "timeout";
        await this.#nextChange(left, signal);
      }
    } finally {
      this.#waiting--;
    }
  }

  #release(proc: SandboxProcess, reusable: boolean): void {
    this.#busy.delete(proc);
    if (
      reusable && proc.alive && !this.#closed && (this.#waiting > 0 || this.#live() < this.#size)
    ) {
      this.#idle.push(proc);
    } else {
      proc.kill();
    }
    this.#notify();
    this.#topUp();
  }

  /** Starts processes until the pool holds `size` of them (not after a failed start). */
  #topUp(): void {
    while (!this.#closed && this.#startError === undefined && this.#live() < this.#size) {
      this.#startOne();
    }
  }

  #startOne(): void {
    let proc: SandboxProcess;
    try {
      proc = new SandboxProcess(this.#spawn());
    } catch (err) {
      this.#startError = err instanceof Error ? err.message : String(err);
      this.#notify();
      return;
    }
    this.#starting.add(proc);
    proc.ready.then(
      () => {
        this.#starting.delete(proc);
        this.#startError = undefined;
        if (this.#closed) proc.kill();
        else this.#idle.push(proc);
        this.#notify();
      },
      (err: unknown) => {
        this.#starting.delete(proc);
        this.#startError = err instanceof Error ? err.message : String(err);
        this.#notify();
      },
    );
    const exit = proc.exited.then(() => {
      const at = this.#idle.indexOf(proc);
      if (at !== -1) this.#idle.splice(at, 1);
      this.#starting.delete(proc);
      this.#exits.delete(exit);
      this.#notify();
      if (!this.#busy.has(proc)) this.#topUp();
    });
    this.#exits.add(exit);
  }

  #live(): number {
    return this.#idle.length + this.#starting.size + this.#busy.size;
  }

  #notify(): void {
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }

  /** Waits for any change in the pool, at most `ms`, or until `signal` aborts. */
  async #nextChange(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const woken = Promise.withResolvers<void>();
    const wake = () => woken.resolve();
    const timer = setTimeout(wake, ms);
    signal?.addEventListener("abort", wake, { once: true });
    try {
      await Promise.race([this.#changed.promise, woken.promise]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", wake);
    }
  }
}

interface RunEnd {
  error: RemcpError | undefined;
  result: unknown;
  cut: string[];
  stats: RunStats;
  logs: string;
  reusable: boolean;
}

/** Calls the host's invoke handler and turns whatever happens into a protocol answer. */
async function callHost(
  invoke: InvokeHandler,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  lanes: LaneLink | undefined,
): Promise<{ valueJson: string } | WireError> {
  try {
    const value: unknown = await invoke(name, args, signal, lanes);
    if (value instanceof JsonText) return { valueJson: value.json };
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return {
        code: "Internal",
        message: `Tool ${name} returned a result that is not an object`,
        detail: {},
      };
    }
    return { valueJson: JSON.stringify(value) };
  } catch (err) {
    return invokeFailure(err);
  }
}

function wallTimeout(limitMs: number, pendingInvokes: number): RemcpError {
  return new RemcpError(
    "SandboxTimeout",
    `The script did not finish within its ${limitMs} ms wall-clock limit (invokes included) and ` +
      "was stopped; do less per execute call or raise timeout_s",
    { limit_ms: limitMs, pending_invokes: pendingInvokes },
  );
}

function cancelled(): RemcpError {
  return new RemcpError("Cancelled", "The script was cancelled before it finished");
}
