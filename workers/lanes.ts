/**
 * A worker's lanes: connections straight to a sandbox process, so that a script's `invoke` wakes
 * two processes (sandbox → worker → sandbox) instead of four (docs/ARCHITECTURE.md section 2).
 *
 * The supervisor's dispatcher decides everything about a lane once: it asks the worker, on the
 * worker's own channel, to open one (`remcp/lane {path, token, tools}`), after it let the run's
 * invoke of a tool on this database through. The worker connects to the sandbox's lane socket
 * (a Unix socket in the supervisor's private 0700 folder), presents the token as its first line,
 * and then answers `tools/call` requests on it with the same fast path as on its main channel —
 * only for the tools named in `tools`, which are the ones the dispatcher would let that caller
 * call. Every call of every connection waits its turn in the worker's one queue (tool_queue.ts).
 *
 * When the worker stops, it takes no new lane call (a sandbox then asks the supervisor, which
 * answers for a closed or dead database), lets the queued ones finish and closes its lanes.
 */
import { RemcpError } from "../src/errors.ts";
import { type FastRunner, fastToolCalls } from "../src/fast_calls.ts";
import { LineTransport } from "../src/line_transport.ts";
import type { Logger } from "../src/log.ts";
import { errorResult } from "../src/protocol/results.ts";

/** The request on a worker's channel that opens a lane. */
export const LANE_METHOD = "remcp/lane";

/** A lane request's parameters: the sandbox's lane socket, the token, the granted tools. */
export interface LaneParams {
  path: string;
  token: string;
  tools: string[];
}

/** The lanes of one worker. */
export class WorkerLanes {
  readonly #run: FastRunner;
  readonly #log: Logger;
  readonly #maxOutputBytes: number;
  readonly #open = new Set<LineTransport>();
  #stopping = false;

  /** `run` runs a tool call as the main channel does (through the worker's queue). */
  constructor(run: FastRunner, log: Logger, maxOutputBytes: number) {
    this.#run = run;
    this.#log = log;
    this.#maxOutputBytes = maxOutputBytes;
  }

  /**
   * The main channel's intercept: takes `remcp/lane` requests and hands every other message to
   * `next` (the fast path of tool calls).
   */
  intercept(
    next: (message: Record<string, unknown>) => boolean,
    transport: () => LineTransport,
  ): (message: Record<string, unknown>) => boolean {
    return (m) => {
      if (m.method !== LANE_METHOD) return next(m);
      const id = m.id;
      if (typeof id !== "string" && typeof id !== "number") return true;
      void this.open(m.params).then(
        () => ({ jsonrpc: "2.0", id, result: {} }),
        (err: unknown) => ({
          jsonrpc: "2.0",
          id,
          error: { code: -32603, message: `No lane: ${(err as Error).message ?? err}` },
        }),
      ).then((answer) => transport().sendResponseLine(id, JSON.stringify(answer)))
        .catch(() => {});
      return true;
    };
  }

  /** Connects to a sandbox's lane socket and serves the granted tools on it. */
  async open(raw: unknown): Promise<void> {
    const params = laneParams(raw);
    if (this.#stopping) throw new Error("the worker is stopping");
    const conn = await Deno.connect({ transport: "unix", path: params.path });
    try {
      const hello = new TextEncoder().encode(JSON.stringify({ lane: params.token }) + "\n");
      for (let at = 0; at < hello.length;) at += await conn.write(hello.subarray(at));
    } catch (err) {
      conn.close();
      throw err;
    }
    const granted = new Set(params.tools);
    const ended = Promise.withResolvers<void>();
    const transport: LineTransport = new LineTransport({
      conn,
      intercept: fastToolCalls(
        (name, args, ctx) => {
          // Not run: the lane closes soon, and the sandbox asks the supervisor instead.
          if (this.#stopping) return undefined;
          if (!granted.has(name)) {
            return Promise.resolve(errorResult(
              new RemcpError("Unsupported", `${name} was not granted on this lane`, { tool: name }),
              this.#maxOutputBytes,
            ));
          }
          return this.#run(name, args, ctx) ??
            Promise.resolve(errorResult(
              new RemcpError("Unsupported", `${name} is not a tool of this worker`, { tool: name }),
              this.#maxOutputBytes,
            ));
        },
        () => transport,
        { initialized: true, ended: ended.promise },
      ),
    });
    transport.onerror = (err) => this.#log.debug(`lane: ${err.message}`);
    this.#open.add(transport);
    void transport.ended.then(() => {
      this.#open.delete(transport);
      ended.resolve();
    });
    await transport.start();
  }

  /** Takes no new lane and no new lane call from now on. */
  stop(): void {
    this.#stopping = true;
  }

  /** Closes every lane (after {@link stop} and the queue's calls have finished). */
  async close(): Promise<void> {
    await Promise.all([...this.#open].map((t) => t.close()));
  }
}

/** Checks a lane request's parameters (they come from the supervisor, over its channel). */
function laneParams(raw: unknown): LaneParams {
  const p = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  if (
    typeof p.path !== "string" || typeof p.token !== "string" || !Array.isArray(p.tools) ||
    !p.tools.every((t) => typeof t === "string")
  ) {
    throw new TypeError("remcp/lane needs {path, token, tools: string[]}");
  }
  return { path: p.path, token: p.token, tools: p.tools as string[] };
}
