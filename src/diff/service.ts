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
  gatherFeatures,
  type GatherMode,
  stampOf,
  type ToolCaller,
} from "./gather.ts";
import { type MatchResult, matchSteps } from "./match.ts";

/** One side of a diff. */
export interface Side {
  database: string;
  features: FunctionFeatures[];
}

/** A finished diff. */
export interface Diff {
  a: Side;
  b: Side;
  result: MatchResult;
  seconds: number;
  cached: boolean;
}

interface Stamped<T> {
  stamp: string;
  value: T;
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
  #features = new Map<string, Stamped<FunctionFeatures[]>>();
  #diffs = new Map<string, Stamped<Omit<Diff, "cached">>>();

  /** The diff of databases `a` and `b` (cached while neither changes). */
  async diff(
    sup: Host,
    a: string,
    b: string,
    ctx: CallContext,
    mode: GatherMode = "auto",
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
    const pairKey = `${a}\u0000${b}\u0000${mode}`;
    const pairStamp = stampA !== undefined && stampB !== undefined
      ? `${stampA}:${stampB}`
      : undefined;
    const hit = this.#diffs.get(pairKey);
    if (hit && pairStamp !== undefined && hit.stamp === pairStamp) {
      return { ...hit.value, cached: true };
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
    const [fa, fb] = await Promise.all([
      this.#featuresOf(callA, bulkReaderFor(sup, a, ctx), a, stampA, mode, (d, t) => {
        doneA = d;
        totalA = t;
        report();
      }),
      this.#featuresOf(callB, bulkReaderFor(sup, b, ctx), b, stampB, mode, (d, t) => {
        doneB = d;
        totalB = t;
        report();
      }),
    ]);
    let result: MatchResult;
    try {
      const steps = matchSteps(fa, fb, {
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
      a: { database: a, features: fa },
      b: { database: b, features: fb },
      result,
      seconds: Math.round(performance.now() - t0) / 1000,
    };
    if (pairStamp !== undefined) {
      remember(this.#diffs, pairKey, { stamp: pairStamp, value }, MAX_DIFFS);
    }
    return { ...value, cached: false };
  }

  async #featuresOf(
    call: ToolCaller,
    bulk: BulkReader,
    id: string,
    stamp: string | undefined,
    mode: GatherMode,
    progress: (done: number, total: number) => void,
  ): Promise<FunctionFeatures[]> {
    const key = `${id}\u0000${mode}`;
    const hit = this.#features.get(key);
    if (hit && stamp !== undefined && hit.stamp === stamp) {
      progress(hit.value.length, hit.value.length);
      return hit.value;
    }
    const value = await gatherFeatures(call, mode, progress, bulk);
    if (stamp !== undefined) remember(this.#features, key, { stamp, value }, MAX_FEATURE_SETS);
    return value;
  }
}
