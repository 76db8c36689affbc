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
