import { processTicksCpuMs } from "./_cpu.ts";

/** What {@link runCpuLimited} saw of a child process. */
export interface CpuLimitedRun {
  /** The child exited with status 0 before the limit. */
  success: boolean;
  /** The child was killed for going over the limit. */
  overLimit: boolean;
  stdout: string;
  stderr: string;
  /**
   * CPU seconds of the child (all its threads, ended ones too) at the last reading, taken every
   * `pollMs` while it ran: short of the total by at most one poll's worth.
   */
  cpuSeconds: number;
  wallSeconds: number;
}

/**
 * Runs `command args` and kills it once it has used `limitSeconds` of CPU time (all its threads,
 * Linux /proc): a wall-clock limit would cut a slow tool short on a busy shared machine, where
 * its wall time follows the load and not its work. Polls every `pollMs`.
 */
export async function runCpuLimited(
  command: string,
  args: string[],
  limitSeconds: number,
  pollMs = 1000,
): Promise<CpuLimitedRun> {
  const t0 = performance.now();
  const child = new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  let cpuMs = 0;
  let overLimit = false;
  let done = false;
  output.finally(() => done = true);
  while (!done) {
    try {
      cpuMs = Math.max(cpuMs, processTicksCpuMs(child.pid));
    } catch {
      // It exited between two readings.
    }
    if (cpuMs >= limitSeconds * 1000) {
      overLimit = true;
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited on its own just now.
      }
      break;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([output, new Promise((r) => timer = setTimeout(r, pollMs))]);
    clearTimeout(timer);
  }
  const out = await output;
  const text = new TextDecoder();
  return {
    success: out.success && !overLimit,
    overLimit,
    stdout: text.decode(out.stdout),
    stderr: text.decode(out.stderr),
    cpuSeconds: cpuMs / 1000,
    wallSeconds: (performance.now() - t0) / 1000,
  };
}
