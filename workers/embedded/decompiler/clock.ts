/**
 * The decompiler's budget clock. A budget in wall-clock time runs out on a loaded machine before
 * the work it was sized for is done (at load 30 on 2 cores a function gets a fifteenth of a
 * core), so the budget counts the process's CPU time; and so that an answer still comes in a
 * time a user waits, wall time counts too, at a third of its rate: the budget clock shows the
 * larger of the CPU milliseconds and a third of the wall milliseconds since it started. Alone on
 * the machine both agree; at load 30 a 20 s budget ends after 60 s of wall time.
 */

import { cpuUsage } from "node:process";

/** Wall time counts for 1/WALL_RATE of its milliseconds. */
export const WALL_RATE = 3;

/**
 * Wall milliseconds between two reads of the CPU time. One read (getrusage over every thread of
 * the process) costs 20–60 µs; read every millisecond it was 4 % of a decompilation's CPU time
 * on a loaded machine, where a wall millisecond holds a third of a CPU one. Between reads the
 * clock runs at wall speed, as the CPU time of one thread at most does.
 */
const SAMPLE_MS = 8;

/** A clock of budget milliseconds from now (see the module note); cheap enough for inner loops. */
export function budgetClock(): () => number {
  const wall0 = performance.now();
  const cpu = () => {
    const u = cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const cpu0 = cpu();
  let sampledAt = wall0;
  let sampled = 0;
  let last = 0;
  return () => {
    const w = performance.now();
    if (w - sampledAt >= SAMPLE_MS) {
      sampled = cpu() - cpu0;
      sampledAt = w;
    }
    // Between two reads CPU time grows at most as fast as wall time (one thread).
    const t = Math.max(sampled + (w - sampledAt), (w - wall0) / WALL_RATE);
    // Monotonic: a read of the CPU time can come in under the estimate made before it.
    last = Math.max(last, t);
    return last;
  };
}
