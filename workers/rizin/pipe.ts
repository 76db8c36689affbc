/**
 * One `rizin -q0` child and its pipe: commands go to stdin one per line, each answer is read up
 * to its NUL on stdout, and what rizin logged on stderr meanwhile is returned beside it (rizin
 * reports many failures only there). Commands run one at a time; each has a timeout, after which
 * the child is killed and the pipe is dead (the session starts a new one).
 */
import { RemcpError } from "../../src/errors.ts";
import { NulFramer } from "./frames.ts";

/** The parts of a child process the pipe uses (`Deno.ChildProcess` has them). */
export interface PipeChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal?: Deno.Signal): void;
}

/** Starts a child from an argv. */
export type PipeSpawner = (argv: readonly string[]) => PipeChild;

/** The production spawner: every stream piped, so nothing the child prints reaches our stdout. */
export const spawnPiped: PipeSpawner = (argv) => {
  const [cmd, ...args] = argv;
  if (cmd === undefined) throw new RangeError("empty argv");
  return new Deno.Command(cmd, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
};

/** A command whose stderr message marks the end of the previous command's stderr. */
export interface StderrFence {
  /** The command line to send after each command. */
  command: string;
  /** Text that appears in the one stderr line the fence command logs. */
  marker: string;
}

/** One command's answer. */
export interface PipeResult {
  /** stdout up to the NUL. */
  output: string;
  /** Non-empty stderr lines logged while the command ran. */
  messages: string[];
}

/** Options of {@link RizinPipe.start}. */
export interface PipeOptions {
  spawn?: PipeSpawner;
  /** How long rizin may take to load the file and print its first NUL. */
  startupTimeoutMs: number;
  /** Without a fence: how long to let stderr drain after a command's NUL. */
  graceMs?: number;
}

/** Why a command did not complete. */
export class PipeDead extends RemcpError {}

/** A running `rizin -q0`. */
export class RizinPipe {
  readonly #child: PipeChild;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #framer = new NulFramer();
  readonly #frames: string[] = [];
  #waiter: ((frame: string) => void) | undefined;
  #stderr = "";
  #stderrWaiter: (() => void) | undefined;
  #dead: string | undefined;
  #onDead: ((why: string) => void)[] = [];
  #chain: Promise<unknown> = Promise.resolve();
  #fence: StderrFence | undefined;
  readonly #graceMs: number;
  readonly exited: Promise<void>;

  private constructor(child: PipeChild, graceMs: number) {
    this.#child = child;
    this.#graceMs = graceMs;
    this.#writer = child.stdin.getWriter();
    void this.#pump(child.stdout, (chunk) => {
      for (const f of this.#framer.push(chunk)) this.#deliver(f);
    });
    void this.#pump(child.stderr, (chunk, dec) => {
      this.#stderr += dec.decode(chunk, { stream: true });
      // Bound what an unread stderr can hold.
      if (this.#stderr.length > 1_000_000) this.#stderr = this.#stderr.slice(-500_000);
      this.#stderrWaiter?.();
    });
    this.exited = child.status.then((s) => {
      this.#die(`rizin exited (${s.signal ? `signal ${s.signal}` : `code ${s.code}`})`);
    }, () => this.#die("rizin exited"));
  }

  /** Spawns `argv` and waits for rizin's ready NUL. */
  static async start(argv: readonly string[], options: PipeOptions): Promise<RizinPipe> {
    const child = (options.spawn ?? spawnPiped)(argv);
    const pipe = new RizinPipe(child, options.graceMs ?? 5);
    try {
      await pipe.#nextFrame(options.startupTimeoutMs, "loading the file");
      pipe.#takeStderr();
    } catch (err) {
      pipe.kill();
      const tail = pipe.#stderr.trim().split("\n").slice(-5).join("\n");
      throw new RemcpError(
        "OpenFailed",
        `rizin could not open the file: ${(err as Error).message}${tail ? `: ${tail}` : ""}`,
        { argv: [...argv] },
      );
    }
    return pipe;
  }

  /** The child's pid. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Why the pipe is dead, or undefined while it runs. */
  get dead(): string | undefined {
    return this.#dead;
  }

  /** Sets the stderr fence (after the session checked that rizin logs the marker). */
  useFence(fence: StderrFence | undefined): void {
    this.#fence = fence;
  }

  /** Runs one command line; commands queue behind each other. */
  run(line: string, timeoutMs: number): Promise<PipeResult> {
    const next = this.#chain.then(() => this.#exec(line, timeoutMs));
    this.#chain = next.catch(() => {});
    return next;
  }

  /** Kills the child (SIGKILL); pending and later commands fail. */
  kill(): void {
    this.#die("rizin was killed");
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }

  /** Asks rizin to quit, killing it if it does not within `ms`. */
  async quit(ms = 2000): Promise<void> {
    if (this.#dead) return;
    try {
      await this.#write("q!!\n");
      await this.#writer.close().catch(() => {});
    } catch {
      // The pipe broke: kill below.
    }
    const t = setTimeout(() => this.kill(), ms);
    await this.exited;
    clearTimeout(t);
  }

  async #exec(line: string, timeoutMs: number): Promise<PipeResult> {
    if (this.#dead) throw this.#deadError(line);
    if (/[\n\r\0]/.test(line)) throw new RangeError("a command line must be one line");
    this.#takeStderr();
    const fence = this.#fence;
    await this.#write(fence ? `${line}\n${fence.command}\n` : `${line}\n`);
    const output = await this.#nextFrame(timeoutMs, line);
    if (fence) {
      await this.#nextFrame(timeoutMs, line);
      const text = await this.#stderrUntil(fence.marker, 1000);
      return { output, messages: lines(text) };
    }
    await new Promise((r) => setTimeout(r, this.#graceMs));
    return { output, messages: lines(this.#takeStderr()) };
  }

  async #write(text: string): Promise<void> {
    try {
      await this.#writer.write(new TextEncoder().encode(text));
    } catch (err) {
      this.#die(`writing to rizin failed: ${(err as Error).message}`);
      throw this.#deadError(text.split("\n")[0] ?? "");
    }
  }

  #nextFrame(timeoutMs: number, what: string): Promise<string> {
    const ready = this.#frames.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.#dead) return Promise.reject(this.#deadError(what));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        this.#onDead = this.#onDead.filter((f) => f !== onDead);
        reject(
          new PipeDead("Timeout", `rizin did not answer within ${timeoutMs} ms: ${what}`, {
            command: what,
            timeout_ms: timeoutMs,
          }),
        );
        this.kill();
      }, timeoutMs);
      const onDead = (why: string) => {
        clearTimeout(timer);
        this.#waiter = undefined;
        reject(this.#deadError(what, why));
      };
      this.#onDead.push(onDead);
      this.#waiter = (frame) => {
        clearTimeout(timer);
        this.#waiter = undefined;
        this.#onDead = this.#onDead.filter((f) => f !== onDead);
        resolve(frame);
      };
    });
  }

  async #stderrUntil(marker: string, ms: number): Promise<string> {
    const deadline = Date.now() + ms;
    while (!this.#stderr.includes(marker) && Date.now() < deadline && !this.#dead) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.#stderrWaiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.#stderrWaiter = undefined;
    }
    const all = this.#stderr;
    const at = all.indexOf(marker);
    if (at === -1) {
      this.#stderr = "";
      return all;
    }
    const lineStart = all.lastIndexOf("\n", at) + 1;
    const lineEnd = all.indexOf("\n", at);
    this.#stderr = lineEnd === -1 ? "" : all.slice(lineEnd + 1);
    return all.slice(0, lineStart);
  }

  #takeStderr(): string {
    const s = this.#stderr;
    this.#stderr = "";
    return s;
  }

  #deliver(frame: string): void {
    if (this.#waiter) this.#waiter(frame);
    else this.#frames.push(frame);
  }

  #die(why: string): void {
    if (this.#dead) return;
    this.#dead = why;
    const waiters = this.#onDead;
    this.#onDead = [];
    for (const w of waiters) w(why);
  }

  #deadError(what: string, why = this.#dead ?? "rizin is not running"): PipeDead {
    const tail = this.#stderr.trim().split("\n").slice(-5).join("\n");
    return new PipeDead("Internal", `${why} while running: ${what}${tail ? `: ${tail}` : ""}`, {
      command: what,
    });
  }

  async #pump(
    stream: ReadableStream<Uint8Array>,
    take: (chunk: Uint8Array, dec: TextDecoder) => void,
  ): Promise<void> {
    const dec = new TextDecoder("utf-8", { fatal: false });
    try {
      for await (const chunk of stream) take(chunk, dec);
    } catch {
      // The child died; `exited` reports it.
    }
  }
}

function lines(text: string): string[] {
  return text.split("\n").map((l) => l.trimEnd()).filter((l) => l.trim() !== "");
}
