/**
 * Block-level matching of two versions of one function: entry to entry, equal blocks whose text
 * is unique, then outward along CFG edges and by similarity. Ties stay unmatched. Pure.
 */
import { lineSimilarity } from "./text_diff.ts";

/** A basic block with its instructions as normalized text lines. */
export interface BlockView {
  start: number;
  end: number;
  lines: string[];
  /** Indices of successor blocks in the same function. */
  successors: number[];
  predecessors: number[];
}

/** Matched block pairs and the rest, by index. */
export interface BlockMatch {
  pairs: { a: number; b: number; similarity: number }[];
  onlyA: number[];
  onlyB: number[];
}

/** Matches blocks `a` (entry first) against blocks `b` (entry first). */
export function matchBlocks(a: readonly BlockView[], b: readonly BlockView[]): BlockMatch {
  const partnerA = new Int32Array(a.length).fill(-1);
  const partnerB = new Int32Array(b.length).fill(-1);
  const pairs: BlockMatch["pairs"] = [];
  const queue: number[] = [];
  const textA = a.map((x) => x.lines.join("\n"));
  const textB = b.map((x) => x.lines.join("\n"));
  const pair = (i: number, j: number) => {
    partnerA[i] = j;
    partnerB[j] = i;
    pairs.push({
      a: i,
      b: j,
      similarity: Math.round(lineSimilarity(a[i]!.lines, b[j]!.lines) * 1000) / 1000,
    });
    queue.push(pairs.length - 1);
  };
  const uniqueText = (is: number[], js: number[]) => {
    const count = (texts: string[], ks: number[]) => {
      const m = new Map<string, number[]>();
      for (const k of ks) m.set(texts[k]!, [...(m.get(texts[k]!) ?? []), k]);
      return m;
    };
    const left = count(textA, is.filter((i) => partnerA[i] === -1));
    const right = count(textB, js.filter((j) => partnerB[j] === -1));
    for (const [t, ia] of left) {
      const jb = right.get(t);
      if (ia.length === 1 && jb?.length === 1) pair(ia[0]!, jb[0]!);
    }
  };
  const bestMutual = (is: number[], js: number[], min: number) => {
    const fa = is.filter((i) => partnerA[i] === -1);
    const fb = js.filter((j) => partnerB[j] === -1);
    if (fa.length === 0 || fb.length === 0 || fa.length * fb.length > 40_000) return;
    const sims = fa.map((i) => fb.map((j) => lineSimilarity(a[i]!.lines, b[j]!.lines)));
    fa.forEach((i, r) => {
      const row = sims[r]!;
      const best = Math.max(...row);
      if (best < min || row.filter((s) => s >= best - 0.02).length !== 1) return;
      const c = row.indexOf(best);
      const col = sims.map((x) => x[c]!);
      if (col.filter((s) => s >= best - 0.02).length !== 1) return;
      if (partnerA[i] === -1 && partnerB[fb[c]!] === -1) pair(i, fb[c]!);
    });
  };
  // Equal texts in the same CFG order (switch cases, both arms of a diamond) pair by position:
  // the order of a matched block's edges is structure, not a guess.
  const inOrder = (is: number[], js: number[]) => {
    const fa = is.filter((i) => partnerA[i] === -1);
    const fb = js.filter((j) => partnerB[j] === -1);
    if (fa.length !== fb.length || fa.some((i, k) => textA[i] !== textB[fb[k]!])) return;
    fa.forEach((i, k) => pair(i, fb[k]!));
  };
  if (a.length > 0 && b.length > 0) pair(0, 0);
  uniqueText([...a.keys()], [...b.keys()]);
  for (;;) {
    const before = pairs.length;
    while (queue.length > 0) {
      const p = pairs[queue.pop()!]!;
      for (const dir of ["successors", "predecessors"] as const) {
        const is = a[p.a]![dir];
        const js = b[p.b]![dir];
        uniqueText(is, js);
        inOrder(is, js);
        const fa = is.filter((i) => partnerA[i] === -1);
        const fb = js.filter((j) => partnerB[j] === -1);
        if (fa.length === 1 && fb.length === 1) {
          if (lineSimilarity(a[fa[0]!]!.lines, b[fb[0]!]!.lines) >= 0.3) pair(fa[0]!, fb[0]!);
        } else bestMutual(fa, fb, 0.5);
      }
    }
    bestMutual([...a.keys()], [...b.keys()], 0.6);
    if (pairs.length === before) break;
  }
  return {
    pairs: pairs.sort((x, y) => a[x.a]!.start - a[y.a]!.start),
    onlyA: [...a.keys()].filter((i) => partnerA[i] === -1),
    onlyB: [...b.keys()].filter((j) => partnerB[j] === -1),
  };
}
