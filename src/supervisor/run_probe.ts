/**
 * Runs a short probe command (`rizin -v`, the Python engine probe) without blocking the event
 * loop and with a deadline: a slow interpreter must not freeze every client while it starts.
 */

/** What a probe printed, or why it did not finish. */
export type ProbeOutput =
  | { kind: "done"; success: boolean; stdout: string; stderr: string }
  | { kind: "failed"; error: Error }
  | { kind: "timeout" };

/** Runs `command args…` with `env`; kills it after `timeoutMs`. */
export async function runProbe(
  command: string,
  args: string[],
  env: Record<string, string> | undefined,
  timeoutMs: number,
): Promise<ProbeOutput> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      ...(env ? { env } : {}),
    }).spawn();
  } catch (err) {
    return { kind: "failed", error: err as Error };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  try {
    const out = await child.output();
    if (timedOut) return { kind: "timeout" };
    const dec = new TextDecoder();
    return {
      kind: "done",
      success: out.success,
      stdout: dec.decode(out.stdout),
      stderr: dec.decode(out.stderr),
    };
  } catch (err) {
    return timedOut ? { kind: "timeout" } : { kind: "failed", error: err as Error };
  } finally {
    clearTimeout(timer);
  }
}
