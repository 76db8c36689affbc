/**
 * The QuickJS engine of the `execute` sandbox: one fresh WebAssembly instance, runtime and
 * context per run, with its memory capped, its CPU time metered by an interrupt handler, and
 * `invoke` bridged to the host through QuickJS promises.
 *
 * Runs in the `remcp sandbox` child process (see sandbox_main.ts), never in the supervisor: the
 * interrupt handler is only polled between bytecodes, so a long built-in call (a sort, a regex)
 * can overrun it, and only killing the process bounds that.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSRuntime,
} from "quickjs-emscripten-core";
import baseVariant from "@jitl/quickjs-ng-wasmfile-release-sync";
import wasmBytes from "@jitl/quickjs-ng-wasmfile-release-sync/wasm" with { type: "bytes" };
import { type Limits, MAX_STACK_BYTES, WASM_PAGE_BYTES } from "./limits.ts";
import type { GlobalValue, GuestLogLevel, RunStats, WireError } from "./protocol.ts";
import { runScript } from "./_run_script.ts";

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

/** The QuickJS engine, its WebAssembly compiled once; each run instantiates it afresh. */
export class SandboxEngine {
  readonly #module: WebAssembly.Module;

  private constructor(module: WebAssembly.Module) {
    this.#module = module;
  }

  /**
   * Compiles the WebAssembly and makes one throwaway instance, so that every module the engine
   * loads lazily is loaded before the caller drops its permissions.
   */
  static async load(): Promise<SandboxEngine> {
    const engine = new SandboxEngine(new WebAssembly.Module(wasmBytes));
    const { runtime } = await engine.#instantiate(32 * 1024 * 1024);
    runtime.dispose();
    return engine;
  }

  /** Runs one script in a fresh instance. Never rejects: every failure is an outcome. */
  async run(run: EngineRun, host: EngineHost): Promise<EngineOutcome> {
    const { runtime, memory } = await this.#instantiate(run.limits.memoryBytes);
    return await runScript({ runtime, memory, run, host });
  }

  async #instantiate(
    memoryBytes: number,
  ): Promise<{ runtime: QuickJSRuntime; memory: WebAssembly.Memory }> {
    const memory = new WebAssembly.Memory({
      initial: 256,
      maximum: Math.floor(memoryBytes / WASM_PAGE_BYTES),
    });
    const variant = newVariant(syncVariant(baseVariant), {
      wasmModule: this.#module,
      wasmMemory: memory,
    });
    const module = await newQuickJSWASMModuleFromVariant(variant);
    const runtime = module.newRuntime();
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    return { runtime, memory };
  }
}

type SyncVariant = Extract<Parameters<typeof newVariant>[0], { type: "sync" }>;

/**
 * The variant package's CommonJS type declarations make its default export look like the module
 * namespace; at run time it is the variant object. This checks that and narrows the type.
 */
function syncVariant(value: unknown): SyncVariant {
  if (
    typeof value === "object" && value !== null && "type" in value && value.type === "sync" &&
    "importFFI" in value && typeof value.importFFI === "function" &&
    "importModuleLoader" in value && typeof value.importModuleLoader === "function"
  ) {
    return value as SyncVariant;
  }
  throw new TypeError("The QuickJS variant package did not export a sync variant");
}
