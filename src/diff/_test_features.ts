/** Synthetic function features for the matcher's unit tests. */
import type { FunctionFeatures } from "./features.ts";
import { MatchState } from "./match_state.ts";

let next = 0x1000;

/** A function named `name` at the next free address; `over` replaces any feature. */
export function fn(name: string, over: Partial<FunctionFeatures> = {}): FunctionFeatures {
  const start = next;
  next += 0x100;
  return {
    name,
    start,
    size: 40,
    instructions: 10,
    blocks: 3,
    edges: 3,
    loops: 0,
    bytes_hash: `bytes-${name}`,
    mnem_hash: `mnem-${name}`,
    mnem_set_hash: `set-${name}`,
    cfg_sig: "3.3.0.1e",
    histogram: [5, 5],
    strings: [],
    imports: [],
    constants: [],
    callees: [],
    ...over,
  };
}

/** Makes `caller` call each of `callees`. */
export function calls(caller: FunctionFeatures, ...callees: FunctionFeatures[]): void {
  caller.callees = [...caller.callees, ...callees.map((f) => f.start)];
}

/** Two builds of `n` functions in the same order, all but `free` paired with their own copy by bytes. */
export function sameOrder(n: number, free: number[]): MatchState {
  const a = Array.from({ length: n }, (_, k) => fn(`f${k}`));
  const b = Array.from({ length: n }, (_, k) => fn(`f${k}`));
  const s = new MatchState(a, b);
  for (let k = 0; k < n; k++) if (!free.includes(k)) s.pair(k, k, "bytes");
  return s;
}
