/**
 * The QuickJS engine of the `execute` sandbox: one fresh WebAssembly instance, runtime and
 * context per run (made while the sandbox was idle), with its memory capped, its CPU time metered
 * by an interrupt handler, and `invoke` bridged to the host through QuickJS promises.
 *
 * Runs in the `remcp sandbox` child process (see sandbox_main.ts), never in the supervisor: the
 * interrupt handler is only polled between bytecodes, so a long built-in call (a sort, a regex)
 * can overrun it, and only killing the process bounds that.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSRuntime,
} from "quickjs-emscripten-core";
import baseVariant from "@jitl/quickjs-ng-wasmfile-release-sync";
import wasmBytes from "@jitl/quickjs-ng-wasmfile-release-sync/wasm" with { type: "bytes" };
import { DEFAULT_LIMITS, type Limits, MAX_STACK_BYTES, WASM_PAGE_BYTES } from "./limits.ts";
import { type CpuClock, processCpuMs, runGuest } from "./_guest_run.ts";
import { disposePrelude, type InstalledPrelude, installPrelude } from "./guest_prelude.ts";
import type { EngineHost, EngineOutcome, EngineRun } from "./engine_types.ts";

/**
 * A WebAssembly instance of QuickJS with its runtime and context, never used by a script; with the
 * prelude installed for `maxLogBytes`, or not yet (`prelude` undefined).
 */
interface Instance {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  memory: WebAssembly.Memory;
  prelude: InstalledPrelude | undefined;
  memoryBytes: number;
  maxLogBytes: number;
}

/**
 * The QuickJS engine, its WebAssembly compiled once; each run gets a fresh instance.
 *
 * Instantiating takes 2–8 ms (the emscripten module's start, the runtime, the context, the
 * prelude), which a run would wait for: so the engine keeps one spare instance, made at load and
 * again after each run, once its answer is out, while nobody waits. A spare has never run a script; a run whose
 * memory or log limit differs makes its own. The spare made at load has no prelude yet: the first
 * run installs it, because compiling it then also compiles the engine's parser (V8 compiles the
 * WebAssembly's functions when first called), which an idle process that never runs a script
 * should not hold (~9 MB of its RSS, bench/sandbox_start.ts).
 */
export class SandboxEngine {
  readonly #module: WebAssembly.Module;
  readonly #onInstance: (() => void) | undefined;
  readonly #cpuClock: CpuClock;
  #spare: Promise<Instance> | undefined;

  private constructor(module: WebAssembly.Module, options: EngineOptions) {
    this.#module = module;
    this.#onInstance = options.onInstance;
    this.#cpuClock = options.cpuClock ?? processCpuMs;
  }

  /**
   * Compiles the WebAssembly and makes the first spare instance, so that every module the engine
   * loads lazily is loaded before the caller drops its permissions.
   */
  static async load(options: EngineOptions = {}): Promise<SandboxEngine> {
    const engine = new SandboxEngine(new WebAssembly.Module(wasmBytes), options);
    engine.#spare = Promise.resolve(await engine.#instantiate(DEFAULT_LIMITS, false));
    return engine;
  }

  /**
   * Runs one script in a fresh instance. Never rejects: every failure is an outcome. The next
   * spare instance is made in a later task, after the caller's handling of the outcome.
   */
  async run(run: EngineRun, host: EngineHost): Promise<EngineOutcome> {
    const { runtime, context, memory, prelude } = await this.#fresh(run.limits);
    try {
      return await runGuest({
        runtime,
        context,
        memory,
        prelude,
        run,
        host,
        cpuClock: this.#cpuClock,
      });
    } finally {
      // A task, not a microtask: making an instance is a chain of promise continuations (~5 ms
      // of CPU), which a microtask would run before the event loop wrote the run's answer, so
      // the answer waited for the spare (measured: 3-40 ms between the script's end and the
      // parent reading `done` at load ~9, 1-3 ms after; docs/ARCHITECTURE.md section 7).
      setTimeout(() => {
        this.#spare ??= this.#instantiate(run.limits);
        this.#spare.catch(() => {});
      }, 0);
    }
  }

  /** The spare instance if it fits the limits, else a new one. */
  async #fresh(limits: InstanceLimits): Promise<Instance> {
    const pending = this.#spare;
    this.#spare = undefined;
    const spare = await pending?.catch(() => undefined);
    if (
      spare?.memoryBytes === limits.memoryBytes &&
      (spare.prelude === undefined || spare.maxLogBytes === limits.maxLogBytes)
    ) {
      return spare;
    }
    if (spare) {
      if (spare.prelude) disposePrelude(spare.prelude);
      spare.context.dispose();
      spare.runtime.dispose();
    }
    return await this.#instantiate(limits);
  }

  async #instantiate(
    { memoryBytes, maxLogBytes }: InstanceLimits,
    withPrelude = true,
  ): Promise<Instance> {
    this.#onInstance?.();
    const memory = new WebAssembly.Memory({
      initial: 256,
      maximum: Math.floor(memoryBytes / WASM_PAGE_BYTES),
    });
    const variant = newVariant(withoutNodeDetection(syncVariant(baseVariant)), {
      wasmModule: this.#module,
      wasmMemory: memory,
    });
    const module = await newQuickJSWASMModuleFromVariant(variant);
    const runtime = module.newRuntime();
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    const context = runtime.newContext();
    const prelude = withPrelude ? installPrelude(context, maxLogBytes) : undefined;
    return { runtime, context, memory, prelude, memoryBytes, maxLogBytes };
  }
}

/** Options of {@link SandboxEngine.load}. */
export interface EngineOptions {
  /** Called as the engine starts making an instance (a spare, or one a run waits for). */
  onInstance?: () => void;
  /**
   * The CPU clock runs are charged by (ms); by default the process's, right for a sandbox
   * process. A thread, which shares its process, passes its own thread's.
   */
  cpuClock?: CpuClock;
}

/** The limits an instance is made for. */
type InstanceLimits = Pick<Limits, "memoryBytes" | "maxLogBytes">;

type SyncVariant = Extract<Parameters<typeof newVariant>[0], { type: "sync" }>;

/**
 * The variant with its emscripten module kept from taking the Node.js path. The module decides
 * once, synchronously as it starts, from `globalThis.process`; Deno has that global, so the module
 * would import `node:module`, `node:fs`, `node:path` and `node:url` and read `process.argv`, and
 * Deno would set up its Node.js compatibility for that: ~9 MB of a sandbox process's resident
 * memory and ~30 ms of its start (bench/sandbox_start.ts, docs/ARCHITECTURE.md section 7), for
 * code that only loads the WebAssembly from a file, which this engine never asks it to (it hands
 * over the compiled module). With the global hidden for that synchronous start, the module takes
 * its plain path. Nothing else runs meanwhile, so nothing else sees the global missing.
 */
function withoutNodeDetection(variant: SyncVariant): SyncVariant {
  return {
    ...variant,
    async importModuleLoader() {
      const loaded: unknown = await variant.importModuleLoader();
      const load = moduleLoaderOf(loaded);
      return ((arg?: unknown) => withoutGlobalProcess(() => load(arg))) as Awaited<
        ReturnType<SyncVariant["importModuleLoader"]>
      >;
    },
  };
}

/** The emscripten module's factory, as the variant package exports it (maybe as `default`). */
function moduleLoaderOf(loaded: unknown): (arg?: unknown) => unknown {
  if (typeof loaded === "function") return loaded as (arg?: unknown) => unknown;
  if (typeof loaded === "object" && loaded !== null && "default" in loaded) {
    return moduleLoaderOf(loaded.default);
  }
  throw new TypeError("The QuickJS variant package did not export an emscripten module loader");
}

/** Calls `f` with `globalThis.process` hidden, if it can be hidden and put back. */
function withoutGlobalProcess<T>(f: () => T): T {
  const own = Object.getOwnPropertyDescriptor(globalThis, "process");
  if (own === undefined || !own.configurable) return f();
  Object.defineProperty(globalThis, "process", {
    value: undefined,
    configurable: true,
    writable: true,
  });
  try {
    return f();
  } finally {
    Object.defineProperty(globalThis, "process", own);
  }
}

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
