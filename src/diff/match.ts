/**
 * The function matcher: pairs the functions of two binaries in rounds from the most certain
 * evidence to the least, then spreads through the call graph until nothing new matches. A key
 * that more than one unmatched function shares on either side matches nothing unless their
 * matched callers and callees tell them apart: ties are never guessed. Pure and synchronous; it
 * takes features, not databases.
 */
import {
  ANCHOR_BROAD,
  ANCHOR_DEFAULTS,
  ANCHOR_WEAK,
  anchorRound,
  breakTie,
  outscoredPairs,
  soleCandidateRound,
} from "./anchors.ts";
import type { FunctionFeatures } from "./features.ts";
import { dependents, groupBy, type Match, MatchState, type Rest } from "./match_state.ts";
import { FuzzyRound } from "./fuzzy.ts";
import { bestMutual } from "./mutual.ts";
import { SEQUENCE_DEFAULTS, sequenceRound } from "./sequence.ts";
import { CALL_ORDER_DEFAULTS, callOrderRound } from "./call_order.ts";
import { CONSISTENCY_DEFAULTS, withdrawContradicted } from "./consistency.ts";
import { identical, similarity } from "./similarity.ts";
import { STRING_SET_DEFAULTS, stringSetRound } from "./string_sets.ts";
import { ORDER_TIE_DEFAULTS, orderTieRound } from "./order_ties.ts";
import { strayPairs } from "./order_drift.ts";
import { WRAPPER_DEFAULTS, wrapperRound } from "./wrappers.ts";
import { MIN_CERTAIN_INSTRUCTIONS, SMALL_BYTES_DEFAULTS, smallBytesRound } from "./small_bytes.ts";
import { callSiteCheck } from "./call_sites.ts";
import { SWAP_DEFAULTS, swapCheck } from "./swaps.ts";
import { GAP_DEFAULTS, gapRound } from "./gaps.ts";
import { LAST_ANCHOR_DEFAULTS, lastAnchorRound } from "./last_anchors.ts";
import { ORDER_CONTRADICTED_DEFAULTS, orderContradicted } from "./order_contradicted.ts";
import { OUTLINED_DEFAULTS, outlinedRound } from "./outlined.ts";
import { uniqueBytesRound } from "./unique_bytes.ts";
import { lastCheck } from "./last_check.ts";
import { type FunctionPointer, TABLE_DEFAULTS, tableRound } from "./tables.ts";
import { TABLE_CHECK_DEFAULTS, tableCheck } from "./table_check.ts";
import { GAP_EDGE_DEFAULTS, gapEdgeRound } from "./gap_edges.ts";
import { MUTUAL_LEAD_DEFAULTS, mutualLeadRound } from "./mutual_lead.ts";
import { CALLER_SET_DEFAULTS, callerSetRound } from "./caller_sets.ts";

import {
  GLOBAL_IMPORT_LEAF_DEFAULTS,
  globalImportLeafRound,
  IMPORT_LEAF_DEFAULTS,
  importLeafRound,
} from "./import_leaves.ts";
import { SOLE_CALLER_DEFAULTS, soleCallerRound } from "./sole_callers.ts";

export type { Match } from "./match_state.ts";

/** What the matcher found. */
export interface MatchResult {
  matches: Match[];
  /** Indices into `a` / `b` of functions left without a partner. */
  onlyA: number[];
  onlyB: number[];
  /**
   * Pairs matched by each round, in the order rounds ran (a round may run more than once);
   * `withdrawn` counts the pairs the consistency check took back, as a negative number (it runs
   * twice in precise matching: after the rounds, and after the pass over what it freed).
   */
  rounds: { round: string; matched: number }[];
}

/** Options of {@link matchFunctions}. */
export interface MatchOptions {
  /** Checked between rounds; the matcher throws its reason once it is aborted. */
  signal?: AbortSignal;
  /** Called after each round. */
  onRound?: (round: string, matched: number) => void;
  /**
   * Least similarity for a match found by similarity alone (default 0.85: between 0.75 and 0.85
   * this round made no right pair and one wrong pair on each Lua pair of bench/diff.ts).
   */
  minFuzzy?: number;
  /**
   * After everything else, pair functions by their matched callers and callees with less
   * evidence ({@link ANCHOR_BROAD}): more pairs across compilers, fewer of them right.
   */
  broad?: boolean;
  /**
   * Each side's data slots holding function starts ([slot, start], from the backend's
   * function_features): the function-pointer tables round ({@link tableRound}) pairs nothing
   * without them.
   */
  pointers?: { a: readonly FunctionPointer[]; b: readonly FunctionPointer[] };
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

const BYTES: Key = (f) => `${f.bytes_hash}:${f.instructions}`;
const MNEMONICS: Key = (f) => `${f.mnem_hash}:${f.cfg_sig}`;

/** Global rounds, most certain first. Small functions need stronger keys to avoid coincidence. */
const ROUNDS: Round[] = [
  { round: "name", key: (f) => DEFAULT_NAME.test(f.name) ? undefined : f.name },
  { round: "bytes", key: (f) => f.instructions >= MIN_CERTAIN_INSTRUCTIONS ? BYTES(f) : undefined },
  { round: "mnemonics", key: (f) => f.instructions >= 5 ? MNEMONICS(f) : undefined },
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
  { round: "bytes", key: BYTES },
  { round: "mnemonics", key: MNEMONICS },
  { round: "mnemonic_set+cfg", key: (f) => `${f.mnem_set_hash}:${f.cfg_sig}` },
  {
    round: "strings",
    key: (f) => f.strings.length > 0 ? `${joined(f.strings)}|${joined(f.imports)}` : undefined,
  },
  { round: "cfg", key: (f) => f.blocks >= 3 ? f.cfg_sig : undefined, minSim: 0.65 },
];

/** Keys whose equal values mean the same code: duplicates under them are told apart by anchors. */
const TIE_KEYS: Round[] = [{ round: "bytes", key: BYTES }, {
  round: "mnemonics",
  key: MNEMONICS,
}];

/**
 * Rounds whose pairs the outscored check may take back (prefixes of the round names): pairs of
 * call-graph position, and of keys a look-alike can share with a function whose own partner one
 * side inlined (Lua 5.3's `db_upvalueid`, holding `checkupval`, paired by its strings with 5.4's
 * `checkupval` while 5.4's `db_upvalueid` stood free where it stood). On bench/diff.ts adding
 * `strings`, `sequence:similarity` and `mnemonic_set` took back 4 wrong pairs and no right one
 * over the Lua pairs, and nothing on SQLite; `call_graph:strings`, `call_graph:cfg` and
 * `imports+cfg` took back right ones too.
 */
const OUTSCORED_ROUNDS = [
  "anchors",
  "call_graph:similarity",
  "strings",
  "sequence:similarity",
  "mnemonic_set",
];

/**
 * How far a pair of call-graph position may stray from its matched neighbours' address order once
 * every round has run ({@link strayPairs}): further than the weak round allows while it pairs,
 * since the pairs of the stronger rounds have more evidence of their own. On bench/diff.ts this
 * took back 2 wrong pairs (Lua 5.1 → 5.2, SQLite -O2 → -O3) and no right one; looking at pairs of
 * `strings` and `call_graph:similarity` as well took back 5 more wrong pairs and 2 right ones,
 * functions Lua 5.2 moved to another source file (its coroutine library out of lbaselib.c).
 */
const STRAY = { factor: 12, floor: 64 };

/**
 * How much more similar than the function a withdrawal freed a pair resting on that withdrawal
 * must be to stand ({@link dependents}). On bench/diff.ts 0.05–0.2 took back only nghttp2's wrong
 * window-size pair (its partners then paired right); 0 took back nothing (the freed function was
 * as similar); withdrawing every resting pair also lost SQLite gcc → clang's `btreeOverwriteCell`
 * (a strings key shared with a dozen B-tree functions, 0.56 similar against its freed rival's far
 * less), in the last pass where nothing pairs it again.
 */
const RESTING_MARGIN = 0.1;

/** Matches the functions of `a` against those of `b`, in one go. */
export function matchFunctions(
  a: readonly FunctionFeatures[],
  b: readonly FunctionFeatures[],
  options: MatchOptions = {},
): MatchResult {
  const steps = matchSteps(a, b, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Matches the functions of `a` against those of `b`, pausing after each round: a caller that
 * awaits between steps lets progress notifications out and a cancellation in while a large diff
 * runs.
 */
export function* matchSteps(
  a: readonly FunctionFeatures[],
  b: readonly FunctionFeatures[],
  options: MatchOptions = {},
): Generator<void, MatchResult> {
  const minFuzzy = options.minFuzzy ?? 0.85;
  const s = new MatchState(a, b);
  const { partnerA, partnerB, graphA, graphB } = s;
  const rounds: { round: string; matched: number }[] = [];
  const report = (round: string, before: number) => {
    const matched = s.matches.length - before;
    rounds.push({ round, matched });
    options.onRound?.(round, s.matches.length);
    options.signal?.throwIfAborted();
  };
  /** Runs one round over the state, reports what it paired, and yields. */
  const step = function* (round: string, run: () => void): Generator<void> {
    const before = s.matches.length;
    run();
    report(round, before);
    yield;
  };

  /**
   * Pairs the functions of `is` and `js` whose key is unique on both sides among the unmatched;
   * a pair whose group held matched functions as well rests on their pairs (`s.dependsOn`).
   */
  const byUniqueKey = (
    is: readonly number[],
    js: readonly number[],
    key: Key,
    round: string,
    minSim = 0,
  ) => {
    const left = groupBy(is, (i) => key(a[i]!));
    const right = groupBy(js, (j) => key(b[j]!));
    for (const [k, ia0] of left) {
      const jb0 = right.get(k);
      if (!jb0) continue;
      const ia = ia0.filter((i) => partnerA[i] === -1);
      const jb = jb0.filter((j) => partnerB[j] === -1);
      if (ia.length !== 1 || jb.length !== 1) continue;
      if (minSim > 0 && similarity(a[ia[0]!]!, b[jb[0]!]!) < minSim) continue;
      s.pair(ia[0]!, jb[0]!, round);
      if (ia0.length === 1 && jb0.length === 1) continue;
      const m = s.matches.at(-1);
      if (m === undefined || m.a !== ia[0] || m.b !== jb[0]) continue;
      const rests: Rest[] = [
        ...ia0.filter((i) => i !== m.a).map((i) => ({
          side: "a" as const,
          index: i,
          pair: i * b.length + partnerA[i]!,
        })),
        ...jb0.filter((j) => j !== m.b).map((j) => ({
          side: "b" as const,
          index: j,
          pair: partnerB[j]! * b.length + j,
        })),
      ];
      s.dependsOn.set(m, rests);
    }
  };

  const allA = [...a.keys()];
  const allB = [...b.keys()];
  for (const { round, key, minSim } of ROUNDS) {
    yield* step(round, () => byUniqueKey(allA, allB, key, round, minSim));
  }

  // Propagation: the callers and callees of a matched pair are where their partners most likely
  // are; a key that is ambiguous across the binary is often unique among them.
  const propagate = function* () {
    const before = s.matches.length;
    while (s.pending.length > 0) {
      const m = s.pending.pop()!;
      for (const dir of ["callees", "callers"] as const) {
        const is = graphA[dir][m.a]!.filter((i) => partnerA[i] === -1);
        const js = graphB[dir][m.b]!.filter((j) => partnerB[j] === -1);
        if (is.length === 0 || js.length === 0) continue;
        for (const { round, key, minSim } of NEIGHBOUR_KEYS) {
          byUniqueKey(
            graphA[dir][m.a]!,
            graphB[dir][m.b]!,
            key,
            `call_graph:${round}`,
            minSim ?? 0.5,
          );
        }
        // Hubs (a logging helper with thousands of callers) would cost |is|·|js| comparisons.
        if (is.length * js.length <= 250_000) bestMutual(s, is, js, 0.7, "call_graph:similarity");
      }
    }
    report("call_graph", before);
    yield;
  };

  // What each group of duplicates looked like when its tie was last tried: matches are never
  // undone, so equal sizes and equal counts of matched neighbours mean the same anchors and the
  // same outcome, and the group is not tried again (a large binary has thousands of such groups).
  const triedTies = new Map<string, string>();
  const matchedAround = (graph: typeof graphA, partner: Int32Array, ks: number[]) => {
    let n = 0;
    for (const k of ks) {
      for (const x of graph.callers[k]!) if (partner[x] !== -1) n++;
      for (const x of graph.callees[k]!) if (partner[x] !== -1) n++;
    }
    return n;
  };

  /** Identical duplicates told apart by their matched callers and callees. */
  const ties = function* () {
    const before = s.matches.length;
    for (const { round, key } of TIE_KEYS) {
      const left = groupBy(allA.filter((i) => partnerA[i] === -1), (i) => key(a[i]!));
      const right = groupBy(allB.filter((j) => partnerB[j] === -1), (j) => key(b[j]!));
      for (const [k, ia] of left) {
        const jb = right.get(k);
        if (!jb || (ia.length === 1 && jb.length === 1)) continue;
        const seen = `${ia.length}:${jb.length}:${matchedAround(graphA, partnerA, ia)}:${
          matchedAround(graphB, partnerB, jb)
        }`;
        const tried = `${round}\u0000${k}`;
        if (triedTies.get(tried) === seen) continue;
        triedTies.set(tried, seen);
        breakTie(s, ia, jb, `ties:${round}`);
      }
    }
    report("ties", before);
    yield;
  };

  /**
   * Call-graph position and address order, to a fixpoint with propagation; ties of position
   * broken by the order common callers call them.
   */
  const structure = function* () {
    for (;;) {
      const before = s.matches.length;
      yield* ties();
      yield* propagate();
      let n = s.matches.length;
      anchorRound(s, ANCHOR_DEFAULTS);
      report("anchors", n);
      yield;
      yield* propagate();
      n = s.matches.length;
      sequenceRound(s, SEQUENCE_DEFAULTS);
      report("sequence", n);
      yield;
      if (s.matches.length === before) {
        n = s.matches.length;
        orderTieRound(s, ORDER_TIE_DEFAULTS);
        report(ORDER_TIE_DEFAULTS.round, n);
        yield;
        if (s.matches.length === before) return;
      }
    }
  };

  /** Callees placed by the order their matched callers call them, to a fixpoint. */
  const callOrder = function* () {
    for (;;) {
      const before = s.matches.length;
      callOrderRound(s, CALL_ORDER_DEFAULTS);
      report(CALL_ORDER_DEFAULTS.round, before);
      yield;
      if (s.matches.length === before) return;
    }
  };

  yield* propagate();
  yield* structure();
  // Small bodies by their exact bytes, where the call graph or address order vouches for them.
  {
    const before = s.matches.length;
    smallBytesRound(
      s,
      (f) => f.instructions < MIN_CERTAIN_INSTRUCTIONS ? BYTES(f) : undefined,
      SMALL_BYTES_DEFAULTS,
    );
    report(SMALL_BYTES_DEFAULTS.round, before);
    yield;
    if (s.matches.length > before) {
      yield* propagate();
      yield* structure();
    }
  }
  // Built where the first global similarity pass runs: the free functions at that point.
  const fuzzy = new FuzzyRound(
    s,
    allA.filter((i) => partnerA[i] === -1 && a[i]!.instructions >= 5),
    allB.filter((j) => partnerB[j] === -1 && b[j]!.instructions >= 5),
    minFuzzy,
  );
  for (;;) {
    const before = s.matches.length;
    yield* step("similarity", () => fuzzy.run("similarity"));
    yield* step(STRING_SET_DEFAULTS.round, () => stringSetRound(s, STRING_SET_DEFAULTS));
    if (s.matches.length === before) break;
    yield* propagate();
    yield* structure();
  }

  // Precise matching, once nothing above adds more: position in the call graph with a lower
  // score but a much clearer lead, then pairs that are each other's only candidate there (broad
  // matching has its own, weaker round below).
  if (!options.broad) {
    yield* step(ANCHOR_WEAK.round, () => anchorRound(s, ANCHOR_WEAK));
    yield* step("anchors:sole", () => soleCandidateRound(s, 0.65, "anchors:sole"));
  }

  while (options.broad) {
    const before = s.matches.length;
    yield* step(ANCHOR_BROAD.round, () => anchorRound(s, ANCHOR_BROAD));
    if (s.matches.length === before) break;
    yield* propagate();
    yield* structure();
  }

  // Last, and on its own: pairs found by call order alone are not spread further. Run before
  // the broad round, or with propagation after it, they let weaker rounds pair more wrongly
  // than rightly on bench/diff.ts (each of them right, what they led to often not).
  yield* callOrder();

  if (!options.broad) {
    yield* step(WRAPPER_DEFAULTS.round, () => wrapperRound(s, WRAPPER_DEFAULTS));
    yield* step(OUTLINED_DEFAULTS.round, () => outlinedRound(s, OUTLINED_DEFAULTS));
    yield* step(IMPORT_LEAF_DEFAULTS.round, () => importLeafRound(s, IMPORT_LEAF_DEFAULTS));
    const global = GLOBAL_IMPORT_LEAF_DEFAULTS;
    yield* step(global.round, () => globalImportLeafRound(s, global));
    yield* step(SOLE_CALLER_DEFAULTS.round, () => soleCallerRound(s, SOLE_CALLER_DEFAULTS));
  }

  // The consistency check, then once more the rounds that can use what it freed (the withdrawn
  // pairs are never made again), then the check on what they made. Broad matching asks for more
  // pairs at some precision: it keeps every pair it found.
  for (let pass = 0; !options.broad; pass++) {
    const before = s.matches.length;
    // First the pairs of call-graph position that a free candidate now outscores, or that stray
    // far from their neighbours' address order, once.
    const outscored = pass === 0
      ? new Set([
        ...outscoredPairs(s, 0.1, OUTSCORED_ROUNDS, 0.1),
        ...strayPairs(s, ["anchors"], STRAY.factor, STRAY.floor),
      ])
      : [];
    s.withdraw(new Set(outscored));
    // Pairs of equal code that a matched caller's call order places elsewhere, once.
    const sites = pass === 0 ? callSiteCheck(s, "call_sites") : [];
    // Pairs of look-alikes made the wrong way round across each other, once.
    const swapped = pass === 0 ? swapCheck(s, SWAP_DEFAULTS) : [];
    // Pairs of address order that many matched neighbours contradict (the check below trusts
    // address order).
    const unordered = orderContradicted(s, ORDER_CONTRADICTED_DEFAULTS);
    s.withdraw(new Set(unordered));
    const taken = [
      ...outscored,
      ...sites,
      ...swapped,
      ...unordered,
      ...withdrawContradicted(s, CONSISTENCY_DEFAULTS),
    ];
    // What rested on a withdrawn pair goes with it, free to be made again on other evidence
    // (banning them as well changed nothing on bench/diff.ts).
    const resting = dependents(s, taken, RESTING_MARGIN);
    s.withdraw(new Set(resting), false);
    const gone = [...taken, ...resting];
    report("withdrawn", before);
    yield;
    if (gone.length === 0 || pass === 1) break;
    // Propagation starts again from the pairs next to a freed function, and every tie again.
    const freedA = new Set(gone.map((m) => m.a));
    const freedB = new Set(gone.map((m) => m.b));
    const nextTo = (g: typeof graphA, k: number, freed: Set<number>) =>
      g.callers[k]!.some((x) => freed.has(x)) || g.callees[k]!.some((x) => freed.has(x));
    for (const m of s.matches) {
      if (nextTo(graphA, m.a, freedA) || nextTo(graphB, m.b, freedB)) s.pending.push(m);
    }
    triedTies.clear();
    yield* propagate();
    yield* structure();
    yield* callOrder();
  }

  // Last of all, and on their own: pairs by place in address order alone, where the call graph
  // agrees. Made before the consistency check, they led propagation and call order to wrong pairs
  // on bench/diff.ts (zstd's look-alike template instances).
  if (!options.broad) {
    yield* step(GAP_DEFAULTS.round, () => gapRound(s, GAP_DEFAULTS));
    // Bytes no other function of either binary has: after the gaps, which place some of them
    // with a witness; before the last position round, which their pairs anchor (run before the
    // similarity rounds, they made 1 wrong pair and lost 1 right one on bench/diff.ts).
    yield* step(
      "bytes:unique",
      () => uniqueBytesRound(s, { round: "bytes:unique", bytes: BYTES, shape: MNEMONICS }),
    );
    yield* step(TABLE_DEFAULTS.round, () => tableRound(s, options.pointers, TABLE_DEFAULTS));
    // Pairs a lined-up table contradicts, moved to the function the table places there.
    yield* step(
      TABLE_CHECK_DEFAULTS.round,
      () => tableCheck(s, options.pointers, TABLE_CHECK_DEFAULTS),
    );
    // Then position once more, for what the check's last pass freed and what the gaps' pairs
    // placed, and the gaps that frees, to a fixpoint; then the first pass's once-only checks
    // again, on the pairs made since (last_check.ts), and the fixpoint once more on what they
    // freed.
    for (let checked = false;; checked = true) {
      for (;;) {
        const n = s.matches.length;
        yield* step(LAST_ANCHOR_DEFAULTS.round, () => lastAnchorRound(s, LAST_ANCHOR_DEFAULTS));
        yield* step(GAP_DEFAULTS.round, () => gapRound(s, GAP_DEFAULTS));
        // The edges of the gaps of unequal length, as a third witness beside the two above.
        yield* step(GAP_EDGE_DEFAULTS.round, () => gapEdgeRound(s, GAP_EDGE_DEFAULTS));
        // The tables again: the pairs made since their first pass are more votes for a line-up
        // and more matched slots around a free one (+23 right pairs on 7 of bench/diff.ts's 24
        // pairs, none wrong; docs/MEASUREMENTS.md, session 24).
        yield* step(TABLE_DEFAULTS.round, () => tableRound(s, options.pointers, TABLE_DEFAULTS));
        if (s.matches.length === n) break;
      }
      let taken = 0;
      if (!checked) {
        yield* step("withdrawn:last", () => {
          taken = lastCheck(s, {
            round: "call_sites",
            outscored: { rounds: [...OUTSCORED_ROUNDS, TABLE_DEFAULTS.round], margin: 0.1 },
            stray: { rounds: ["anchors", TABLE_DEFAULTS.round], blind: ["tables"], ...STRAY },
          }).length;
        });
      }
      if (taken === 0) break;
    }
    // Leftovers placed by their matched callers alone, then those that are each other's clear
    // choice by similarity; neither leads anything further.
    yield* step(CALLER_SET_DEFAULTS.round, () => callerSetRound(s, CALLER_SET_DEFAULTS));
    yield* step(MUTUAL_LEAD_DEFAULTS.round, () => mutualLeadRound(s, MUTUAL_LEAD_DEFAULTS));
  }

  return {
    matches: s.matches,
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
