/**
 * One tool call at a time in a worker, whichever connection it came on: the supervisor's channel
 * and the lanes of sandboxes (workers/lanes.ts). Engines are single-threaded or hold global state
 * (rizin's pipe answers one command at a time), so the worker, not only the supervisor's pool,
 * keeps them from seeing two calls at once: lanes bypass the pool.
 */
export class ToolQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after every call queued before it has settled. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn, fn);
    this.#tail = result.catch(() => {});
    return result;
  }

  /** Settles once every call queued so far has settled. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}
