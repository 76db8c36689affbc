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
