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
import { runGuest } from "./_guest_run.ts";
import type { EngineHost, EngineOutcome, EngineRun } from "./engine_types.ts";

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
    return await runGuest({ runtime, memory, run, host });
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
