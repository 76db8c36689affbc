/**
 * The body of a sandbox thread: a Web Worker the supervisor starts with no Deno permissions at
 * all (sandbox_thread.ts), whose entry module (src/main.ts) loads this one. It runs `execute`
 * scripts in QuickJS, speaking the line protocol of protocol.ts through `postMessage`, one string
 * of newline-joined lines per message (a burst at a time, as the process writes them).
 *
 * The thread shares the supervisor's process but not its heap: its only way out is the message
 * channel, and the guest's only way into that is `invoke`. A runaway guest is WebAssembly, which
 * `Worker.terminate()` stops between any two instructions.
 */
import process from "node:process";
import { batchLines } from "./lines.ts";
import { SandboxEngine } from "./quickjs.ts";
import { SandboxSession } from "./sandbox_session.ts";

/** The parts of a worker's global scope this module uses (not in the window typings). */
interface ThreadScope {
  postMessage(message: string): void;
  onmessage: ((event: MessageEvent<unknown>) => void) | null;
}

const scope = globalThis as unknown as ThreadScope;
const started = performance.now();
// The supervisor's stdout is its protocol: nothing in this thread may print there.
const toStderr = (...args: unknown[]) => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;

// The thread's own CPU time: the process's is mostly the supervisor's.
const engine = await SandboxEngine.load({
  cpuClock: () => {
    const used = process.threadCpuUsage();
    return (used.user + used.system) / 1000;
  },
});
const session = new SandboxSession(engine, batchLines((lines) => scope.postMessage(lines)));
scope.onmessage = (event) => {
  if (typeof event.data !== "string") return;
  for (const line of event.data.split("\n")) session.receive(line);
};
scope.postMessage(
  JSON.stringify({ type: "ready", pid: Deno.pid, loadMs: performance.now() - started }),
);
