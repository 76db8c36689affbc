/**
 * The sandbox process's side of its lanes (protocol.ts; the worker's side is workers/lanes.ts):
 * connections from workers to the lane socket this process opened before it dropped its
 * permissions. A lane carries the invokes its grant names straight to the worker and back, so
 * they wake two processes instead of four; the dispatcher decided, once, which tools on which
 * database a lane may carry, and the worker refuses any other.
 *
 * A connection counts only with a token the parent announced for the run in progress. Its
 * answers reach the guest exactly as the parent's would (src/protocol/invoke_answer.ts). An
 * invoke a lane cannot answer — the lane closed first (its worker stopped or died), or the worker
 * answered with a protocol error — is asked of the parent instead, which answers as it does for
 * a closed or dead database: the worker answers every call it starts before it closes a lane, so
 * such an invoke was never run, or its worker is gone.
 */
import type { InvokeOutcome } from "./engine_types.ts";
import { connLines, eachLine } from "./lines.ts";
import type { LaneMessage } from "./protocol.ts";
import { invokeOutcomeOf, readLaneAnswer } from "../protocol/invoke_answer.ts";

/** Longest first line (the token) a connection may send. */
const HELLO_BYTES = 256;
/** Connections kept waiting for their token's announcement, at most. */
const MAX_PARKED = 8;
/**
 * How long a granted lane waits for its worker to connect. Invokes for it wait meanwhile (the
 * supervisor's path would queue them behind the same worker); past this they go to the parent.
 */
const CONNECT_MS = 5_000;

/** What the parent granted with a token. */
type Grant = Omit<LaneMessage, "type" | "runId" | "token">;

/** The lanes of one sandbox process. */
export class LaneHub {
  readonly #listener: Deno.Listener;
  #runId: string | undefined;
  /** Granted lanes whose worker has not connected yet, by token. */
  #waiting = new Map<string, Lane>();
  /** Connected before their token was announced, by token. */
  #parked = new Map<string, Deno.Conn>();
  /** The run's lanes (connected or waiting for their worker), by database. */
  #lanes = new Map<string, Lane>();

  constructor(listener: Deno.Listener) {
    this.#listener = listener;
    void this.#acceptLoop();
  }

  /**
   * A run starts: it has no lane yet. Connections parked before it keep waiting: a lane granted
   * in the run message is opened as the run is sent, so its worker may connect first.
   */
  begin(runId: string): void {
    this.#closeLanes();
    this.#runId = runId;
  }

  /** The run ended: every lane closes, every token is forgotten. */
  end(): void {
    this.#runId = undefined;
    for (const conn of this.#parked.values()) closeQuietly(conn);
    this.#parked.clear();
    this.#closeLanes();
  }

  #closeLanes(): void {
    this.#waiting.clear();
    const lanes = [...this.#lanes.values()];
    this.#lanes.clear();
    for (const lane of lanes) lane.close(false);
  }

  /** The parent granted a lane to the run `message.runId`. */
  grant(message: LaneMessage): void {
    if (message.runId !== this.#runId || this.#lanes.has(message.database)) return;
    const { database, tools, bare } = message;
    const lane = new Lane({ database, tools, bare }, () => {
      this.#waiting.delete(message.token);
      if (this.#lanes.get(database) === lane) this.#lanes.delete(database);
    });
    this.#lanes.set(database, lane);
    const parked = this.#parked.get(message.token);
    if (parked) {
      this.#parked.delete(message.token);
      lane.attach(parked);
    } else this.#waiting.set(message.token, lane);
  }

  /**
   * Runs an invoke on a lane when one carries it: `tool` is granted there, and the invoke names
   * the lane's database, or names none and the lane takes those (`bare`). Otherwise undefined:
   * the caller asks the parent. `viaParent` is how, should the lane fail the invoke; `onLane` is
   * called when the lane answered it.
   */
  invoke(
    tool: string,
    argsJson: string,
    viaParent: () => Promise<InvokeOutcome>,
    onLane: () => void,
  ): Promise<InvokeOutcome> | undefined {
    if (this.#lanes.size === 0) return undefined;
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      return undefined;
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
    const { database, ...rest } = args as Record<string, unknown>;
    let lane: Lane | undefined;
    if (database === undefined) {
      for (const l of this.#lanes.values()) if (l.bare) lane = l;
    } else if (typeof database === "string") lane = this.#lanes.get(database);
    if (!lane || lane.closed || !lane.tools.has(tool)) return undefined;
    // The worker's specs do not take `database`: the dispatcher consumes it on the other path.
    const sent = database === undefined ? argsJson : JSON.stringify(rest);
    return lane.call(tool, sent, viaParent, onLane);
  }

  async #acceptLoop(): Promise<void> {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
      } catch {
        return;
      }
      void this.#hello(conn);
    }
  }

  /** Reads a connection's token and binds it, parks it, or closes it. */
  async #hello(conn: Deno.Conn): Promise<void> {
    const token = await readToken(conn);
    if (token === undefined) {
      closeQuietly(conn);
      return;
    }
    const lane = this.#runId === undefined ? undefined : this.#waiting.get(token);
    if (lane) {
      this.#waiting.delete(token);
      lane.attach(conn);
    } else if (this.#parked.size < MAX_PARKED && !this.#parked.has(token)) {
      // The worker may connect before this process has read the parent's announcement (or the
      // run message carrying it): it waits, with at most seven others, until the next run ends.
      this.#parked.set(token, conn);
    } else closeQuietly(conn);
  }
}

interface Pending {
  tool: string;
  settle: (outcome: Promise<InvokeOutcome> | InvokeOutcome) => void;
  fallback: () => Promise<InvokeOutcome>;
  onLane: () => void;
}

/** One granted lane: waiting for its worker, then connected, then closed. */
class Lane {
  readonly tools: ReadonlySet<string>;
  readonly bare: boolean;
  closed = false;
  readonly #onGone: () => void;
  readonly #timer: ReturnType<typeof setTimeout>;
  #conn: Deno.Conn | undefined;
  #send: ((line: string) => void) | undefined;
  /** Requests made before the worker connected. */
  #queued: string[] = [];
  #next = 1;
  readonly #pending = new Map<number, Pending>();

  constructor(grant: Grant, onGone: () => void) {
    this.tools = new Set(grant.tools);
    this.bare = grant.bare;
    this.#onGone = onGone;
    this.#timer = setTimeout(() => this.close(true), CONNECT_MS);
  }

  /** The worker connected (and presented this lane's token). */
  attach(conn: Deno.Conn): void {
    if (this.closed) {
      closeQuietly(conn);
      return;
    }
    clearTimeout(this.#timer);
    this.#conn = conn;
    const send = connLines(conn);
    this.#send = send;
    for (const line of this.#queued) send(line);
    this.#queued = [];
    void this.#read(conn);
  }

  call(
    tool: string,
    argsJson: string,
    fallback: () => Promise<InvokeOutcome>,
    onLane: () => void,
  ): Promise<InvokeOutcome> {
    const id = this.#next++;
    const answer = Promise.withResolvers<InvokeOutcome>();
    this.#pending.set(id, { tool, settle: answer.resolve, fallback, onLane });
    const line = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${
      JSON.stringify(tool)
    },"arguments":${argsJson}}}`;
    if (this.#send) this.#send(line);
    else this.#queued.push(line);
    return answer.promise;
  }

  /**
   * Closes the lane. `reroute`: its unanswered invokes are asked of the parent; when the run
   * ended (false) nobody waits for them.
   */
  close(reroute: boolean): void {
    if (!this.closed) {
      this.closed = true;
      clearTimeout(this.#timer);
      if (this.#conn) closeQuietly(this.#conn);
      this.#onGone();
    }
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    if (reroute) { for (const p of pending) p.settle(p.fallback()); }
  }

  async #read(conn: Deno.Conn): Promise<void> {
    try {
      await eachLine(conn, (line) => this.#receive(line));
    } catch {
      // The worker went away; what is pending goes to the parent below.
    }
    this.close(true);
  }

  #receive(line: string): void {
    const answer = readLaneAnswer(line);
    if (!answer) return;
    const pending = this.#pending.get(answer.id);
    if (!pending) return;
    this.#pending.delete(answer.id);
    if ("unusable" in answer) {
      pending.settle(pending.fallback());
      return;
    }
    pending.onLane();
    pending.settle(
      "valueJson" in answer
        ? { ok: true, valueJson: answer.valueJson }
        : invokeOutcomeOf(answer.resultJson, pending.tool),
    );
  }
}

/** The token of a connection's first line (`{"lane": TOKEN}`), or undefined. */
async function readToken(conn: Deno.Conn): Promise<string | undefined> {
  const buffer = new Uint8Array(HELLO_BYTES);
  let size = 0;
  try {
    while (size < HELLO_BYTES) {
      const n = await conn.read(buffer.subarray(size));
      if (n === null) return undefined;
      size += n;
      const nl = buffer.subarray(0, size).indexOf(0x0a);
      if (nl === -1) continue;
      // The worker sends nothing more before it is asked: bytes after the token break the rule.
      if (nl !== size - 1) return undefined;
      const hello: unknown = JSON.parse(new TextDecoder().decode(buffer.subarray(0, nl)));
      const token = (hello as { lane?: unknown } | null)?.lane;
      return typeof token === "string" ? token : undefined;
    }
  } catch {
    // Not JSON, or the connection broke.
  }
  return undefined;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Closed already.
  }
}
