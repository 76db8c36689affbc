/**
 * A fixed set of addresses as one sorted typed array: 8 bytes an address instead of a hash
 * entry each. Explorations keep their instructions, block leaders and block enders like this
 * once done, because an analysis keeps every function's until the end.
 */
export class AddrSet {
  readonly #a: Float64Array;

  constructor(values: Iterable<number>) {
    this.#a = Float64Array.from(values).sort();
  }

  get size(): number {
    return this.#a.length;
  }

  has(addr: number): boolean {
    const a = this.#a;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = a[mid]!;
      if (v < addr) lo = mid + 1;
      else if (v > addr) hi = mid - 1;
      else return true;
    }
    return false;
  }

  /** The addresses in increasing order. */
  [Symbol.iterator](): IterableIterator<number> {
    return this.#a.values();
  }
}
