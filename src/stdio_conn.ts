/**
 * This process's stdin and stdout as a {@link ByteConn} read and written on the event loop's own
 * thread, when they are sockets or pipes. `Deno.stdin` and `Deno.stdout` read and write through a
 * blocking thread, which costs every message two thread hand-offs and a duplicate of fd 0 (counted
 * with strace, docs/ARCHITECTURE.md section 7); `node:net` adopts the descriptors instead, sets
 * them non-blocking and serves them from the event loop. An MCP client on Node.js gives its server
 * a Unix socket pair as stdin and stdout; a Deno or Python client gives pipes: both are adopted.
 * Terminals, files and `/dev/null` keep Deno's own stdio, and so does every system but Linux, the
 * one where this was measured.
 */
import { fstatSync, writeSync } from "node:fs";
import { Socket } from "node:net";
import type { StdioKind } from "./config.ts";
import type { ByteConn, LineIo } from "./line_transport.ts";

/** Queued input past which reading pauses until the transport catches up. */
const HIGH_WATER = 1024 * 1024;
/**
 * The longest write made at once, outside the socket: a pipe takes a write of at most PIPE_BUF
 * (4096 bytes on Linux) whole or not at all, and a Unix stream socket takes one that small as a
 * single buffer, whole or not at all. `node:fs` `writeSync` retries a partial write until it is
 * complete, and on EAGAIN after a partial one it throws without saying how much went out, so
 * only writes that cannot be partial go that way.
 */
const ATOMIC_WRITE = 4096;

/** What {@link adoptable} needs to know of a descriptor (`node:fs` `fstatSync` gives it). */
export interface FdKind {
  isSocket(): boolean;
  isFIFO(): boolean;
  dev: number;
  ino: number;
}

function fdKind(fd: number): FdKind | undefined {
  try {
    return fstatSync(fd);
  } catch {
    return undefined;
  }
}

/**
 * Whether stdin and stdout can be served from the event loop: `kind` is "auto", the system is
 * Linux, and both are sockets or pipes. Stdout is not adopted when stderr is the same pipe or
 * socket (`2>&1`): adopting makes the descriptor non-blocking, which would reach stderr's
 * blocking writes too.
 */
export function adoptable(
  kind: StdioKind,
  os: string,
  stat: (fd: number) => FdKind | undefined,
): boolean {
  if (kind !== "auto" || os !== "linux") return false;
  const stream = (s: FdKind | undefined): s is FdKind => !!s && (s.isSocket() || s.isFIFO());
  const [input, output, err] = [stat(0), stat(1), stat(2)];
  if (!stream(input) || !stream(output)) return false;
  return !(stream(err) && err.dev === output.dev && err.ino === output.ino);
}

/** This process's stdin and stdout for a {@link LineTransport}: adopted when possible. */
export function stdioIo(kind: StdioKind): LineIo {
  const conn = stdioConn(kind);
  return conn ? { conn } : { readable: Deno.stdin.readable, writable: Deno.stdout.writable };
}

/** Stdin and stdout as a connection, or undefined to keep Deno's (see {@link adoptable}). */
export function stdioConn(kind: StdioKind): ByteConn | undefined {
  if (!adoptable(kind, Deno.build.os, fdKind)) return undefined;
  return new SocketPairConn(
    new Socket({ fd: 0, readable: true, writable: false, allowHalfOpen: true }),
    new Socket({ fd: 1, readable: false, writable: true, allowHalfOpen: true }),
    (bytes) => writeSync(1, bytes),
  );
}

/** Whether a failed write only found the descriptor full (EAGAIN on a non-blocking one). */
function wouldBlock(err: unknown): boolean {
  return err instanceof Deno.errors.WouldBlock ||
    (err as { code?: unknown } | null)?.code === "EAGAIN";
}

/**
 * Two adopted descriptors, one read and one written, as a {@link ByteConn}. Each has its own
 * socket object, so a failed write (the client closed its end: EPIPE) ends only the output, and
 * the input still ends the server when it reaches its end, as with Deno's streams.
 *
 * A write of at most {@link ATOMIC_WRITE} bytes goes to the descriptor at once with one `write`
 * system call (`writeNow`) when nothing is waiting in the output socket: node:net's stream
 * machinery around each write (a write request, its callback, a tick) cost more than the system
 * call itself in the supervisor's profile (docs/ARCHITECTURE.md section 7). A longer write, or one
 * the descriptor refuses (full: EAGAIN), goes through the socket, which writes what the
 * descriptor takes and waits for it to drain; later writes follow it there until it is written,
 * so bytes keep their order. (Deno's `Deno.stdout.writeSync` does one `write` but keeps what it
 * could not write in a buffer that nothing flushes later, so it is not used.)
 */
export class SocketPairConn implements ByteConn {
  #input: Socket;
  #output: Socket;
  #writeNow: ((bytes: Uint8Array) => void) | undefined;
  /** Writes handed to the output socket and not yet written. */
  #inSocket = 0;
  #queue: Uint8Array[] = [];
  #queued = 0;
  #ended = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;
  #writeError: Error | undefined;

  /**
   * `writeNow` writes to the output's descriptor synchronously, all of at most
   * {@link ATOMIC_WRITE} bytes, or throws EAGAIN having written none when the descriptor is full
   * (it is non-blocking once adopted).
   */
  constructor(input: Socket, output: Socket, writeNow?: (bytes: Uint8Array) => void) {
    this.#input = input;
    this.#output = output;
    this.#writeNow = writeNow;
    input.on("data", (chunk: Uint8Array) => {
      this.#queue.push(chunk);
      this.#queued += chunk.length;
      if (this.#queued > HIGH_WATER) input.pause();
      this.#notify();
    });
    input.on("end", () => {
      this.#ended = true;
      this.#notify();
    });
    input.on("error", (err: Error) => {
      this.#error = err;
      this.#notify();
    });
    input.on("close", () => {
      this.#ended = true;
      this.#notify();
    });
    // Without a listener an error event would end the process; the failed write reports it.
    output.on("error", (err: Error) => this.#writeError ??= err);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async read(buffer: Uint8Array): Promise<number | null> {
    while (this.#queue.length === 0) {
      if (this.#error) throw this.#error;
      if (this.#ended) return null;
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#wake = resolve;
      await promise;
    }
    const head = this.#queue[0]!;
    const n = Math.min(head.length, buffer.length);
    buffer.set(head.subarray(0, n));
    if (n === head.length) this.#queue.shift();
    else this.#queue[0] = head.subarray(n);
    this.#queued -= n;
    if (this.#queued <= HIGH_WATER && this.#input.isPaused()) this.#input.resume();
    return n;
  }

  write(bytes: Uint8Array): Promise<number> {
    if (this.#writeError) return Promise.reject(this.#writeError);
    if (this.#writeNow && this.#inSocket === 0 && bytes.length <= ATOMIC_WRITE) {
      try {
        this.#writeNow(bytes);
        return Promise.resolve(bytes.length);
      } catch (err) {
        if (!wouldBlock(err)) {
          this.#writeError = err instanceof Error ? err : new Error(String(err));
          return Promise.reject(this.#writeError);
        }
      }
    }
    this.#inSocket++;
    return new Promise((resolve, reject) => {
      // The socket writes what the descriptor takes and the rest when it drains; the callback
      // runs once every byte is written, or with the error that stopped it.
      this.#output.write(bytes, (err) => {
        this.#inSocket--;
        if (err) reject(this.#writeError ??= err);
        else resolve(bytes.length);
      });
    });
  }

  closeWrite(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    if (this.#output.destroyed || this.#output.writableEnded) return Promise.resolve();
    this.#output.once("close", () => resolve());
    this.#output.once("error", () => resolve());
    this.#output.end(() => resolve());
    return promise;
  }

  close(): void {
    this.#input.destroy();
    // Answers still being written go out first, as from Deno's stdout stream; then the end.
    if (!this.#output.destroyed && !this.#output.writableEnded) this.#output.end();
  }
}
