/**
 * Telling an out-of-memory death from any other SIGKILL. The kernel's out-of-memory killer sends
 * SIGKILL, which a process cannot report itself; Linux counts its kills in /proc/vmstat
 * (`oom_kill`), so a worker killed from outside while that count rose is named for what it was.
 */

/** The kernel's count of out-of-memory kills so far, or undefined where it cannot be read. */
export function oomKillCount(): number | undefined {
  if (Deno.build.os !== "linux") return undefined;
  try {
    // procfs: generated on read, never blocks.
    const n = /^oom_kill (\d+)$/m.exec(Deno.readTextFileSync("/proc/vmstat"))?.[1];
    return n === undefined ? undefined : Number(n);
  } catch {
    return undefined;
  }
}

/**
 * How a worker killed by SIGKILL from outside remcp ended: `before`/`after` are
 * {@link oomKillCount} at its start and exit, `peakBytes` the largest resident size sampled.
 */
export function describeOutsideKill(
  before: number | undefined,
  after: number | undefined,
  peakBytes: number | undefined,
): string {
  const size = peakBytes
    ? `, ${Math.round(peakBytes / 1024 / 1024)} MiB resident when last seen`
    : "";
  if (before !== undefined && after !== undefined && after > before) {
    return `ran out of memory: the system's out-of-memory killer ended it (SIGKILL${size})`;
  }
  return `was killed by SIGKILL from outside remcp (as the system does when memory runs out${size})`;
}
