/**
 * What keeps a daemon busy, for its idle clock: open HTTP requests (a streamed response counts
 * until its body ends), attached proxies (each holds one `/remcp/attach` stream), and tool calls
 * in flight in the supervisor. The daemon is idle when all three are zero; an auto-started daemon
 * exits once it has been idle for its timeout.
 */

/** Options of {@link Activity}. */
export interface ActivityOptions {
  /** Tool calls in flight (the supervisor's count). */
  callsInFlight: () => number;
  /** Milliseconds now (tests pass a fake clock). */
  now?: () => number;
}

/** Counts what keeps the daemon busy and remembers when it last was. */
export class Activity {
  #requests = 0;
  #attached = new Map<string, number>();
  #lastBusy: number;
  #opts: ActivityOptions;
  #now: () => number;

  constructor(opts: ActivityOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#lastBusy = this.#now();
  }

  /** Marks one HTTP request open; the returned function closes it (calling it twice is safe). */
  beginRequest(): () => void {
    this.#requests++;
    this.#lastBusy = this.#now();
    return once(() => {
      this.#requests--;
      this.#lastBusy = this.#now();
    });
  }

  /** Marks `session` attached; the returned function detaches this attachment. */
  attach(session: string): () => void {
    this.#attached.set(session, (this.#attached.get(session) ?? 0) + 1);
    this.#lastBusy = this.#now();
    return once(() => {
      const n = (this.#attached.get(session) ?? 1) - 1;
      if (n > 0) this.#attached.set(session, n);
      else this.#attached.delete(session);
      this.#lastBusy = this.#now();
    });
  }

  /** Sessions with a proxy attached now. */
  sessions(): string[] {
    return [...this.#attached.keys()];
  }

  /** Whether `session` has a proxy attached. */
  isAttached(session: string): boolean {
    return this.#attached.has(session);
  }

  /** Open HTTP requests. */
  get requests(): number {
    return this.#requests;
  }

  /** Whether anything keeps the daemon busy now. */
  busy(): boolean {
    return this.#requests > 0 || this.#attached.size > 0 || this.#opts.callsInFlight() > 0;
  }

  /** Milliseconds the daemon has been idle (0 while busy). */
  idleMs(): number {
    const now = this.#now();
    if (this.busy()) {
      this.#lastBusy = now;
      return 0;
    }
    return now - this.#lastBusy;
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
