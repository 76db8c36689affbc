/**
 * The types between the sandbox child's protocol side and its QuickJS engine, in a leaf module
 * (sandbox_main.ts, quickjs.ts and _guest_run.ts all use them).
 */
import type { Limits } from "./limits.ts";
import type { GlobalValue, GuestLogLevel, RunStats, WireError } from "./protocol.ts";

/** The outcome of one invoke, as the host reports it to the engine. */
export type InvokeOutcome =
  | { ok: true; valueJson: string }
  | { ok: false; error: WireError };

/** What the engine needs from whoever runs it. */
export interface EngineHost {
  /** Runs a tool for the script; `argsJson` is a JSON object. Never rejects. */
  invoke(callId: number, name: string, argsJson: string): Promise<InvokeOutcome>;
  /** Console output, already formatted and within the log budget. */
  log(level: GuestLogLevel, text: string): void;
}

/** One run's input. */
export interface EngineRun {
  code: string;
  globals: Readonly<Record<string, GlobalValue>>;
  limits: Limits;
  /** Aborting ends the run with `Cancelled` the next time the script waits on an invoke. */
  signal?: AbortSignal | undefined;
}

/** One run's outcome. `resultJson` is the result serialized by the guest. */
export type EngineOutcome =
  & ({ ok: true; resultJson: string } | { ok: false; error: WireError })
  & {
    stats: RunStats;
    /**
     * Whether every handle, the context and the runtime were disposed without error. A run that
     * ended on a limit abandons its instance to the garbage collector instead, and is not clean.
     */
    clean: boolean;
  };

/** Evaluate a global script with top-level `await`; the result is a promise of `{value}`. */
export const JS_EVAL_FLAG_ASYNC = 1 << 7;
