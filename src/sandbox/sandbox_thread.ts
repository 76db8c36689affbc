/**
 * A sandbox in a thread of this process: a Web Worker with every Deno permission denied, running
 * sandbox_thread_main.ts. A message to it costs a fraction of a pipe round trip to a child process
 * and no third process competes for a core (`bench/sandbox_hop.ts`); a runaway script is stopped
 * by terminating the thread. Needs `--unstable-worker-options` (deno.json asks for it).
 *
 * The thread runs the program's own entry module, which sees the thread's name and loads the
 * sandbox instead of a mode: that works alike from source, from the bundle (one file) and from a
 * compiled executable (whose modules are embedded).
 */
import { fileURLToPath } from "node:url";
import { currentLaunch, mainModuleUrl, type SelfLaunch } from "../self_command.ts";
import type { ChildExit, SandboxChild } from "./sandbox_child.ts";
import { SANDBOX_THREAD_NAME } from "./thread_name.ts";

/**
 * Whether this program runs with `--unstable-worker-options`, which sandbox threads need: Deno
 * ends the whole process (exit code 70, nothing to catch) when a worker is given permissions
 * without it, and does not tell a program its flags. So it is inferred from the launch: a
 * compiled executable (built with the flag), or a checkout's src/main.ts whose deno.json (which
 * Deno reads for it) asks for the feature. The bundle and remote launches use processes.
 */
export function threadsAvailable(
  launch: SelfLaunch = currentLaunch(),
  readText: (path: string) => string = Deno.readTextFileSync,
): boolean {
  if (launch.standalone) return true;
  if (!launch.main.startsWith("file:") || !launch.main.endsWith("/src/main.ts")) return false;
  try {
    const config: unknown = JSON.parse(
      readText(fileURLToPath(new URL("../deno.json", launch.main))),
    );
    const unstable = typeof config === "object" && config !== null && "unstable" in config
      ? config.unstable
      : undefined;
    return Array.isArray(unstable) && unstable.includes("worker-options");
  } catch {
    return false;
  }
}

/** Starts one sandbox thread; only where {@link threadsAvailable} (else Deno ends the process). */
export function spawnSandboxThread(): SandboxChild {
  const worker = new Worker(mainModuleUrl(), {
    type: "module",
    name: SANDBOX_THREAD_NAME,
    deno: { permissions: "none" },
  });
  const ended = Promise.withResolvers<ChildExit>();
  let alive = true;
  let error = "";
  let onLine: ((line: string) => void) | undefined;
  const early: string[] = [];
  const end = (exit: ChildExit) => {
    if (!alive) return;
    alive = false;
    worker.terminate();
    ended.resolve(exit);
  };
  worker.onmessage = (event: MessageEvent<unknown>) => {
    if (!alive || typeof event.data !== "string") return;
    // One message carries the lines of one burst (batchLines); JSON lines hold no raw newline.
    for (const line of event.data.split("\n")) {
      if (onLine) onLine(line);
      else early.push(line);
    }
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    error = `${event.message}`.slice(0, 8 * 1024);
    end({ code: 1, signal: null });
  };
  worker.onmessageerror = () => {
    error = "a message could not be read";
    end({ code: 1, signal: null });
  };
  return {
    kind: "thread",
    listen(handler) {
      onLine = handler;
      for (const line of early.splice(0)) handler(line);
    },
    write(lines) {
      if (alive) worker.postMessage(lines);
    },
    exited: ended.promise,
    kill: () => end({ code: null, signal: "SIGKILL" }),
    stderrTail: () => error,
    // A thread shares the supervisor's process: its invokes have no wake-ups to save.
    lanePath: () => Promise.resolve(undefined),
  };
}
