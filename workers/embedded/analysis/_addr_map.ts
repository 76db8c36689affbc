/**
 * A hash map from addresses to numbers in typed arrays (open addressing, linear probing), for
 * the per-instruction bookkeeping of exploration. A `Map` costs a hash-table entry per address
 * and a lookup through the runtime's generic hashing; exploring a big binary does tens of
 * millions of such lookups. {@link AddrMap.clear} is O(1) (a generation stamp), so one map
 * serves every function in turn.
 */

const EMPTY = 0;

/** Address → non-negative number (or any number but NaN); `get` answers NaN when absent. */
export class AddrMap {
  #keys: Float64Array;
  #values: Float64Array;
  /** The generation each slot was written in; slots of older generations are empty. */
  #stamp: Uint32Array;
  #generation = 1;
  #mask: number;
  #shift: number;
  #size = 0;

  /** `capacity`: initial slots, rounded up to a power of two. */
  constructor(capacity = 1024) {
    let bits = 4;
    while (1 << bits < capacity) bits++;
    this.#keys = new Float64Array(1 << bits);
    this.#values = new Float64Array(1 << bits);
    this.#stamp = new Uint32Array(1 << bits);
    this.#mask = (1 << bits) - 1;
    this.#shift = 32 - bits;
  }

  get size(): number {
    return this.#size;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#size = 0;
    if (++this.#generation === 0xffffffff) {
      this.#stamp.fill(EMPTY);
      this.#generation = 1;
    }
  }

  #slot(addr: number): number {
    const hi = (addr / 4294967296) >>> 0;
    return Math.imul((addr >>> 0) ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> this.#shift;
  }

  /** The value at `addr`, NaN when absent. */
  get(addr: number): number {
    const keys = this.#keys;
    const stamp = this.#stamp;
    const g = this.#generation;
    for (let i = this.#slot(addr);; i = (i + 1) & this.#mask) {
      if (stamp[i] !== g) return NaN;
      if (keys[i] === addr) return this.#values[i]!;
    }
  }

  has(addr: number): boolean {
    const v = this.get(addr);
    return v === v;
  }

  /** Sets `addr` to `value`. */
  set(addr: number, value: number): void {
    if ((this.#size + 1) * 2 > this.#mask) this.#grow();
    const keys = this.#keys;
    const stamp = this.#stamp;
    const g = this.#generation;
    for (let i = this.#slot(addr);; i = (i + 1) & this.#mask) {
      if (stamp[i] !== g) {
        stamp[i] = g;
        keys[i] = addr;
        this.#values[i] = value;
        this.#size++;
        return;
      }
      if (keys[i] === addr) {
        this.#values[i] = value;
        return;
      }
    }
  }

  /** Sets `addr` to `value` unless it has a value; true when it was absent. */
  add(addr: number, value: number): boolean {
    if (this.has(addr)) return false;
    this.set(addr, value);
    return true;
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    const stamp = this.#stamp;
    const g = this.#generation;
    const n = keys.length * 2;
    this.#keys = new Float64Array(n);
    this.#values = new Float64Array(n);
    this.#stamp = new Uint32Array(n);
    this.#mask = n - 1;
    this.#shift--;
    this.#generation = 1;
    this.#size = 0;
    for (let i = 0; i < keys.length; i++) if (stamp[i] === g) this.set(keys[i]!, values[i]!);
  }
}
