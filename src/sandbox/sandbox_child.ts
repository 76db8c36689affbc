/**
 * What the pool talks to: one sandbox, in its own OS process (`remcp sandbox`, started here through
 * `Deno.Command`) or in a thread (sandbox_thread.ts). Either carries the line protocol of
 * protocol.ts.
 */
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
}

/** Bytes of stderr kept per child. */
const STDERR_TAIL_BYTES = 8 * 1024;

/** Starts `remcp sandbox` with piped stdio; stderr is kept in a small ring buffer. */
export function spawnSandboxChild(): SandboxChild {
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
      (async () => {
        try {
          for await (const line of readLines(process.stdout)) onLine(line);
        } catch {
          // The pipe broke with the process; its exit status tells the rest.
        }
      })().finally(() => pumped.resolve());
    },
    write(lines) {
      if (alive) writer.write(encoder.encode(lines + "\n")).catch(() => {});
    },
    exited,
    kill() {
      if (!alive) return;
      try {
        process.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    },
    stderrTail: () => tail.text(),
  };
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
