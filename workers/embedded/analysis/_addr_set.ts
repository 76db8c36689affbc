/**
 * A fixed set of addresses as one sorted typed array: 8 bytes an address instead of a hash
 * entry each. Explorations keep their instructions, block leaders and block enders like this
 * once done, because an analysis keeps every function's until the end.
 */
export class AddrSet {
  readonly #a: Float64Array;

  /** The addresses of `values` (repeats count once). */
  constructor(values: readonly number[]) {
    // An indexed copy into an array sized at once: the iterator protocol over a plain array
    // cost more than the sort, for every exploration.
    const a = new Float64Array(values.length);
    for (let i = 0; i < a.length; i++) a[i] = values[i]!;
    a.sort();
    let n = 0;
    for (let k = 0; k < a.length; k++) if (n === 0 || a[k] !== a[n - 1]) a[n++] = a[k]!;
    this.#a = n === a.length ? a : a.slice(0, n);
  }

  get size(): number {
    return this.#a.length;
  }

  has(addr: number): boolean {
    return this.indexOf(addr) >= 0;
  }

  /** The position of `addr` in increasing order, or -1. */
  indexOf(addr: number): number {
    const a = this.#a;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = a[mid]!;
      if (v < addr) lo = mid + 1;
      else if (v > addr) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /** The addresses in increasing order, as one array (do not modify). */
  get array(): Float64Array {
    return this.#a;
  }

  /** The addresses in increasing order. */
  [Symbol.iterator](): IterableIterator<number> {
    return this.#a.values();
  }
}
