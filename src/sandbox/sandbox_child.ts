/**
 * What the pool talks to: one sandbox, in its own OS process (`remcp sandbox`, started here through
 * `Deno.Command`) or in a thread (sandbox_thread.ts). Either carries the line protocol of
 * protocol.ts.
 */
import { childSocketPath, listenForChild, socketsAvailable } from "../child_socket.ts";
import { selfCommand } from "../self_command.ts";
import { readLines } from "./lines.ts";

/** How a child process ended. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
}

/** One running sandbox, as the pool sees it. */
export interface SandboxChild {
  /** "process" or "thread", for messages about how it ended. */
  readonly kind: "process" | "thread";
  /**
   * Starts delivering the protocol lines the child sends, in order, to `onLine` (called once,
   * right after the child is made). {@link exited} settles only after the last line.
   */
  listen(onLine: (line: string) => void): void;
  /** Sends protocol lines (joined by newlines, no trailing one). Ignored once the child is gone. */
  write(lines: string): void;
  /** Settles when the child has ended and every line it sent was delivered. */
  readonly exited: Promise<ChildExit>;
  /** Ends the child at once (SIGKILL, or terminating the thread). Harmless after it ended. */
  kill(): void;
  /** The last few KiB the child wrote to stderr (a thread: its error), for error messages. */
  stderrTail(): string;
  /**
   * The socket the child listens on for lanes from workers (lane_hub.ts), once it is started; a
   * thread, or a process on pipes, has none.
   */
  lanePath(): Promise<string | undefined>;
}

/** Bytes of stderr kept per child. */
const STDERR_TAIL_BYTES = 8 * 1024;

/**
 * Starts `remcp sandbox`. It talks over a Unix socket it connects to before it drops its
 * permissions (child_socket.ts: the process's stdin would be read through a blocking thread, two
 * thread hand-offs per message); Windows keeps the pipes. stderr is kept in a small ring buffer.
 */
export function spawnSandboxChild(): SandboxChild {
  return socketsAvailable ? spawnOverSocket() : spawnOverPipes();
}

/** The child speaking the protocol on its stdin and stdout. */
function spawnOverPipes(): SandboxChild {
  const { command, args } = selfCommand("sandbox");
  const process = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = process.stdin.getWriter();
  const encoder = new TextEncoder();
  const tail = new StderrTail(STDERR_TAIL_BYTES);
  const stderrDone = tail.drain(process.stderr);
  let alive = true;
  const pumped = Promise.withResolvers<void>();
  const exited = process.status.then(async (status) => {
    alive = false;
    await writer.close().catch(() => {});
    await Promise.all([stderrDone, pumped.promise]);
    return { code: status.signal ? null : status.code, signal: status.signal };
  });
  return {
    kind: "process",
    listen(onLine) {
      pump(readLines(process.stdout), onLine).finally(() => pumped.resolve());
    },
    write(lines) {
      if (alive) writer.write(encoder.encode(lines + "\n")).catch(() => {});
    },
    exited,
    kill: () => killChild(process),
    stderrTail: () => tail.text(),
    lanePath: () => Promise.resolve(undefined),
  };
}

/**
 * The child speaking the protocol over a socket of its own: its stdin and stdout are unused. The
 * socket is made and the process started asynchronously; writes before it connects wait, in order.
 */
function spawnOverSocket(): SandboxChild {
  const encoder = new TextEncoder();
  const tail = new StderrTail(STDERR_TAIL_BYTES);
  let process: Deno.ChildProcess | undefined;
  let stderrDone: Promise<void> = Promise.resolve();
  let killed = false;
  let alive = true;
  /** Why the child could not be started, when it could not. */
  let failure = "";
  const lanes = childSocketPath("-lanes");
  const connected = (async () => {
    const socket = await listenForChild();
    try {
      if (killed) throw new Error("it was killed before it started");
      const { command, args } = selfCommand("sandbox", [
        "--connect",
        socket.path,
        "--lanes",
        await lanes,
      ]);
      const child = new Deno.Command(command, {
        args,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      process = child;
      stderrDone = tail.drain(child.stderr);
      if (killed) killChild(child);
      return await socket.accept(child.status);
    } finally {
      socket.close();
    }
  })();
  // A failed start is reported through `exited`.
  connected.catch(() => {});
  let writes = connected.then(() => {});
  const pumped = Promise.withResolvers<void>();
  const exited = connected.then(
    () => process!.status,
    async (err: unknown): Promise<Deno.CommandStatus> => {
      if (!killed) failure = err instanceof Error ? err.message : String(err);
      if (process) return await process.status;
      return { success: false, code: 1, signal: killed ? "SIGKILL" : null };
    },
  ).then(async (status) => {
    alive = false;
    await Promise.all([stderrDone, pumped.promise, writes.catch(() => {})]);
    connected.then((conn) => conn.close(), () => {});
    // The child made its lane socket and cannot remove it (it has no permissions left).
    await Deno.remove(await lanes).catch(() => {});
    return { code: status.signal ? null : status.code, signal: status.signal };
  });
  return {
    kind: "process",
    listen(onLine) {
      connected.then((conn) => pump(readLines(conn), onLine), () => {})
        .finally(() => pumped.resolve());
    },
    write(lines) {
      if (!alive) return;
      const bytes = encoder.encode(lines + "\n");
      writes = writes.then(async () => {
        const conn = await connected;
        for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
      }).catch(() => {});
    },
    exited,
    kill() {
      killed = true;
      if (process) killChild(process);
    },
    stderrTail: () => [failure, tail.text()].filter((t) => t !== "").join("; "),
    lanePath: () => connected.then(() => lanes, () => undefined),
  };
}

/** Hands each line to `onLine` until the lines end or the connection breaks with the process. */
async function pump(lines: AsyncIterable<string>, onLine: (line: string) => void): Promise<void> {
  try {
    for await (const line of lines) onLine(line);
  } catch {
    // The pipe or socket broke with the process; its exit status tells the rest.
  }
}

/** SIGKILL, harmless once the process is gone. */
function killChild(process: Deno.ChildProcess): void {
  try {
    process.kill("SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Keeps the last `max` bytes of a stream. */
class StderrTail {
  readonly #max: number;
  #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(max: number) {
    this.#max = max;
  }

  async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) {
        this.#chunks.push(chunk);
        this.#size += chunk.length;
        for (let first = this.#chunks[0]; first && this.#size - first.length >= this.#max;) {
          this.#chunks.shift();
          this.#size -= first.length;
          first = this.#chunks[0];
        }
      }
    } catch {
      // The pipe broke with the process; what was read is kept.
    }
  }

  text(): string {
    const all = new Uint8Array(this.#size);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    const start = Math.max(0, all.length - this.#max);
    return new TextDecoder().decode(all.subarray(start)).trim();
  }
}
