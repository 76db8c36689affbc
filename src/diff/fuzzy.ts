/**
 * The global similarity round, which the matcher runs again after every pass of structural
 * rounds: each unmatched function is paired with its most similar unmatched counterpart when the
 * choice is mutual, clear by a margin and similar enough (as {@link bestMutual} does). Comparing
 * every function with every other of roughly its size is the costliest step of a large diff, and
 * between two runs only a few functions get matched; so the first run keeps each function's few
 * best candidates, and later runs recompute only the rows whose kept candidates ran out.
 * Matches are never undone and similarity never changes, so the outcome is exactly that of a
 * fresh comparison.
 */
import type { FunctionFeatures } from "./features.ts";
import { groupBy, type MatchState } from "./match_state.ts";
import { similarityAtLeast } from "./similarity.ts";

// Candidates kept per function: a later run needs the best two that are still unmatched.
const KEEP = 4;

/** Everything similarity() reads of a function: equal profiles score equally against anything. */
function profile(f: FunctionFeatures): string {
  return JSON.stringify([
    f.bytes_hash,
    f.mnem_hash,
    f.mnem_set_hash,
    f.cfg_sig,
    f.instructions,
    f.size,
    f.blocks,
    f.edges,
    f.loops,
    f.callees.length,
    f.histogram,
    f.strings,
    f.imports,
    f.constants,
  ]);
}

/** One function's best candidates, best first. */
interface Top {
  ks: number[];
  scores: number[];
  /** Whether every candidate reaching the minimum is kept (none was dropped for room). */
  complete: boolean;
}

function insert(top: Top, k: number, score: number): void {
  let at = top.scores.length;
  // After equal scores: the first offered stays first, as MutualBest keeps it.
  while (at > 0 && top.scores[at - 1]! < score) at--;
  if (at >= KEEP) {
    top.complete = false;
    return;
  }
  top.ks.splice(at, 0, k);
  top.scores.splice(at, 0, score);
  if (top.ks.length > KEEP) {
    top.ks.pop();
    top.scores.pop();
    top.complete = false;
  }
}

/** Indices sorted by instruction count, and the window of those with half to twice `n`. */
class BySize {
  readonly order: number[];
  readonly #sizes: number[];
  constructor(ks: readonly number[], size: (k: number) => number) {
    this.order = [...ks].sort((x, y) => size(x) - size(y));
    this.#sizes = this.order.map(size);
  }
  /** The range [from, to) of `order` whose sizes are in [ceil(n / 2), 2n]. */
  window(n: number): [number, number] {
    return [this.#firstAtLeast(Math.ceil(n / 2)), this.#firstAtLeast(n * 2 + 1)];
  }
  #firstAtLeast(n: number): number {
    let lo = 0;
    let hi = this.#sizes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#sizes[mid]! < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The repeated global similarity round over the functions free when it was made. */
export class FuzzyRound {
  readonly #s: MatchState;
  readonly #min: number;
  readonly #margin: number;
  /** The functions of a, in the order their pairs are made. */
  readonly #is: number[];
  readonly #sizeA: BySize;
  readonly #sizeB: BySize;
  readonly #topA = new Map<number, Top>();
  readonly #topB = new Map<number, Top>();

  /**
   * Compares every unmatched `a[i]` (`i` in `is`) with every unmatched `b[j]` (`j` in `js`) of
   * half to twice its instructions (similarity is low for the rest anyway), keeping the pairs
   * that reach `min`.
   */
  constructor(s: MatchState, is: number[], js: number[], min: number, margin = 0.05) {
    this.#s = s;
    this.#min = min;
    this.#margin = margin;
    this.#is = is.filter((i) => s.partnerA[i] === -1);
    this.#sizeA = new BySize(this.#is, (i) => s.a[i]!.instructions);
    this.#sizeB = new BySize(js.filter((j) => s.partnerB[j] === -1), (j) => s.b[j]!.instructions);
    // Functions alike in every input of similarity (stubs, wrappers, identical copies) score the
    // same against everything: each class is compared once, and since a class of more than
    // KEEP ties for every slot, KEEP of its members stand for it (the rest are never a clear
    // best; a row that loses them is recomputed).
    const classesA = [...groupBy(this.#is, (i) => profile(s.a[i]!)).values()];
    const classesB = [...groupBy(this.#sizeB.order, (j) => profile(s.b[j]!)).values()];
    const repsB = new BySize(classesB.keys().toArray(), (c) => s.b[classesB[c]![0]!]!.instructions);
    for (const ca of classesA) {
      const fa = s.a[ca[0]!]!;
      const [from, to] = repsB.window(fa.instructions);
      for (let k = from; k < to; k++) {
        const cb = classesB[repsB.order[k]!]!;
        const sim = similarityAtLeast(fa, s.b[cb[0]!]!, min);
        if (sim < min) continue;
        for (const i of ca) {
          const top = this.#row(this.#topA, i);
          for (let n = 0; n < cb.length && n < KEEP; n++) insert(top, cb[n]!, sim);
          if (cb.length > KEEP) top.complete = false;
        }
        for (const j of cb) {
          const top = this.#row(this.#topB, j);
          for (let n = 0; n < ca.length && n < KEEP; n++) insert(top, ca[n]!, sim);
          if (ca.length > KEEP) top.complete = false;
        }
      }
    }
  }

  /** Pairs the functions still unmatched that chose each other. Returns how many pairs it made. */
  run(round: string): number {
    const s = this.#s;
    const a = (i: number) => this.#current(this.#topA, i, s.partnerB, () => this.#rowOfA(i));
    const b = (j: number) => this.#current(this.#topB, j, s.partnerA, () => this.#rowOfB(j));
    const pairs: [number, number][] = [];
    for (const i of this.#is) {
      if (s.partnerA[i] !== -1) continue;
      const ta = a(i);
      if (!ta || ta.ks.length === 0) continue;
      const j = ta.ks[0]!;
      const tb = b(j);
      if (!tb || tb.ks[0] !== i) continue;
      if (!this.#clear(ta) || !this.#clear(tb)) continue;
      pairs.push([i, j]);
    }
    for (const [i, j] of pairs) s.pair(i, j, round);
    return pairs.length;
  }

  #clear(t: Top): boolean {
    return t.scores[0]! - (t.scores[1] ?? 0) >= this.#margin;
  }

  #row(tops: Map<number, Top>, k: number): Top {
    let t = tops.get(k);
    if (!t) {
      t = { ks: [], scores: [], complete: true };
      tops.set(k, t);
    }
    return t;
  }

  /**
   * The kept candidates of `k` that are still unmatched; recomputed when fewer than two are left
   * and some were dropped, since the best two are then unknown.
   */
  #current(
    tops: Map<number, Top>,
    k: number,
    partner: Int32Array,
    recompute: () => Top,
  ): Top | undefined {
    const t = tops.get(k);
    if (!t) return undefined;
    if (t.ks.some((x) => partner[x] !== -1)) {
      const keep = t.ks.map((x) => partner[x] === -1);
      t.ks = t.ks.filter((_, n) => keep[n]);
      t.scores = t.scores.filter((_, n) => keep[n]);
    }
    if (t.ks.length >= 2 || t.complete) return t;
    const fresh = recompute();
    tops.set(k, fresh);
    return fresh;
  }

  #rowOfA(i: number): Top {
    const s = this.#s;
    return this.#fresh(
      this.#sizeB,
      s.partnerB,
      s.a[i]!.instructions,
      (j) => similarityAtLeast(s.a[i]!, s.b[j]!, this.#min),
    );
  }

  #rowOfB(j: number): Top {
    const s = this.#s;
    // a[i] is in b[j]'s window when b[j] is in a[i]'s: ceil(n_i / 2) <= n_j <= 2 n_i.
    return this.#fresh(
      this.#sizeA,
      s.partnerA,
      s.b[j]!.instructions,
      (i) => similarityAtLeast(s.a[i]!, s.b[j]!, this.#min),
    );
  }

  /** The best candidates among the unmatched of one side whose sizes are in `n`'s window. */
  #fresh(side: BySize, partner: Int32Array, n: number, score: (k: number) => number): Top {
    const t: Top = { ks: [], scores: [], complete: true };
    const [from, to] = side.window(n);
    for (let k = from; k < to; k++) {
      const x = side.order[k]!;
      if (partner[x] !== -1) continue;
      const sim = score(x);
      if (sim >= this.#min) insert(t, x, sim);
    }
    return t;
  }
}
