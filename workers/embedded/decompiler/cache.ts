/**
 * The per-database cache of decompiled functions and their callees' summaries (service.ts fills
 * it): a file of its own, so that the database (db.ts) can hold one without importing the
 * decompiler's service, which imports the database.
 */

import type { Decompiled } from "./decompile.ts";

/** Per-database cache of decompiled functions, by start address. */
export class DecompilerCache {
  readonly #entries = new Map<number, Decompiled>();
  /** Callees' parameter counts and return values, by start. */
  readonly summaries = new Map<number, Summary>();
  readonly #max: number;

  constructor(max = 256) {
    this.#max = max;
  }

  get(start: number): Decompiled | undefined {
    const d = this.#entries.get(start);
    if (d) {
      // Most recently used last.
      this.#entries.delete(start);
      this.#entries.set(start, d);
    }
    return d;
  }

  set(start: number, d: Decompiled): void {
    this.#entries.set(start, d);
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /** Forgets one function, or everything (a prototype changes its callers too). */
  invalidate(start?: number): void {
    this.summaries.clear();
    if (start === undefined) this.#entries.clear();
    else this.#entries.delete(start);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** A callee's parameter count and whether it returns a value, from decompiling it alone. */
export interface Summary {
  params: number;
  floatParams: number;
  returns: boolean;
  floatReturn: boolean;
  indirectResult: boolean;
  /** Returns a double-width integer (`long long` in edx:eax on x86-32). */
  wideReturn: boolean;
}
