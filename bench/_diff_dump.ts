/**
 * One scored pair of bench/diff.ts as written with REMCP_BENCH_DUMP=DIR: both sides' diffing
 * features and everything the score needs, so bench/diff_offline.ts can rerun the matcher alone
 * (seconds) instead of building, opening and analysing both binaries again (minutes).
 */
import { join } from "node:path";
import type { FunctionFeatures } from "../src/diff/features.ts";
import type { FunctionPointer } from "../src/diff/tables.ts";

/** What REMCP_BENCH_DUMP writes per pair. */
export interface DiffDump {
  pair: string;
  a: FunctionFeatures[];
  b: FunctionFeatures[];
  /** a's symbols by start, already renamed to b's names (the truth). */
  symA: [number, string][];
  /** a's symbols as they are (for printing wrong pairs). */
  symA0: [number, string][];
  symB: [number, string][];
  /** Starts each analysis found. */
  foundA: number[];
  foundB: number[];
  /** Old name → the new function its body moved to (counted right by the split-aware score). */
  splits?: [string, string][];
  /**
   * [slot, function start] of each side's data slots holding function starts (absent in dumps
   * written before the function-pointer tables round, or from backends that cannot tell).
   */
  pointersA?: readonly FunctionPointer[];
  pointersB?: readonly FunctionPointer[];
  /** The pairs (a start, b start) the server's diff_databases returned in the same run. */
  served: [number, number][];
}

/** The file a pair is written to in `dir`: its name with anything but [\w.-] as `_`. */
export function dumpPath(dir: string, pair: string): string {
  return join(dir, `${pair.replace(/[^\w.-]+/g, "_").slice(0, 120)}.json`);
}

/** Writes `d` to its file in `dir` (created if missing). */
export async function writeDump(dir: string, d: DiffDump): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(dumpPath(dir, d.pair), JSON.stringify(d));
}
