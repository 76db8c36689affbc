/**
 * Import leaves: small functions that call no function of their own binary, only imports (c-ares'
 * `ares__open_socket`, `ares__connect_socket`, `ares__close_socket` wrap `socket`, `connect`,
 * `close`). A release that adds a NULL check or a socket-function table changes their few
 * instructions enough that no key of the rounds holds and similarity stays low, yet the imports
 * they call say which is which: among the callees of a matched caller, one unmatched leaf calling
 * exactly these imports on each side is the same function.
 */
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link importLeafRound}. */
export interface ImportLeafOptions {
  round: string;
  /** Largest leaf, in instructions on either side: a wrapper, not a function with a role. */
  maxInstructions: number;
  /** Least similarity of the pair. */
  minSim: number;
}

/**
 * The thresholds the matcher uses. On the dumped pairs of bench/diff.ts the round made 5 right
 * pairs and no wrong one (c-ares' three socket wrappers, SQLite -O3's `output_file_close`);
 * neither bound changed that (400 instructions, 0.25 similarity made the same pairs). Allowing
 * callees that call functions of their own binary made a wrong pair on libfuse; the same key
 * among all callees in propagation, from the start, made wrong pairs on 7 pairs.
 */
export const IMPORT_LEAF_DEFAULTS: ImportLeafOptions = {
  round: "import_leaves",
  maxInstructions: 40,
  minSim: 0.4,
};

const key = (imports: readonly string[]) => imports.join("\u0001");

/**
 * Pairs, among the callees of each matched pair, the unmatched leaves whose imports no other
 * callee of the same caller shares on either side; a leaf two callers would pair differently is
 * left alone. Returns how many pairs it made.
 */
export function importLeafRound(s: MatchState, opts: ImportLeafOptions): number {
  const { a, b, graphA, graphB, partnerA, partnerB } = s;
  /** The callees of `k` by import key: only keys of leaves count, every callee counts against. */
  const byKey = (
    graph: typeof graphA,
    fs: typeof a,
    partner: Int32Array,
    k: number,
  ): Map<string, number[]> => {
    const out = new Map<string, number[]>();
    for (const c of graph.callees[k]!) {
      if (c === k || fs[c]!.imports.length === 0) continue;
      const x = key(fs[c]!.imports);
      out.set(x, [...(out.get(x) ?? []), c]);
    }
    for (const [x, cs] of out) {
      const c = cs[0]!;
      if (
        cs.length !== 1 || partner[c] !== -1 || graph.callees[c]!.length > 0 ||
        fs[c]!.instructions > opts.maxInstructions
      ) out.delete(x);
    }
    return out;
  };
  const wantA = new Map<number, number>();
  const wantB = new Map<number, number>();
  const clash = new Set<string>();
  for (const m of s.matches) {
    const left = byKey(graphA, a, partnerA, m.a);
    if (left.size === 0) continue;
    const right = byKey(graphB, b, partnerB, m.b);
    for (const [x, [i]] of left) {
      const j = right.get(x)?.[0];
      if (i === undefined || j === undefined) continue;
      if ((wantA.get(i) ?? j) !== j || (wantB.get(j) ?? i) !== i) {
        clash.add(`a${i}`).add(`b${j}`);
        continue;
      }
      wantA.set(i, j);
      wantB.set(j, i);
    }
  }
  let made = 0;
  for (const [i, j] of wantA) {
    if (clash.has(`a${i}`) || clash.has(`b${j}`) || wantB.get(j) !== i) continue;
    if (partnerA[i] !== -1 || partnerB[j] !== -1) continue;
    if (similarity(a[i]!, b[j]!) < opts.minSim) continue;
    const before = s.matches.length;
    s.pair(i, j, opts.round);
    if (s.matches.length > before) made++;
  }
  return made;
}

/**
 * The thresholds of {@link globalImportLeafRound}: a stricter similarity floor, as no matched
 * caller vouches for the pair.
 */
export const GLOBAL_IMPORT_LEAF_DEFAULTS: ImportLeafOptions = {
  round: "import_leaves:global",
  maxInstructions: 40,
  minSim: 0.5,
};

/**
 * Pairs the unmatched leaves whose set of imports no other function of either binary calls
 * exactly (Lua's `getF`, the one function calling only `fread`; SQLite's `unixFileSize`, only
 * `fstat`), wherever their callers are. Returns how many pairs it made.
 */
export function globalImportLeafRound(s: MatchState, opts: ImportLeafOptions): number {
  const { a, b, graphA, graphB, partnerA, partnerB } = s;
  const group = (fs: typeof a) => {
    const out = new Map<string, number[]>();
    fs.forEach((f, k) => {
      if (f.imports.length === 0) return;
      const x = key(f.imports);
      out.set(x, [...(out.get(x) ?? []), k]);
    });
    return out;
  };
  const right = group(b);
  let made = 0;
  for (const [x, is] of group(a)) {
    const js = right.get(x);
    if (!js || is.length !== 1 || js.length !== 1) continue;
    const i = is[0]!;
    const j = js[0]!;
    if (partnerA[i] !== -1 || partnerB[j] !== -1) continue;
    if (graphA.callees[i]!.length > 0 || graphB.callees[j]!.length > 0) continue;
    if (Math.max(a[i]!.instructions, b[j]!.instructions) > opts.maxInstructions) continue;
    if (similarity(a[i]!, b[j]!) < opts.minSim) continue;
    const before = s.matches.length;
    s.pair(i, j, opts.round);
    if (s.matches.length > before) made++;
  }
  return made;
}
