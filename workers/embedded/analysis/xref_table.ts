/**
 * Cross-references as three columns (from, to, kind) sorted by `from` then `to` then kind,
 * plus the order by `to`: a big binary has hundreds of thousands, and columns cost a fraction
 * of an object each, and go to and from the cache as they are.
 */

import type { Xref, XrefKind } from "./xref.ts";

/** Xref kinds by their code in the `kind` column; also the order of kinds at one (from, to). */
export const XREF_KINDS: readonly XrefKind[] = [
  "call",
  "jump",
  "read",
  "write",
  "offset",
  "string",
];
const KIND_CODE = new Map(XREF_KINDS.map((k, i) => [k, i]));

/** The code of each kind in the `kind` column. */
export const XREF_CODE = Object.fromEntries(XREF_KINDS.map((k, i) => [k, i])) as Record<
  XrefKind,
  number
>;

/**
 * Cross-references as they are found, in columns that grow: a big binary finds hundreds of
 * thousands, and an object each is that many more for every garbage collection to trace.
 */
export class XrefRows {
  from = new Float64Array(1024);
  to = new Float64Array(1024);
  kind = new Uint8Array(1024);
  length = 0;

  /** Adds a row; `kind` is its {@link XREF_CODE}. */
  push(from: number, to: number, kind: number): void {
    const n = this.length;
    if (n === this.from.length) {
      const grow = <T extends Float64Array | Uint8Array>(a: T, b: T): T => {
        b.set(a);
        return b;
      };
      this.from = grow(this.from, new Float64Array(n * 2));
      this.to = grow(this.to, new Float64Array(n * 2));
      this.kind = grow(this.kind, new Uint8Array(n * 2));
    }
    this.from[n] = from;
    this.to[n] = to;
    this.kind[n] = kind;
    this.length = n + 1;
  }

  /** The rows sorted by from, to and kind, without repeats. */
  table(): XrefTable {
    const { from, to, kind } = this;
    const order = new Uint32Array(this.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    order.sort((a, b) => from[a]! - from[b]! || to[a]! - to[b]! || kind[a]! - kind[b]!);
    let n = 0;
    for (let i = 0; i < order.length; i++) {
      const r = order[i]!;
      const p = n > 0 ? order[n - 1]! : -1;
      if (p >= 0 && from[p] === from[r] && to[p] === to[r] && kind[p] === kind[r]) continue;
      order[n++] = r;
    }
    const f = new Float64Array(n);
    const t = new Float64Array(n);
    const k = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const r = order[i]!;
      f[i] = from[r]!;
      t[i] = to[r]!;
      k[i] = kind[r]!;
    }
    return new XrefTable(f, t, k);
  }
}

/** The cross-references of an analysis. */
export class XrefTable {
  /** Float64Array when analysed; Uint32Array when read from a cache whose addresses fit. */
  readonly from: Float64Array | Uint32Array;
  readonly to: Float64Array | Uint32Array;
  readonly kind: Uint8Array;
  /** Row numbers sorted by `to`, then `from`. */
  readonly byTo: Uint32Array;

  /** Columns already sorted by from, to and kind; `byTo` is computed when not given. */
  constructor(
    from: Float64Array | Uint32Array,
    to: Float64Array | Uint32Array,
    kind: Uint8Array,
    byTo?: Uint32Array,
  ) {
    this.from = from;
    this.to = to;
    this.kind = kind;
    this.byTo = byTo ?? orderByTo(to);
  }

  /** Sorted, duplicate-free columns of `xrefs`. */
  static of(xrefs: readonly Xref[]): XrefTable {
    const rows = new XrefRows();
    for (const x of xrefs) rows.push(x.from, x.to, KIND_CODE.get(x.kind)!);
    return rows.table();
  }

  get length(): number {
    return this.from.length;
  }

  /** Row `i` as an object. */
  at(i: number): Xref {
    return { from: this.from[i]!, to: this.to[i]!, kind: XREF_KINDS[this.kind[i]!]! };
  }

  /** The first row whose `from` is ≥ `addr`. */
  firstFrom(addr: number): number {
    const f = this.from;
    let lo = 0;
    let hi = f.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (f[mid]! < addr) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first position in {@link byTo} whose row's `to` is ≥ `addr`. */
  firstTo(addr: number): number {
    const by = this.byTo;
    const t = this.to;
    let lo = 0;
    let hi = by.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t[by[mid]!]! < addr) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * Rows ordered by `to`; rows are sorted by `from` already, so a stable counting sort over the
 * rank of each `to` keeps `from` ascending among equal `to` — without a comparator sort over
 * every row.
 */
function orderByTo(to: Float64Array | Uint32Array): Uint32Array {
  const keys = to.slice().sort();
  let u = 0;
  for (let i = 0; i < keys.length; i++) {
    if (i === 0 || keys[i] !== keys[u - 1]) keys[u++] = keys[i]!;
  }
  const unique = keys.subarray(0, u);
  const rank = new Uint32Array(to.length);
  const count = new Uint32Array(u + 1);
  for (let i = 0; i < to.length; i++) {
    let lo = 0;
    let hi = u - 1;
    const v = to[i]!;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (unique[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    rank[i] = lo;
    count[lo + 1]!++;
  }
  for (let r = 1; r <= u; r++) count[r]! += count[r - 1]!;
  const out = new Uint32Array(to.length);
  for (let i = 0; i < to.length; i++) out[count[rank[i]!]!++] = i;
  return out;
}
