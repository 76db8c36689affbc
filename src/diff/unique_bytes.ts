/**
 * Bodies whose exact bytes no other function of either binary has, paired after the gaps. The
 * exact rounds pair equal bytes unique among the unmatched functions, and bodies under
 * `MIN_CERTAIN_INSTRUCTIONS` only with a witness of call graph or address order
 * (`small_bytes.ts`); a small function that nothing calls, in a binary laid out in another order
 * (another compiler), has neither, however unique its bytes: SQLite's `sqlite3_commit_hook`,
 * `sqlite3MemSize` and the virtual tables' `xRowid` callbacks across gcc and clang, zstd's
 * `XXH32_createState` in a region 1.5.4 reordered.
 *
 * Unique bytes alone are no identity where a release moved a structure's fields: every setter of
 * Debian's Expat 2.5.0 has the bytes of 2.4.6's setter of the field two places earlier, each
 * unique (`small_bytes.ts`). A shift leaves functions of the same shape (equal mnemonics and
 * control flow) whose bytes match nothing on the other side — the ends of the shifted run — so a
 * pair is made only when every unmatched function of its shape, on both sides, has exactly one
 * partner by bytes: a whole group explained one to one.
 */
import type { FunctionFeatures } from "./features.ts";
import { groupBy, type MatchState } from "./match_state.ts";

/** Keys of {@link uniqueBytesRound}. */
export interface UniqueBytesKeys {
  round: string;
  /** The exact bytes of a body (with its length). */
  bytes: (f: FunctionFeatures) => string | undefined;
  /** Its shape: functions a field shift could confuse share it. */
  shape: (f: FunctionFeatures) => string | undefined;
}

/**
 * Pairs the unmatched `a[i]` and `b[j]` whose bytes no other function of `a` or `b` has (matched
 * or not), when every unmatched function of their shape on both sides is so paired. Returns how
 * many pairs it made.
 */
export function uniqueBytesRound(s: MatchState, keys: UniqueBytesKeys): number {
  const bytesA = groupBy([...s.a.keys()], (i) => keys.bytes(s.a[i]!));
  const bytesB = groupBy([...s.b.keys()], (j) => keys.bytes(s.b[j]!));
  /** The partner by unique bytes of each unmatched function of `a` that has one. */
  const byBytes = new Map<number, number>();
  const pairedB = new Set<number>();
  for (const [k, is] of bytesA) {
    const js = bytesB.get(k);
    if (!js || is.length !== 1 || js.length !== 1) continue;
    const i = is[0]!;
    const j = js[0]!;
    if (s.partnerA[i] !== -1 || s.partnerB[j] !== -1) continue;
    byBytes.set(i, j);
    pairedB.add(j);
  }
  if (byBytes.size === 0) return 0;
  const freeA = [...s.a.keys()].filter((i) => s.partnerA[i] === -1);
  const freeB = [...s.b.keys()].filter((j) => s.partnerB[j] === -1);
  const shapesA = groupBy(freeA, (i) => keys.shape(s.a[i]!));
  const shapesB = groupBy(freeB, (j) => keys.shape(s.b[j]!));
  let made = 0;
  for (const [shape, is] of shapesA) {
    const js = shapesB.get(shape) ?? [];
    if (!is.every((i) => byBytes.has(i)) || !js.every((j) => pairedB.has(j))) continue;
    // Every free function of the shape has its partner by bytes, and bytes imply the shape: the
    // two lists are the same pairs seen from either side.
    for (const i of is) {
      s.pair(i, byBytes.get(i)!, keys.round);
      made++;
    }
  }
  return made;
}
