/**
 * A full garbage collection on request, for the phase boundaries of a big analysis. V8 collects
 * lazily: between two collections the old generation may grow to several times what is alive,
 * and a big binary's analysis leaves a lot behind at each phase (every function's trace is
 * replaced when the non-returning set grows; the decoded instructions are dropped once the CFG
 * is built). Collecting there keeps the worker's peak near what is alive, for a few full
 * collections per analysis, instead of running every collection in a memory-saving mode
 * (`--optimize-for-size` halves the peak but doubles the analysis time, measured on cmake).
 *
 * The collector is reached the way Node programs do: `--expose-gc` set at run time, then `gc`
 * taken from a fresh context, which sees the flag. Where that fails this does nothing.
 */
import v8 from "node:v8";
import vm from "node:vm";

let gc: (() => void) | null | undefined;

/** Runs a full garbage collection, when the runtime allows it. */
export function collectGarbage(): void {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      const f: unknown = vm.runInNewContext("gc");
      gc = typeof f === "function" ? f as () => void : null;
    } catch {
      gc = null;
    }
  }
  gc?.();
}

/**
 * Collects when the heap has doubled since the last collection (and holds over 64 MiB): for
 * long phases that leave garbage behind as they go, called every so often.
 */
export class GrowthCollector {
  #after = heapUsed();

  /** Collects if the heap grew enough; cheap to call every few hundred items. */
  check(): void {
    const used = heapUsed();
    if (used < 64 * 1024 * 1024 || used < 2 * this.#after) return;
    collectGarbage();
    this.#after = heapUsed();
  }
}

function heapUsed(): number {
  return v8.getHeapStatistics().used_heap_size;
}
