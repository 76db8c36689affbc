/**
 * Cross-references as three columns (from, to, kind) sorted by `from` then `to` then kind,
 * plus the order by `to`: a big binary has hundreds of thousands, and columns cost a fraction
 * of an object each, and go to and from the cache as they are.
 */

import type { Xref, XrefKind } from "./types.ts";

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

  /** Sorted, duplicate-free columns of `xrefs`, which this sorts and rids of duplicates too. */
  static of(xrefs: Xref[]): XrefTable {
    xrefs.sort((a, b) =>
      a.from - b.from || a.to - b.to || KIND_CODE.get(a.kind)! - KIND_CODE.get(b.kind)!
    );
    let n = 0;
    for (let i = 0; i < xrefs.length; i++) {
      const x = xrefs[i]!;
      const p = n > 0 ? xrefs[n - 1]! : undefined;
      if (p !== undefined && p.from === x.from && p.to === x.to && p.kind === x.kind) continue;
      xrefs[n++] = x;
    }
    xrefs.length = n;
    const from = new Float64Array(n);
    const to = new Float64Array(n);
    const kind = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const x = xrefs[i]!;
      from[i] = x.from;
      to[i] = x.to;
      kind[i] = KIND_CODE.get(x.kind)!;
    }
    return new XrefTable(from, to, kind);
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
