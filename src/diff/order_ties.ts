/**
 * Ties of call-graph position broken by call order: two unmatched functions of `a` that the same
 * matched callers and callees surround equally well, and two of `b` surrounded the same way (Lua's
 * clearkeys and clearvalues, both called by the collector's atomic step and both calling
 * iscleared), are told apart by the order in which their common matched callers call them. Every
 * common caller must order them the same way, and the pairs must be no less alike than the
 * crossed ones; otherwise the tie stays a tie.
 */
import { anchorCandidates } from "./anchors.ts";
import type { MatchState } from "./match_state.ts";
import { similarity } from "./similarity.ts";

/** Thresholds of {@link orderTieRound}. */
export interface OrderTieOptions {
  round: string;
  /** Least number of shared matched neighbours for a candidate. */
  minCommon: number;
  /** Candidates whose anchor Dice coefficients differ by less than this are tied. */
  tie: number;
  /** Least similarity of each pair made. */
  minSim: number;
}

/**
 * The thresholds the matcher uses. On the Lua pairs of bench/diff.ts the round made 6 pairs, all
 * right (luaV_lessthan and luaV_lessequal, clearkeys and clearvalues, luaD_hook and luaD_poscall).
 * A floor of 0.3 made four more right ones, and two wrong ones on gcc → clang once the weak anchor
 * round had run (a tie closed over a function matched wrongly before); address order as a second
 * vote made two wrong ones there too.
 */
export const ORDER_TIE_DEFAULTS: OrderTieOptions = {
  round: "ties:order",
  minCommon: 2,
  tie: 0.05,
  minSim: 0.45,
};

/** The tied best candidates of each function, by Dice coefficient of shared anchors. */
function tiedBest(
  s: MatchState,
  opts: OrderTieOptions,
): { ofA: Map<number, number[]>; ofB: Map<number, number[]> } {
  const scoresB = new Map<number, { i: number; dice: number }[]>();
  const ofA = new Map<number, number[]>();
  for (let i = 0; i < s.a.length; i++) {
    if (s.partnerA[i] !== -1) continue;
    const cands = [...anchorCandidates(s, i)].filter(([, c]) => c.common >= opts.minCommon);
    for (const [j, c] of cands) {
      const list = scoresB.get(j) ?? [];
      list.push({ i, dice: c.dice });
      scoresB.set(j, list);
    }
    const top = Math.max(...cands.map(([, c]) => c.dice));
    ofA.set(i, cands.filter(([, c]) => c.dice > top - opts.tie).map(([j]) => j));
  }
  const ofB = new Map<number, number[]>();
  for (const [j, list] of scoresB) {
    const top = Math.max(...list.map((x) => x.dice));
    ofB.set(j, list.filter((x) => x.dice > top - opts.tie).map((x) => x.i));
  }
  return { ofA, ofB };
}

/** -1, 0 or 1: the order of `x` and `y` in the ordered list `xs`, 0 when either is missing. */
function orderIn(xs: readonly number[], x: number, y: number): number {
  const px = xs.indexOf(x);
  const py = xs.indexOf(y);
  return px === -1 || py === -1 ? 0 : Math.sign(py - px);
}

/**
 * Pairs the functions of two-by-two ties (each side's two best candidates, by anchor Dice
 * coefficient within `tie`, are the two functions of the other side) that their common matched
 * callers call in the same order. Returns how many pairs it made.
 */
export function orderTieRound(s: MatchState, opts: OrderTieOptions): number {
  const { ofA, ofB } = tiedBest(s, opts);
  const indexA = new Map(s.a.map((f, i) => [f.start, i]));
  const indexB = new Map(s.b.map((f, j) => [f.start, j]));
  const calleesA = (p: number) => s.a[p]!.callees.map((c) => indexA.get(c) ?? -1);
  const calleesB = (q: number) => s.b[q]!.callees.map((c) => indexB.get(c) ?? -1);
  const same = (x: readonly number[], y: readonly number[]) =>
    x.length === 2 && y.length === 2 && x.includes(y[0]!) && x.includes(y[1]!);
  let made = 0;
  for (const [i1, js] of ofA) {
    if (js.length !== 2) continue;
    const [j1, j2] = js as [number, number];
    const i2 = (ofB.get(j1) ?? []).find((x) => x !== i1);
    if (
      i2 === undefined || i2 < i1 || !same(ofA.get(i2) ?? [], js) ||
      !same(ofB.get(j1) ?? [], [i1, i2]) || !same(ofB.get(j2) ?? [], [i1, i2])
    ) continue;
    // Each common matched caller votes +1 (i1 ↔ j1, i2 ↔ j2) or -1 (crossed); all must agree.
    const votes: number[] = [];
    for (const p of s.graphA.callers[i1]!) {
      const q = s.partnerA[p]!;
      if (q === -1 || !s.graphA.callers[i2]!.includes(p)) continue;
      const oa = orderIn(calleesA(p), i1, i2);
      const ob = orderIn(calleesB(q), j1, j2);
      if (oa !== 0 && ob !== 0) votes.push(oa * ob);
    }
    if (votes.length === 0 || votes.some((v) => v !== votes[0])) continue;
    const [x1, x2] = votes[0] === 1 ? [j1, j2] : [j2, j1];
    const straight = similarity(s.a[i1]!, s.b[x1]!) + similarity(s.a[i2]!, s.b[x2]!);
    const crossed = similarity(s.a[i1]!, s.b[x2]!) + similarity(s.a[i2]!, s.b[x1]!);
    if (straight < crossed) continue;
    if (
      Math.min(similarity(s.a[i1]!, s.b[x1]!), similarity(s.a[i2]!, s.b[x2]!)) < opts.minSim
    ) continue;
    if (s.partnerA[i1] !== -1 || s.partnerA[i2] !== -1) continue;
    if (s.partnerB[x1] !== -1 || s.partnerB[x2] !== -1) continue;
    s.pair(i1, x1, opts.round);
    s.pair(i2, x2, opts.round);
    made += 2;
  }
  return made;
}
