/**
 * One worker child process and the MCP client that talks to it. Keeps the last lines of the
 * worker's stderr (for crash reports) and copies them to the log.
 */
import { RemcpError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { resultValue, type ToolResult } from "../protocol/results.ts";
import { type WireResult, wireSuccess } from "../protocol/wire_result.ts";
import { selfCommand } from "../self_command.ts";
import { type LineIo, LineTransport } from "../line_transport.ts";
import { RpcClient } from "./rpc_client.ts";
import { listenForChild, socketsAvailable } from "../child_socket.ts";
import { childPipesServed, spawnOnPipes } from "../child_pipes.ts";
import { type MemoryOverrun, mib, watchMemory } from "./memory_watch.ts";
import { describeOutsideKill, oomKillCount } from "./oom_kills.ts";

/** What the pool needs of a started worker: a `Deno.ChildProcess`, or an in-process stand-in. */
export interface WorkerChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<Deno.CommandStatus>;
  kill(signal?: Deno.Signal): void;
}

/**
 * How to start a worker another way than this program's own (tests in-process, Python backends):
 * it speaks MCP over the child's stdin and stdout as streams.
 */
export type Spawner = (args: string[], env: Record<string, string>) => WorkerChild;

/** What a {@link WorkerProcess} keeps of its child, however it was started and connected. */
type ChildHandle = Pick<WorkerChild, "pid" | "status" | "kill"> & {
  readonly stderr: AsyncIterable<Uint8Array>;
};

/**
 * V8 flags of a worker process. `--max-opt=2`: the JIT's top tier is Maglev, not TurboFan. A
 * worker's hot code (analysis, the decompiler's passes) is large and its object shapes vary, so
 * TurboFan kept compiling and recompiling it on background threads for the first hundreds of
 * functions a worker decompiled: a third of the worker's CPU time at decompiling, and its code
 * was no faster there than Maglev's (bench/ghidra_side_by_side.ts, README: speed).
 */
export const WORKER_V8_FLAGS: readonly string[] = ["--max-opt=2"];

/**
 * A worker's environment: `env` with {@link WORKER_V8_FLAGS} in `DENO_V8_FLAGS`, before any
 * flags the user set there (a later flag wins: the user's still do).
 */
export function withWorkerV8Flags(
  env: Record<string, string>,
  inherited: string | undefined = Deno.env.get("DENO_V8_FLAGS"),
): Record<string, string> {
  const user = env.DENO_V8_FLAGS ?? inherited;
  const flags = [...WORKER_V8_FLAGS, ...(user ? [user] : [])].join(",");
  return { ...env, DENO_V8_FLAGS: flags };
}

/** This same program in worker mode, over its stdin and stdout as streams (Windows). */
const spawnSelf: Spawner = (args, env) => {
  const cmd = selfCommand("worker", args);
  return new Deno.Command(cmd.command, {
    args: cmd.args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: withWorkerV8Flags(env),
  }).spawn();
};

/** This same program in worker mode, talking over the socket at `path` (stdin and stdout unused). */
function spawnSelfOver(path: string): Spawner {
  return (args, env) => {
    const cmd = selfCommand("worker", ["--connect", path, ...args]);
    return new Deno.Command(cmd.command, {
      args: cmd.args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      env: withWorkerV8Flags(env),
    }).spawn();
  };
}

const STDERR_LINES = 40;
const STDERR_LINE_CHARS = 16 * 1024;

/** Options for a call into the worker. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  onprogress?: ((p: { progress: number; total?: number; message?: string }) => void) | undefined;
  /** A success may come back as the bytes of its JSON (src/protocol/wire_result.ts). */
  wire?: boolean | undefined;
}

/** A running worker. */
export class WorkerProcess {
  readonly pid: number;
  readonly exited: Promise<Deno.CommandStatus>;
  #child: ChildHandle;
  #client: RpcClient | undefined;
  #stderr: string[] = [];
  #alive = true;
  #exitCode: number | null = null;
  #signal: string | null = null;
  #log: Logger;
  #cancelSignal: Deno.Signal | undefined;
  #killedHere = false;
  #overrun: MemoryOverrun | undefined;
  #peakRss: number | undefined;
  #oomKillsAtStart = oomKillCount();
  #oomKillsAtExit: number | undefined;
  #stopWatch = () => {};
  /** Tools the worker serves (from its tools/list). */
  tools = new Set<string>();
  /**
   * Whether the worker can open a lane to a sandbox (workers/lanes.ts): one this program started
   * over a socket (embedded, rizin), not a Python worker or an injected spawner's child.
   */
  lanes = false;

  private constructor(child: ChildHandle, log: Logger) {
    this.#child = child;
    this.#log = log;
    this.pid = child.pid;
    this.exited = child.status.then((s) => {
      this.#alive = false;
      this.#exitCode = s.code;
      this.#signal = s.signal;
      if (s.signal === "SIGKILL" && !this.#killedHere) this.#oomKillsAtExit = oomKillCount();
      this.#stopWatch();
      return s;
    });
  }

  /** Spawns a worker for `path` and completes the MCP handshake. */
  static async start(
    opts: {
      backend: string;
      /** The file; undefined starts a standby worker that `attach` gives a file later. */
      path: string | undefined;
      options: Record<string, unknown>;
      databaseId: string;
      env: Record<string, string>;
      log: Logger;
      spawn?: Spawner | undefined;
      /** Sent to the process when a call is aborted, beside notifications/cancelled. */
      cancelSignal?: Deno.Signal | undefined;
      /** Resident size past which the worker is ended (REMCP_WORKER_MEMORY_MB); 0: none. */
      memoryBudgetBytes?: number | undefined;
    },
  ): Promise<WorkerProcess> {
    const args = opts.path === undefined ? ["--backend", opts.backend, "--standby"] : [
      "--backend",
      opts.backend,
      "--options",
      JSON.stringify(opts.options),
      "--database-id",
      opts.databaseId,
      opts.path,
    ];
    // Workers this program starts itself speak over their stdin and stdout, served on the event
    // loop at both ends (src/child_pipes.ts); where the worker could not serve its pipes that
    // way, they connect back over a socket; Windows and injected spawners (tests, Python
    // backends) speak over the child's pipes as streams.
    const piped = !opts.spawn && childPipesServed(opts.env);
    const socket = !opts.spawn && !piped && socketsAvailable ? await listenForChild() : undefined;
    let child: ChildHandle;
    let io: LineIo | undefined;
    try {
      if (piped) {
        const cmd = selfCommand("worker", args);
        const started = spawnOnPipes(cmd.command, cmd.args, withWorkerV8Flags(opts.env));
        child = started;
        io = { conn: started.conn };
      } else {
        const started = (opts.spawn ?? (socket ? spawnSelfOver(socket.path) : spawnSelf))(
          args,
          opts.env,
        );
        child = started;
        if (!socket) io = { readable: started.stdout, writable: started.stdin };
      }
    } catch (err) {
      socket?.close();
      throw err;
    }
    const worker = new WorkerProcess(child, opts.log);
    worker.#cancelSignal = opts.cancelSignal;
    worker.lanes = !opts.spawn && socketsAvailable;
    if (opts.memoryBudgetBytes) {
      const watch = watchMemory(child.pid, opts.memoryBudgetBytes, (o) => {
        worker.#overrun = o;
        opts.log.warn(`worker ${opts.databaseId} ${worker.exitDescription()}`);
        worker.kill();
      }, {
        onSample: (rss) => {
          worker.#peakRss = Math.max(worker.#peakRss ?? 0, rss);
        },
      });
      worker.#stopWatch = () => watch.stop();
    }
    void worker.#pumpStderr(child.stderr, opts.log.filePath(`worker-${opts.databaseId}`));
    let client: RpcClient;
    try {
      const exited = worker.exited.then((s) => {
        throw new Error(`worker exited during startup (code ${s.code})`);
      });
      let transport: LineTransport;
      if (socket) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise((r) => timer = setTimeout(r, 60_000));
        try {
          const conn = await socket.accept(Promise.race([exited, late]));
          transport = new LineTransport({ conn });
        } finally {
          clearTimeout(timer);
        }
      } else if (io) transport = new LineTransport(io);
      else throw new TypeError("A worker without a connection");
      client = new RpcClient(transport);
      worker.#client = client;
      await Promise.race([client.connect(60_000), exited]);
    } catch (err) {
      socket?.close();
      worker.kill();
      throw new RemcpError(
        "OpenFailed",
        `The ${opts.backend} worker did not start: ${(err as Error).message}; ` +
          `its last output: ${worker.stderrTail().slice(-5).join(" | ") || "(none)"}`,
        { backend: opts.backend, stderr: worker.stderrTail() },
      );
    }
    try {
      const listed = await client.request("tools/list", {}, { timeoutMs: 60_000 }) as {
        tools: { name: string }[];
      };
      worker.tools = new Set(listed.tools.map((t) => t.name));
    } catch (err) {
      worker.kill();
      throw new RemcpError(
        "OpenFailed",
        `The ${opts.backend} worker did not list its tools: ${(err as Error).message}`,
        {},
      );
    }
    return worker;
  }

  async #pumpStderr(stream: AsyncIterable<Uint8Array>, file: string | undefined): Promise<void> {
    const decoder = new TextDecoder();
    let sink: Deno.FsFile | undefined;
    if (file) {
      try {
        sink = await Deno.open(file, { create: true, append: true });
      } catch {
        sink = undefined;
      }
    }
    let partial = "";
    try {
      for await (const chunk of stream) {
        await sink?.write(chunk).catch(() => 0);
        partial += decoder.decode(chunk, { stream: true });
        const lines = partial.split("\n");
        // A line without end (a worker printing megabytes to stderr) is kept to its start, so
        // each chunk costs its own length and not the whole line's.
        partial = (lines.pop() ?? "").slice(0, STDERR_LINE_CHARS);
        for (const line of lines) {
          if (line === "") continue;
          this.#stderr.push(line);
          this.#log.debug(line);
        }
        if (this.#stderr.length > STDERR_LINES) {
          this.#stderr.splice(0, this.#stderr.length - STDERR_LINES);
        }
      }
    } catch {
      // The pipe breaks when the child dies; the exit status tells the rest.
    }
    if (partial) this.#stderr.push(partial);
    sink?.close();
  }

  /** Gives a standby worker its file. */
  async attach(path: string, options: Record<string, unknown>): Promise<void> {
    await this.callStructured("_open", { path, options }, { timeoutMs: 30_000 });
  }

  /** Whether the process is still running. */
  get alive(): boolean {
    return this.#alive;
  }

  /** The last lines the worker wrote to stderr. */
  stderrTail(): string[] {
    return [...this.#stderr];
  }

  /** A one-line description of how the process ended. */
  exitDescription(): string {
    if (this.#overrun) {
      return `was stopped at ${mib(this.#overrun.rssBytes)} MiB, over its memory budget of ` +
        `${mib(this.#overrun.budgetBytes)} MiB (REMCP_WORKER_MEMORY_MB)`;
    }
    if (this.#alive) return "running";
    if (this.#stderr.some((l) => /out of memory|Allocation failed/i.test(l))) {
      return `ran out of memory (${this.#signal ? `killed by ${this.#signal}` : "exited"})`;
    }
    if (this.#signal === "SIGKILL" && !this.#killedHere) {
      return describeOutsideKill(this.#oomKillsAtStart, this.#oomKillsAtExit, this.#peakRss);
    }
    return this.#signal ? `killed by ${this.#signal}` : `exited with code ${this.#exitCode}`;
  }

  /** Calls a tool in the worker. Protocol failures and a dead worker become RemcpErrors. */
  call(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions & { wire: true },
  ): Promise<ToolResult | WireResult>;
  call(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions & { wire?: false },
  ): Promise<ToolResult>;
  call(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<ToolResult | WireResult>;
  async call(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<ToolResult | WireResult> {
    if (!this.#alive) throw this.crashError();
    const interrupt = () => {
      if (!this.#cancelSignal || !this.#alive) return;
      try {
        this.#child.kill(this.#cancelSignal);
      } catch { /* gone */ }
    };
    if (this.#cancelSignal) options.signal?.addEventListener("abort", interrupt, { once: true });
    try {
      if (!this.#client) throw this.crashError();
      const result = await this.#client.request("tools/call", { name, arguments: args }, {
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        onprogress: options.onprogress,
        raw: options.wire ? wireSuccess : undefined,
      });
      return result as ToolResult | WireResult;
    } catch (err) {
      if (!this.#alive || !(await this.#stillAlive())) throw this.crashError();
      if (options.signal?.aborted) {
        throw new RemcpError("Cancelled", `The call to ${name} was cancelled`, { tool: name });
      }
      const message = err instanceof Error ? err.message : String(err);
      if (/timed? ?out/i.test(message)) {
        throw new RemcpError(
          "Timeout",
          `${name} took longer than ${Math.round(options.timeoutMs / 1000)} s: narrow the ` +
            `request, or raise REMCP_CALL_TIMEOUT`,
          { tool: name, timeout_s: options.timeoutMs / 1000 },
        );
      }
      throw new RemcpError("Internal", `Worker protocol error in ${name}: ${message}`, {
        tool: name,
      });
    } finally {
      options.signal?.removeEventListener("abort", interrupt);
    }
  }

  /**
   * Asks the worker to connect to a sandbox's lane socket at `path`, present `token` and serve
   * exactly `tools` on it (workers/lanes.ts). Rejects when the worker could not.
   */
  async openLane(path: string, token: string, tools: readonly string[]): Promise<void> {
    if (!this.#alive || !this.#client) throw this.crashError();
    await this.#client.request("remcp/lane", { path, token, tools }, { timeoutMs: 10_000 });
  }

  /** Calls a tool and returns its structured content, throwing its error as a RemcpError. */
  async callStructured(
    name: string,
    args: Record<string, unknown>,
    options: Omit<CallOptions, "wire">,
  ): Promise<Record<string, unknown>> {
    return resultValue(await this.call(name, args, options), name);
  }

  // A broken request can race the exit status by a few milliseconds; give the status a moment.
  async #stillAlive(): Promise<boolean> {
    if (!this.#alive) return false;
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 100))]);
    return this.#alive;
  }

  /** The WorkerCrashed error for this process, with its last stderr lines. */
  crashError(): RemcpError {
    const tail = this.stderrTail().slice(-10);
    return new RemcpError(
      "WorkerCrashed",
      `The worker for this database ${this.exitDescription()}; other databases are unaffected. ` +
        (this.#overrun
          ? "Raise REMCP_WORKER_MEMORY_MB, or open a smaller file, and reopen it with open_database"
          : "Reopen the file with open_database to continue") +
        " (saved annotations are kept)",
      {
        exit: this.exitDescription(),
        stderr: tail,
        ...(this.#overrun
          ? {
            memory_mb: mib(this.#overrun.rssBytes),
            budget_mb: mib(this.#overrun.budgetBytes),
          }
          : {}),
      },
    );
  }

  /** Kills the process at once. */
  kill(): void {
    if (!this.#alive) return;
    this.#killedHere = true;
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }

  /** Asks the worker to save and exit (stdin closes), then kills it after `graceMs`. */
  async close(graceMs = 5000): Promise<void> {
    if (this.#alive) {
      await this.#client?.close().catch(() => {});
      const timer = setTimeout(() => {
        try {
          this.#child.kill("SIGTERM");
        } catch { /* gone */ }
      }, graceMs);
      const hard = setTimeout(() => this.kill(), graceMs * 2);
      await this.exited.catch(() => {});
      clearTimeout(timer);
      clearTimeout(hard);
    }
  }
}
