/**
 * The state the matching rounds share: who is paired with whom so far, the two call graphs, and
 * the pairs not yet spread through the call graph. Pure data; the rounds live in match.ts,
 * anchors.ts and sequence.ts.
 */
import type { FunctionFeatures } from "./features.ts";
import { similarity } from "./similarity.ts";

/** One matched pair, by index into the two feature lists. */
export interface Match {
  a: number;
  b: number;
  similarity: number;
  /** The round that matched the pair. */
  round: string;
}

/** Callees and callers of each function, by index (each list without repeats). */
export interface CallGraph {
  callees: number[][];
  callers: number[][];
}

/** Pairs found so far between the functions of `a` and `b`. */
export class MatchState {
  readonly partnerA: Int32Array;
  readonly partnerB: Int32Array;
  readonly graphA: CallGraph;
  readonly graphB: CallGraph;
  readonly matches: Match[] = [];
  /** Pairs whose neighbours propagation has not looked at yet. */
  readonly pending: Match[] = [];

  constructor(readonly a: readonly FunctionFeatures[], readonly b: readonly FunctionFeatures[]) {
    this.partnerA = new Int32Array(a.length).fill(-1);
    this.partnerB = new Int32Array(b.length).fill(-1);
    this.graphA = callGraph(a);
    this.graphB = callGraph(b);
  }

  /** Pairs taken back by {@link withdraw}, as `i * b.length + j`: never made again. */
  readonly banned = new Set<number>();

  /**
   * Pairs made on a key that was unique only because other pairs had already taken the rest of
   * its group on either side: the functions of the group so taken (see {@link dependents}).
   */
  readonly dependsOn = new Map<Match, Rest[]>();

  /** Records `a[i]` ↔ `b[j]` as found by `round`, unless the pair was withdrawn before. */
  pair(i: number, j: number, round: string): void {
    if (this.partnerA[i] !== -1 || this.partnerB[j] !== -1) {
      throw new RangeError(`pair(${i}, ${j}): one side is already matched`);
    }
    if (this.banned.has(i * this.b.length + j)) return;
    this.partnerA[i] = j;
    this.partnerB[j] = i;
    const m = { a: i, b: j, similarity: similarity(this.a[i]!, this.b[j]!), round };
    this.matches.push(m);
    this.pending.push(m);
  }

  /**
   * Takes back the pairs in `ms`, leaving both sides unmatched; {@link pair} refuses them from
   * then on. Only between whole passes of rounds: within a pass they rely on matches never being
   * undone (the global similarity round keeps candidates across its runs).
   */
  withdraw(ms: ReadonlySet<Match>, ban = true): void {
    if (ms.size === 0) return;
    for (const m of ms) {
      this.partnerA[m.a] = -1;
      this.partnerB[m.b] = -1;
      if (ban) this.banned.add(m.a * this.b.length + m.b);
      this.dependsOn.delete(m);
    }
    const keep = this.matches.filter((m) => !ms.has(m));
    this.matches.length = 0;
    this.matches.push(...keep);
  }
}

/** A matched function of the key group a pair was made in, and its side: the pair rests on it. */
export interface Rest {
  side: "a" | "b";
  index: number;
  /** The function's pair at the time, as `i * b.length + j`. */
  pair: number;
}

/**
 * The pairs of `s` that rested on a pair of `gone` (withdrawn) and no longer stand: made on a key
 * unique only because a pair of `gone` had taken another function of its group, unless the pair
 * is still at least `margin` more similar than the freed function would be in its place; then
 * those resting on them, in turn. nghttp2 1.40's `…_remote_initial_window_size` has the bytes of
 * 1.52's `…_local_…` (fields moved); pairing those two left the other two alone in their
 * mnemonics group, so they paired too, and withdrawing the first pair (wrong) left the second
 * (wrong as well, and as similar as its rival) standing.
 */
export function dependents(s: MatchState, gone: readonly Match[], margin: number): Match[] {
  const code = (m: Match) => m.a * s.b.length + m.b;
  const codes = new Set(gone.map(code));
  const out = new Set<Match>();
  for (let found = true; found;) {
    found = false;
    for (const [m, rests] of s.dependsOn) {
      if (out.has(m)) continue;
      const freed = rests.filter((r) => codes.has(r.pair));
      if (freed.length === 0) continue;
      const rival = Math.max(
        ...freed.map((r) =>
          r.side === "a"
            ? similarity(s.a[r.index]!, s.b[m.b]!)
            : similarity(s.a[m.a]!, s.b[r.index]!)
        ),
      );
      if (m.similarity >= rival + margin) continue;
      out.add(m);
      codes.add(code(m));
      found = true;
    }
  }
  return [...out];
}

/** Groups `items` by `key`, leaving out those whose key is undefined. */
export function groupBy<T>(
  items: readonly T[],
  key: (t: T) => string | undefined,
): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    if (k === undefined) continue;
    const list = out.get(k);
    if (list) list.push(t);
    else out.set(k, [t]);
  }
  return out;
}

/** Callees and callers of each function, by index. */
export function callGraph(fs: readonly FunctionFeatures[]): CallGraph {
  const index = new Map(fs.map((f, i) => [f.start, i]));
  const callees = fs.map((f) => [
    ...new Set(f.callees.map((s) => index.get(s)).filter((i): i is number => i !== undefined)),
  ]);
  const callers: number[][] = fs.map(() => []);
  callees.forEach((cs, i) => {
    for (const c of cs) callers[c]!.push(i);
  });
  return { callees, callers };
}
