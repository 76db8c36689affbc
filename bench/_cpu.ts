/** CPU time of a process so far, in ms: every thread's, from Linux's schedstat (ns). */
export function processCpuMs(pid: number): number {
  let ns = 0;
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/schedstat`).split(" ")[0]);
    } catch {
      // The thread ended.
    }
  }
  return ns / 1e6;
}

/**
 * Times a process has gone to sleep so far (voluntary context switches, Linux): its main thread's
 * — each is one wait of the event loop, so one wake-up later — and every thread's.
 */
export function processSleeps(pid: number): { main: number; all: number } {
  let main = 0;
  let all = 0;
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const status = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/status`);
      const n = Number(/voluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1] ?? 0);
      all += n;
      if (t.name === String(pid)) main = n;
    } catch {
      // The thread ended.
    }
  }
  return { main, all };
}

/** Linux's USER_HZ: /proc reports CPU times in these ticks. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time of a process so far, in ms, from /proc/PID/stat's utime + stime: unlike the per-thread
 * schedstat of {@link processCpuMs} it keeps the time of threads that have ended (rz-diff matches on
 * short-lived worker threads), at 10 ms resolution.
 */
export function processTicksCpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // The fields after "pid (comm) ", where comm may hold spaces and parentheses: state is the
  // first, utime the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 1000 / TICKS_PER_SECOND;
}
