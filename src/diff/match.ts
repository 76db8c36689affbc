/**
 * The function matcher: pairs the functions of two binaries in rounds from the most certain
 * evidence to the least, then spreads through the call graph until nothing new matches. A key
 * that more than one unmatched function shares on either side matches nothing: ties are never
 * guessed. Pure and synchronous; it takes features, not databases.
 */
import type { FunctionFeatures } from "./features.ts";
import { identical, similarity } from "./similarity.ts";

/** One matched pair, by index into the two feature lists. */
export interface Match {
  a: number;
  b: number;
  similarity: number;
  /** The round that matched the pair. */
  round: string;
}

/** What the matcher found. */
export interface MatchResult {
  matches: Match[];
  /** Indices into `a` / `b` of functions left without a partner. */
  onlyA: number[];
  onlyB: number[];
  /** Pairs matched by each round, in the order rounds ran (a round may run more than once). */
  rounds: { round: string; matched: number }[];
}

/** Options of {@link matchFunctions}. */
export interface MatchOptions {
  /** Checked between rounds; the matcher throws its reason once it is aborted. */
  signal?: AbortSignal;
  /** Called after each round. */
  onRound?: (round: string, matched: number) => void;
  /** Least similarity for a match found by similarity alone (default 0.75). */
  minFuzzy?: number;
}

type Key = (f: FunctionFeatures) => string | undefined;

/**
 * A matching round: a key that must be unique on both sides, and for the weaker keys the least
 * similarity the pair must also reach (a unique string set can move with inlined code).
 */
interface Round {
  round: string;
  key: Key;
  minSim?: number;
}

/** Names engines give functions they know nothing about: never evidence. */
export const DEFAULT_NAME =
  /^(?:sub|fcn|fun|loc|j_sub|nullsub|unknown|func|function)[._]?(?:0x)?[0-9a-f]+$/i;

const joined = (xs: readonly (string | number)[]) => xs.join("\u0001");

/** Global rounds, most certain first. Small functions need stronger keys to avoid coincidence. */
const ROUNDS: Round[] = [
  { round: "name", key: (f) => DEFAULT_NAME.test(f.name) ? undefined : f.name },
  { round: "bytes", key: (f) => `${f.bytes_hash}:${f.instructions}` },
  {
    round: "mnemonics",
    key: (f) => f.instructions >= 5 ? `${f.mnem_hash}:${f.cfg_sig}` : undefined,
  },
  {
    round: "strings",
    key: (f) => f.strings.length > 0 ? `${joined(f.strings)}|${joined(f.imports)}` : undefined,
    minSim: 0.55,
  },
  {
    round: "mnemonic_set+cfg",
    key: (f) => f.instructions >= 8 ? `${f.mnem_set_hash}:${f.cfg_sig}` : undefined,
  },
  {
    round: "imports+cfg",
    key: (f) => f.imports.length > 0 ? `${joined(f.imports)}|${f.cfg_sig}` : undefined,
    minSim: 0.55,
  },
  {
    round: "constants",
    key: (f) =>
      f.constants.length >= 2 || (f.constants.length === 1 && f.instructions >= 8)
        ? `${joined(f.constants)}|${f.blocks}`
        : undefined,
    minSim: 0.65,
  },
  { round: "cfg", key: (f) => f.blocks >= 8 ? f.cfg_sig : undefined, minSim: 0.65 },
];

/** Keys tried between the neighbours of a matched pair, where uniqueness is local. */
const NEIGHBOUR_KEYS: Round[] = [
  { round: "bytes", key: (f) => `${f.bytes_hash}:${f.instructions}` },
  { round: "mnemonics", key: (f) => `${f.mnem_hash}:${f.cfg_sig}` },
  { round: "mnemonic_set+cfg", key: (f) => `${f.mnem_set_hash}:${f.cfg_sig}` },
  {
    round: "strings",
    key: (f) => f.strings.length > 0 ? `${joined(f.strings)}|${joined(f.imports)}` : undefined,
  },
  { round: "cfg", key: (f) => f.blocks >= 3 ? f.cfg_sig : undefined, minSim: 0.65 },
];

/** Matches the functions of `a` against those of `b`. */
export function matchFunctions(
  a: readonly FunctionFeatures[],
  b: readonly FunctionFeatures[],
  options: MatchOptions = {},
): MatchResult {
  const minFuzzy = options.minFuzzy ?? 0.75;
  const partnerA = new Int32Array(a.length).fill(-1);
  const partnerB = new Int32Array(b.length).fill(-1);
  const matches: Match[] = [];
  const rounds: { round: string; matched: number }[] = [];
  const graphA = callGraph(a);
  const graphB = callGraph(b);
  const pending: Match[] = [];

  const pair = (i: number, j: number, round: string) => {
    partnerA[i] = j;
    partnerB[j] = i;
    const m = { a: i, b: j, similarity: similarity(a[i]!, b[j]!), round };
    matches.push(m);
    pending.push(m);
  };
  const report = (round: string, before: number) => {
    const matched = matches.length - before;
    rounds.push({ round, matched });
    options.onRound?.(round, matches.length);
    options.signal?.throwIfAborted();
  };

  /** Pairs the functions of `is` and `js` whose key is unique on both sides; returns how many. */
  const byUniqueKey = (is: number[], js: number[], key: Key, round: string, minSim = 0) => {
    const left = groupBy(is.filter((i) => partnerA[i] === -1), (i) => key(a[i]!));
    const right = groupBy(js.filter((j) => partnerB[j] === -1), (j) => key(b[j]!));
    let n = 0;
    for (const [k, ia] of left) {
      const jb = right.get(k);
      if (ia.length !== 1 || jb?.length !== 1) continue;
      if (minSim > 0 && similarity(a[ia[0]!]!, b[jb[0]!]!) < minSim) continue;
      pair(ia[0]!, jb[0]!, round);
      n++;
    }
    return n;
  };

  const allA = [...a.keys()];
  const allB = [...b.keys()];
  for (const { round, key, minSim } of ROUNDS) {
    const before = matches.length;
    byUniqueKey(allA, allB, key, round, minSim);
    report(round, before);
  }

  // Propagation: the callers and callees of a matched pair are where their partners most likely
  // are; a key that is ambiguous across the binary is often unique among them.
  const propagate = () => {
    const before = matches.length;
    while (pending.length > 0) {
      const m = pending.pop()!;
      for (const dir of ["callees", "callers"] as const) {
        const is = graphA[dir][m.a]!.filter((i) => partnerA[i] === -1);
        const js = graphB[dir][m.b]!.filter((j) => partnerB[j] === -1);
        if (is.length === 0 || js.length === 0) continue;
        for (const { round, key, minSim } of NEIGHBOUR_KEYS) {
          byUniqueKey(is, js, key, `call_graph:${round}`, minSim ?? 0.5);
        }
        // Hubs (a logging helper with thousands of callers) would cost |is|·|js| comparisons.
        if (is.length * js.length <= 250_000) bestMutual(is, js, 0.6, "call_graph:similarity");
      }
    }
    report("call_graph", before);
  };

  /** Pairs each `i` with its best `j` when that choice is mutual, clear and similar enough. */
  const bestMutual = (is: number[], js: number[], min: number, round: string) => {
    const freeA = is.filter((i) => partnerA[i] === -1);
    const freeB = js.filter((j) => partnerB[j] === -1);
    if (freeA.length === 0 || freeB.length === 0) return;
    const bestOfA = new Map<number, { j: number; s: number; second: number }>();
    const bestOfB = new Map<number, { i: number; s: number; second: number }>();
    for (const i of freeA) {
      for (const j of comparable(a[i]!, freeB)) {
        const s = similarity(a[i]!, b[j]!);
        if (s < min) continue;
        const ba = bestOfA.get(i);
        if (!ba || s > ba.s) bestOfA.set(i, { j, s, second: ba ? ba.s : 0 });
        else if (s > ba.second) ba.second = s;
        const bb = bestOfB.get(j);
        if (!bb || s > bb.s) bestOfB.set(j, { i, s, second: bb ? bb.s : 0 });
        else if (s > bb.second) bb.second = s;
      }
    }
    for (const [i, ba] of bestOfA) {
      const bb = bestOfB.get(ba.j);
      // A tie, or a runner-up nearly as good on either side, leaves both unmatched.
      if (!bb || bb.i !== i || ba.s - ba.second < 0.05 || bb.s - bb.second < 0.05) continue;
      if (partnerA[i] !== -1 || partnerB[ba.j] !== -1) continue;
      pair(i, ba.j, round);
    }
  };

  /** Candidates in `js` of roughly `f`'s size (similarity is low for the rest anyway). */
  const comparable = (f: FunctionFeatures, js: number[]) =>
    js.filter((j) => {
      const n = b[j]!.instructions;
      return n * 2 >= f.instructions && n <= f.instructions * 2;
    });

  propagate();
  for (;;) {
    const before = matches.length;
    const freeA = allA.filter((i) => partnerA[i] === -1 && a[i]!.instructions >= 5);
    const freeB = allB.filter((j) => partnerB[j] === -1 && b[j]!.instructions >= 5);
    bestMutual(freeA, freeB, minFuzzy, "similarity");
    report("similarity", before);
    if (matches.length === before) break;
    propagate();
  }

  return {
    matches,
    onlyA: allA.filter((i) => partnerA[i] === -1),
    onlyB: allB.filter((j) => partnerB[j] === -1),
    rounds,
  };
}

/** Which features two matched functions share: the evidence shown with a match. */
export function evidenceOf(a: FunctionFeatures, b: FunctionFeatures): string[] {
  const out: string[] = [];
  if (!DEFAULT_NAME.test(a.name) && a.name === b.name) out.push("name");
  if (identical(a, b)) out.push("bytes");
  if (a.mnem_hash === b.mnem_hash) out.push("mnemonics");
  else if (a.mnem_set_hash === b.mnem_set_hash) out.push("mnemonic_set");
  if (a.cfg_sig === b.cfg_sig) out.push("cfg");
  if (a.strings.length > 0 && joined(a.strings) === joined(b.strings)) out.push("strings");
  if (a.imports.length > 0 && joined(a.imports) === joined(b.imports)) out.push("imports");
  if (a.constants.length > 0 && joined(a.constants) === joined(b.constants)) {
    out.push("constants");
  }
  return out;
}

function groupBy<T>(items: T[], key: (t: T) => string | undefined): Map<string, T[]> {
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
function callGraph(fs: readonly FunctionFeatures[]): { callees: number[][]; callers: number[][] } {
  const index = new Map(fs.map((f, i) => [f.start, i]));
  const callees = fs.map((f) =>
    f.callees.map((s) => index.get(s)).filter((i): i is number => i !== undefined)
  );
  const callers: number[][] = fs.map(() => []);
  callees.forEach((cs, i) => {
    for (const c of new Set(cs)) callers[c]!.push(i);
  });
  return { callees, callers };
}
