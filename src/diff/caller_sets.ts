/**
 * Caller sets: a function whose every caller is matched is placed by who calls it. When exactly
 * one unmatched function of each binary is called by the same matched callers (the partners of
 * one's callers are the other's callers, no more, no fewer), the two are one function, however
 * much its body changed (SQLite's `sqlite3VdbeMemFinalize`, called from `sqlite3VdbeMemRelease`
 * and the aggregate step, rewritten by another compiler). The position rounds score such a pair
 * by similarity as well and leave it when a look-alike callee of the same callers scores near.
 * A pair is not made when a matched caller or callee of either has its partner outside the
 * other's ({@link neighboursAgree}), nor when it strays from its neighbours' address order
 * ({@link OrderDrift}): a release that dropped a function and called a new one from the same
 * place (curl 7.88's `Curl_conn_get_select_socks` where 7.86 called `Curl_SOCKS_getsock`) puts
 * the new one elsewhere in the file.
 */
import { neighboursAgree } from "./gaps.ts";
import type { MatchState } from "./match_state.ts";
import { OrderDrift } from "./order_drift.ts";

/** Thresholds of {@link callerSetRound}. */
export interface CallerSetOptions {
  round: string;
  /** How far a pair may stray from its neighbours' address order ({@link OrderDrift.strays}). */
  drift: { factor: number; floor: number };
}

/**
 * The thresholds the matcher uses (the weak position round's drift limits). Run after the last
 * fixpoint, on the 24 dumped pairs of bench/diff.ts, it made 27 right pairs and no wrong one;
 * without the drift limits it made one more right pair (curl's `Curl_write`, which 7.88 moved)
 * and 2 wrong ones (curl's above, Lua 5.1 → 5.2's `luaF_freeclosure` with 5.2's `luaE_freeCI`).
 * Keyed by callees instead of callers it made as many wrong pairs as right ones.
 */
export const CALLER_SET_DEFAULTS: CallerSetOptions = {
  round: "caller_sets",
  drift: { factor: 8, floor: 40 },
};

/**
 * Pairs the unmatched functions whose matched callers correspond one to one, where that set of
 * callers is unique among the unmatched functions of both sides. Returns how many pairs it made.
 */
export function callerSetRound(s: MatchState, opts: CallerSetOptions): number {
  /** Unmatched functions whose callers are all matched, by the callers' b-side starts. */
  const bySet = (
    n: number,
    callers: readonly number[][],
    partner: Int32Array,
    inB: (k: number) => number,
  ) => {
    const out = new Map<string, number[]>();
    for (let k = 0; k < n; k++) {
      const cs = callers[k]!;
      if (partner[k] !== -1 || cs.length === 0 || cs.some((c) => partner[c] === -1)) continue;
      const key = cs.map(inB).sort((x, y) => x - y).join(",");
      const list = out.get(key);
      if (list) list.push(k);
      else out.set(key, [k]);
    }
    return out;
  };
  const setsA = bySet(s.a.length, s.graphA.callers, s.partnerA, (c) => s.partnerA[c]!);
  const setsB = bySet(s.b.length, s.graphB.callers, s.partnerB, (c) => c);
  const drift = new OrderDrift(s);
  const { factor, floor } = opts.drift;
  const pairs: [number, number][] = [];
  for (const [key, is] of setsA) {
    const js = setsB.get(key);
    if (!js || is.length !== 1 || js.length !== 1) continue;
    const i = is[0]!;
    const j = js[0]!;
    if (!neighboursAgree(s, i, j) || drift.strays(i, j, factor, floor)) continue;
    pairs.push([i, j]);
  }
  // Judged on the pairs made before this round: one made here is no caller for another.
  let made = 0;
  for (const [i, j] of pairs) {
    s.pair(i, j, opts.round);
    if (s.partnerA[i] === j) made++;
  }
  return made;
}
