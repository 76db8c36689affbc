/**
 * An MCP `Transport` over a pair of byte streams carrying newline-delimited JSON-RPC, as the
 * stdio binding specifies: the server's own stdin/stdout, or a worker child's pipes (no
 * `node:child_process`). Unlike the SDK's stdio transport it survives hostile input: a line that
 * is not JSON gets a JSON-RPC parse error, and a line over the size limit is skipped and answered
 * with an error for its request id, instead of closing the connection.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { JsonRpcGate } from "./jsonrpc_gate.ts";

/**
 * A byte connection read and written directly (a `Deno.Conn`): no stream machinery between the
 * event loop and the socket. A Unix socket's reads and writes run on the event loop's own thread,
 * where a process's stdin and stdout go through a blocking thread per read and write (measured:
 * most of a hop's cost, bench/hop_floor.ts).
 */
export interface ByteConn {
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  closeWrite(): Promise<void>;
  close(): void;
}

/** Where a transport's bytes come from and go: a pair of streams, or a connection. */
export type LineIo =
  | { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array>; conn?: never }
  | { conn: ByteConn; readable?: never; writable?: never };

/** Options of {@link LineTransport}. */
export type LineTransportOptions = LineTransportCommon & LineIo;

interface LineTransportCommon {
  /** Largest accepted line in bytes (default 128 MiB). */
  maxLineBytes?: number;
  /** Answer malformed and oversize requests with JSON-RPC errors (servers do; clients don't). */
  answerBadInput?: boolean;
  /** Sees each message first; returning true consumes it (a fast path beside the SDK). */
  intercept?: (message: Record<string, unknown>) => boolean;
}

// open_data accepts 64 MiB, which is 128 MiB as hex: leave room for that plus the envelope.
const DEFAULT_MAX_LINE = 160 * 1024 * 1024;
const NL = 0x0a;
const READ_CHUNK = 64 * 1024;
const EMPTY = new Uint8Array(0);
/** Lines up to a third of this are encoded into the transport's reused output buffer. */
const REUSED_OUT = 1024 * 1024;

/** JSON-RPC over newline-delimited byte streams. */
export class LineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /**
   * Sees each line's bytes before they are decoded and parsed; returning true consumes the line.
   * The supervisor's client of a worker takes a tool's answer this way without parsing it
   * (`src/protocol/wire_result.ts`). The bytes are valid only during the call.
   */
  online?: ((line: Uint8Array) => boolean) | undefined;

  #opts: LineTransportOptions;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #closed = false;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();
  #writeChain: Promise<void> = Promise.resolve();
  #out = new Uint8Array(0);
  #put: ((bytes: Uint8Array) => Promise<void>) | undefined;
  /** Whether the last chunk read is still referenced (a line that has not ended yet). */
  #keepsChunk = false;
  #gate: JsonRpcGate | undefined;
  #ended = Promise.withResolvers<void>();
  /** Settles when the connection ends (peer closed, or close() called), whoever owns onclose. */
  readonly ended: Promise<void> = this.#ended.promise;

  constructor(opts: LineTransportOptions) {
    this.#opts = opts;
    // A server's side enforces JSON-RPC and the MCP handshake; a client's side trusts its server.
    this.#gate = opts.answerBadInput ? new JsonRpcGate() : undefined;
  }

  start(): Promise<void> {
    const { conn, writable } = this.#opts;
    if (conn) {
      this.#put = async (bytes) => {
        for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
      };
    } else if (writable) {
      const writer = writable.getWriter();
      this.#writer = writer;
      this.#put = (bytes) => writer.write(bytes);
    }
    void this.#readLoop();
    return Promise.resolve();
  }

  async #readLoop(): Promise<void> {
    const max = this.#opts.maxLineBytes ?? DEFAULT_MAX_LINE;
    const { conn, readable } = this.#opts;
    // Read in a plain loop, not through an async generator: each chunk then costs one promise.
    const reader = conn ? undefined : readable?.getReader();
    let buffer = new Uint8Array(conn ? READ_CHUNK : 0);
    let parts: Uint8Array[] = [];
    let size = 0;
    let oversize = false;
    let head: Uint8Array | undefined;
    let tail: Uint8Array = EMPTY;
    try {
      for (;;) {
        let chunk: Uint8Array;
        if (conn) {
          // The reader keeps a view of a line's start that has no end yet: read into a fresh
          // buffer then. A chunk of whole lines was handled already, so its buffer is reused.
          if (this.#keepsChunk) buffer = new Uint8Array(READ_CHUNK);
          const n = await conn.read(buffer);
          if (n === null) break;
          chunk = buffer.subarray(0, n);
        } else {
          if (!reader) break;
          const next = await reader.read();
          if (next.done) break;
          chunk = next.value;
        }
        this.#keepsChunk = false;
        let start = 0;
        while (start < chunk.length) {
          const nl = chunk.indexOf(NL, start);
          const end = nl === -1 ? chunk.length : nl;
          const piece = chunk.subarray(start, end);
          if (!oversize) {
            if (size + piece.length > max) {
              oversize = true;
              head = concat(parts, size).subarray(0, 4096).slice();
              parts = [];
            } else {
              parts.push(piece);
              size += piece.length;
              if (nl === -1) this.#keepsChunk = true;
            }
          }
          if (oversize) tail = lastBytes(tail, piece, 4096);
          if (nl === -1) break;
          if (oversize) this.#rejectOversize(head ?? new Uint8Array(), tail, max);
          else this.#handleLine(concat(parts, size));
          parts = [];
          size = 0;
          oversize = false;
          head = undefined;
          tail = EMPTY;
          start = nl + 1;
        }
      }
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    } finally {
      reader?.releaseLock();
      try {
        conn?.close();
      } catch {
        // Closed already.
      }
    }
    this.#finish();
  }

  #handleLine(bytes: Uint8Array): void {
    try {
      if (this.online?.(bytes)) return;
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    // No regex or trim over the whole line: both cost its length again on a big message.
    let line = this.#decoder.decode(bytes);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (!/\S/.test(line)) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.onerror?.(new Error(`Received a line that is not JSON: ${line.slice(0, 200)}`));
      if (this.#opts.answerBadInput) {
        void this.#write({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message: "Parse error: not JSON" },
        });
      }
      return;
    }
    if (this.#gate) {
      const verdict = this.#gate.check(message);
      if (!verdict.pass) {
        const r = verdict.reply;
        this.onerror?.(new Error(r ? r.message : "Invalid message"));
        if (r) {
          void this.#write({
            jsonrpc: "2.0",
            id: r.id,
            error: { code: r.code, message: r.message },
          });
        }
        return;
      }
    } else if (typeof message !== "object" || message === null) {
      return;
    }
    try {
      if (this.#opts.intercept?.(message as Record<string, unknown>)) return;
      this.onmessage?.(message as JSONRPCMessage);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #rejectOversize(head: Uint8Array, tail: Uint8Array, max: number): void {
    this.onerror?.(new Error(`Skipped a message larger than ${max} bytes`));
    if (!this.#opts.answerBadInput) return;
    // The id sits near the start or the end of the message; without it, answer with id null.
    const ends = this.#decoder.decode(head) + "\n" + this.#decoder.decode(tail);
    const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*[,}]/.exec(ends);
    const id = m ? JSON.parse(m[1]!) as string | number : null;
    void this.#write({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32600,
        message: `Request larger than ${max} bytes: send less data (open_data takes at most ` +
          `64 MiB; put bigger files on disk and use open_database)`,
      },
    });
  }

  #write(message: unknown): Promise<void> {
    return this.#enqueue(JSON.stringify(message));
  }

  #enqueue(line: string): Promise<void> {
    // Serialize writes: concurrent writer.write calls must not interleave partial lines.
    this.#writeChain = this.#writeChain.then(() => {
      if (this.#closed || !this.#put) throw new Error("Transport is closed");
      return this.#put(this.#bytes(line));
    });
    return this.#writeChain;
  }

  /**
   * A line's bytes with its newline, encoded when its turn to be written comes. Through a
   * connection they go into one buffer reused from write to write: writes take turns, and a
   * connection's write resolves once its bytes are written. A new buffer per message costs a
   * page fault per 4 KB on a VM, tens of microseconds (docs/ARCHITECTURE.md section 7). A stream
   * may still hold a chunk after its write resolved, so it gets its own, as does a large line.
   */
  #bytes(line: string): Uint8Array {
    const most = line.length * 3 + 1;
    if (!this.#opts.conn || most > REUSED_OUT) return this.#encoder.encode(line + "\n");
    if (this.#out.length < most) {
      this.#out = new Uint8Array(Math.min(REUSED_OUT, Math.max(most, 2 * this.#out.length)));
    }
    const { written } = this.#encoder.encodeInto(line, this.#out);
    this.#out[written] = NL;
    return this.#out.subarray(0, written + 1);
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.#gate?.sent(message);
    return this.#write(message);
  }

  /**
   * Sends the response to request `id` already serialized as one line of JSON without its
   * newline (`responseLine` of `src/protocol/wire_result.ts`).
   */
  sendResponseLine(id: string | number, line: string): Promise<void> {
    this.#gate?.answered(id);
    return this.#enqueue(line);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#writeChain.catch(() => {});
    try {
      // A connection is half-closed: the peer sees the end of its input, as with a pipe.
      await (this.#opts.conn ? this.#opts.conn.closeWrite() : this.#writer?.close());
    } catch {
      // The peer may already be gone; closing is best effort.
    }
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ended.resolve();
    this.onclose?.();
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function lastBytes(prev: Uint8Array, piece: Uint8Array, n: number): Uint8Array {
  if (piece.length >= n) return piece.slice(piece.length - n);
  const keep = Math.min(prev.length, n - piece.length);
  const out = new Uint8Array(keep + piece.length);
  out.set(prev.subarray(prev.length - keep), 0);
  out.set(piece, keep);
  return out;
}
