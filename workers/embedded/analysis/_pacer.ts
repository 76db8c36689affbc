/**
 * Cooperative scheduling for long analyses: the worker's single JS thread must keep answering
 * status requests, so work yields a macrotask at least every few milliseconds.
 */

/** Progress callback: `fraction` in [0, 1]. */
export type ProgressCallback = (fraction: number, message: string) => void;

/** Yields to the event loop when the time slice is used, reports progress, honours aborts. */
export class Pacer {
  readonly #slice: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onProgress: ProgressCallback | undefined;
  #last = performance.now();
  /** Macrotask yields so far (tests check responsiveness through it). */
  yields = 0;

  readonly #deadline: number;

  /** `deadline`: the `performance.now()` time after which {@link check} throws. */
  constructor(
    sliceMs: number,
    signal?: AbortSignal,
    onProgress?: ProgressCallback,
    deadline?: number,
  ) {
    this.#slice = sliceMs;
    this.#signal = signal;
    this.#onProgress = onProgress;
    this.#deadline = deadline ?? Infinity;
  }

  /**
   * Throws when aborted or past the deadline. Synchronous, for long stretches that do not yield
   * (an abort signal's timer cannot fire while they run).
   */
  check(): void {
    this.#signal?.throwIfAborted();
    if (performance.now() > this.#deadline) {
      throw new DOMException("The analysis time budget is used up", "TimeoutError");
    }
  }

  /** Whether the current slice is used up; cheap enough to call in inner loops. */
  due(): boolean {
    return performance.now() - this.#last >= this.#slice;
  }

  /** Yield a macrotask if the slice is used, then report progress; throws when aborted. */
  async tick(fraction: number, message: string): Promise<void> {
    this.check();
    if (!this.due()) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    this.yields++;
    this.#last = performance.now();
    this.check();
    this.#onProgress?.(Math.min(1, Math.max(0, fraction)), message);
  }

  /** Report progress now (phase boundaries), yielding too. */
  async phase(fraction: number, message: string): Promise<void> {
    this.check();
    this.#onProgress?.(fraction, message);
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    this.yields++;
    this.#last = performance.now();
  }
}
