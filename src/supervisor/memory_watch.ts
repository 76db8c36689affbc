/**
 * A worker's memory budget (REMCP_WORKER_MEMORY_MB): the supervisor samples the worker's resident
 * size and ends it when it goes over. The check lives outside the worker because a runaway worker
 * is the one whose thread is too busy to check itself, and most of its memory is typed arrays
 * that V8's heap limit does not count.
 */

/** Resident bytes of process `pid`, or undefined when the platform cannot tell. */
export type RssReader = (pid: number) => Promise<number | undefined>;

/** Linux: VmRSS from /proc; macOS: `ps`; elsewhere: unknown (no budget). */
export const readRss: RssReader = async (pid) => {
  try {
    if (Deno.build.os === "linux") {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    }
    if (Deno.build.os === "darwin") {
      const out = await new Deno.Command("ps", {
        args: ["-o", "rss=", "-p", String(pid)],
        stdout: "piped",
        stderr: "null",
      }).output();
      const kb = Number(new TextDecoder().decode(out.stdout).trim());
      return out.success && kb > 0 ? kb * 1024 : undefined;
    }
  } catch {
    // The process is gone, or the platform hides it: no sample.
  }
  return undefined;
};

/** What {@link watchMemory} saw when it ended a process. */
export interface MemoryOverrun {
  rssBytes: number;
  budgetBytes: number;
}

/**
 * Samples `pid` every `everyMs` until `stop()`; when its resident size exceeds `budgetBytes`,
 * calls `onOverrun` once (which ends the process) and stops.
 */
export function watchMemory(
  pid: number,
  budgetBytes: number,
  onOverrun: (o: MemoryOverrun) => void,
  opts: { everyMs?: number; read?: RssReader; onSample?: (rssBytes: number) => void } = {},
): { stop(): void } {
  const read = opts.read ?? readRss;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    const rss = await read(pid);
    if (stopped) return;
    if (rss !== undefined) opts.onSample?.(rss);
    if (rss !== undefined && rss > budgetBytes) {
      stopped = true;
      onOverrun({ rssBytes: rss, budgetBytes });
      return;
    }
    Deno.unrefTimer(timer = setTimeout(tick, opts.everyMs ?? 250));
  };
  Deno.unrefTimer(timer = setTimeout(tick, 0));
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Mebibytes, rounded, for messages. */
export function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}
