/**
 * The diff of two open databases, with features and results kept per database and per pair
 * until either side's analysis or annotations change (see stampOf). One instance per
 * supervisor: diffTools() makes it and the three diff tools share it.
 */
import { RemcpError } from "../errors.ts";
import type { CallContext, Host } from "../supervisor/host.ts";
import type { FunctionFeatures } from "./features.ts";
import {
  type BulkReader,
  bulkReaderFor,
  callerFor,
  cancelled,
  type Gathered,
  gatherFeatures,
  type GatherMode,
  stampOf,
  type ToolCaller,
} from "./gather.ts";
import { type MatchResult, matchSteps } from "./match.ts";

/** How far matching goes: see MatchOptions.broad. */
export type Matching = "precise" | "broad";

/** One side of a diff. */
export interface Side {
  database: string;
  features: FunctionFeatures[];
  /** Functions whose features were computed for this diff (unknown through the paged tool). */
  computed?: number;
}

/** A finished diff. */
export interface Diff {
  a: Side;
  b: Side;
  result: MatchResult;
  seconds: number;
  cached: boolean;
}

// Features of a large binary take tens of MB: keep the few most recent, drop the oldest.
const MAX_FEATURE_SETS = 8;
const MAX_DIFFS = 8;

/** Sets `key` as the newest entry of `map`, dropping the oldest beyond `max`. */
function remember<T>(map: Map<string, T>, key: string, value: T, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

/** Diffs databases and keeps what it computed while it stays valid. */
export class DiffService {
  // Both keyed by content (stamps), not database ids: a file closed and opened again, with the
  // same analysis and annotations, finds its features and diffs.
  #features = new Map<string, Omit<Gathered, "computed">>();
  #diffs = new Map<string, Omit<Diff, "cached">>();

  /** The diff of databases `a` and `b` (cached while neither changes). */
  async diff(
    sup: Host,
    a: string,
    b: string,
    ctx: CallContext,
    mode: GatherMode = "auto",
    matching: Matching = "precise",
  ): Promise<Diff> {
    if (a === b) {
      throw new RemcpError(
        "InvalidArgument",
        `a and b are the same database (${a}): open the other file with open_database first`,
        { param: "b" },
      );
    }
    const t0 = performance.now();
    const callA = callerFor(sup, a, ctx);
    const callB = callerFor(sup, b, ctx);
    const [stampA, stampB] = await Promise.all([stampOf(callA), stampOf(callB)]);
    const pairKey = stampA !== undefined && stampB !== undefined
      ? `${stampA}\u0000${stampB}\u0000${mode}\u0000${matching}`
      : undefined;
    const hit = pairKey === undefined ? undefined : this.#diffs.get(pairKey);
    if (hit) {
      return {
        ...hit,
        a: { database: a, features: hit.a.features, computed: 0 },
        b: { database: b, features: hit.b.features, computed: 0 },
        cached: true,
      };
    }
    let doneA = 0;
    let doneB = 0;
    let totalA = 0;
    let totalB = 0;
    const report = () =>
      ctx.progress(
        doneA + doneB,
        totalA + totalB || undefined,
        `reading features: ${a} ${doneA}/${totalA}, ${b} ${doneB}/${totalB}`,
      );
    const [ga, gb] = await Promise.all([
      this.#featuresOf(callA, bulkReaderFor(sup, a, ctx), stampA, mode, (d, t) => {
        doneA = d;
        totalA = t;
        report();
      }),
      this.#featuresOf(callB, bulkReaderFor(sup, b, ctx), stampB, mode, (d, t) => {
        doneB = d;
        totalB = t;
        report();
      }),
    ]);
    const fa = ga.features;
    const fb = gb.features;
    let result: MatchResult;
    try {
      const steps = matchSteps(fa, fb, {
        broad: matching === "broad",
        ...(ga.pointers && gb.pointers ? { pointers: { a: ga.pointers, b: gb.pointers } } : {}),
        signal: ctx.signal,
        onRound: (round, matched) =>
          ctx.progress(doneA + doneB, totalA + totalB, `matching: ${round}, ${matched} matched`),
      });
      for (;;) {
        const step = steps.next();
        if (step.done) {
          result = step.value;
          break;
        }
        // A macrotask turn between rounds: progress goes out and a cancellation gets in.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } catch (err) {
      if (ctx.signal.aborted) throw cancelled();
      throw err;
    }
    const value = {
      a: { database: a, ...ga },
      b: { database: b, ...gb },
      result,
      seconds: Math.round(performance.now() - t0) / 1000,
    };
    if (pairKey !== undefined) remember(this.#diffs, pairKey, value, MAX_DIFFS);
    return { ...value, cached: false };
  }

  async #featuresOf(
    call: ToolCaller,
    bulk: BulkReader,
    stamp: string | undefined,
    mode: GatherMode,
    progress: (done: number, total: number) => void,
  ): Promise<Gathered> {
    const key = stamp === undefined ? undefined : `${stamp}\u0000${mode}`;
    const hit = key === undefined ? undefined : this.#features.get(key);
    if (hit) {
      progress(hit.features.length, hit.features.length);
      return { ...hit, computed: 0 };
    }
    const value = await gatherFeatures(call, mode, progress, bulk);
    if (key !== undefined) {
      const { computed: _, ...kept } = value;
      remember(this.#features, key, kept, MAX_FEATURE_SETS);
    }
    return value;
  }
}
