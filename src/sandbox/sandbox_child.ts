/**
 * The OS process behind one sandbox: an interface the pool talks to, and the production spawner
 * that re-launches this program as `remcp sandbox` through `Deno.Command`.
 */
import { selfCommand } from "../self_command.ts";

/** How a child process ended. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
}

/** One running sandbox process, as the pool sees it. */
export interface SandboxChild {
  /** The child's stdout: protocol lines. Read by exactly one reader. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Writes one protocol line to the child's stdin. Rejects once the child is gone. */
  write(line: string): Promise<void>;
  /** Settles when the process has exited and its pipes are closed. */
  readonly exited: Promise<ChildExit>;
  /** Kills the process at once (SIGKILL). Harmless after it has exited. */
  kill(): void;
  /** The last few KiB the child wrote to stderr, for error messages. */
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
  const exited = process.status.then(async (status) => {
    alive = false;
    await writer.close().catch(() => {});
    await stderrDone;
    return { code: status.signal ? null : status.code, signal: status.signal };
  });
  return {
    stdout: process.stdout,
    write: (line) => writer.write(encoder.encode(line + "\n")),
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
