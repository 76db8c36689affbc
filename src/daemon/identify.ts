/**
 * Whether a pid still belongs to the daemon a state file describes. After a daemon dies by
 * SIGKILL its state file stays, and its pid may since have gone to another program; `remcp stop`
 * signals the pid only when the process there runs `remcp serve` and started when the daemon did.
 */
import type { DaemonState } from "./state.ts";

/** What the system tells about a process. */
export interface ProcessFacts {
  /** Its command line. */
  args: string[];
  /** When it started, in ms since the epoch. */
  startedMs: number;
}

/** Facts about `pid`, or undefined when the system does not tell. */
export type ProcessInspector = (pid: number) => Promise<ProcessFacts | undefined>;

// The daemon writes its state file once it listens: its process started shortly before `started`
// (a cold start of a source checkout takes seconds) and never after. /proc's start time is in
// clock ticks from a boot time counted in whole seconds, hence the slack after.
const STARTUP_MS = 120_000;
const CLOCK_SLACK_MS = 2_000;

/** Linux: /proc; macOS: `ps`; elsewhere: unknown. */
export const inspectProcess: ProcessInspector = async (pid) => {
  try {
    if (Deno.build.os === "linux") {
      const args = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0").filter((a) => a);
      const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
      // Fields after the command name (which may hold spaces and parentheses); starttime is 22nd.
      const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
      const btime = Number(/^btime (\d+)$/m.exec(await Deno.readTextFile("/proc/stat"))?.[1]);
      // USER_HZ is 100 on every Linux that runs Deno.
      return { args, startedMs: btime * 1000 + ticks * 10 };
    }
    if (Deno.build.os === "darwin") {
      const ps = async (field: string) =>
        new TextDecoder().decode(
          (await new Deno.Command("ps", {
            args: ["-o", `${field}=`, "-p", String(pid)],
            stdout: "piped",
            stderr: "null",
            env: { LC_ALL: "C" },
          }).output()).stdout,
        ).trim();
      const started = Date.parse(await ps("lstart"));
      const command = await ps("command");
      if (!command || Number.isNaN(started)) return undefined;
      return { args: command.split(/\s+/), startedMs: started };
    }
  } catch {
    // Gone, or not ours to read.
  }
  return undefined;
};

/** Whether `pid` is the daemon `state` describes; `why` says what was found either way. */
export async function isDaemonProcess(
  state: Pick<DaemonState, "pid" | "started">,
  inspect: ProcessInspector = inspectProcess,
): Promise<{ ours: boolean; why: string }> {
  const facts = await inspect(state.pid);
  if (!facts) {
    return { ours: false, why: `the system does not say what pid ${state.pid} runs` };
  }
  const serve = facts.args.includes("serve") &&
    facts.args.some((a) => /(^|[/\\])(remcp[^/\\]*|main\.ts|deno(\.exe)?)$/.test(a));
  if (!serve) {
    return {
      ours: false,
      why: `pid ${state.pid} now runs another program (${facts.args.join(" ").slice(0, 120)})`,
    };
  }
  const daemonStarted = Date.parse(state.started);
  if (
    facts.startedMs > daemonStarted + CLOCK_SLACK_MS ||
    facts.startedMs < daemonStarted - STARTUP_MS
  ) {
    return {
      ours: false,
      why: `pid ${state.pid} started at ${new Date(facts.startedMs).toISOString()}, ` +
        `not with the daemon of ${state.started}`,
    };
  }
  return { ours: true, why: `pid ${state.pid} runs remcp serve since ${state.started}` };
}
