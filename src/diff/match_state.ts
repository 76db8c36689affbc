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
  withdraw(ms: ReadonlySet<Match>): void {
    if (ms.size === 0) return;
    for (const m of ms) {
      this.partnerA[m.a] = -1;
      this.partnerB[m.b] = -1;
      this.banned.add(m.a * this.b.length + m.b);
    }
    const keep = this.matches.filter((m) => !ms.has(m));
    this.matches.length = 0;
    this.matches.push(...keep);
  }
}

/** Groups `items` by `key`, leaving out those whose key is undefined. */
export function groupBy<T>(items: T[], key: (t: T) => string | undefined): Map<string, T[]> {
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
