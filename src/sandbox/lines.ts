/**
 * Newline-delimited text over bytes, for the JSON lines of the sandbox protocol: reading lines
 * from a stream or a connection, and writing the lines of one burst together.
 */

/** A byte source read directly (a `Deno.Conn`): no stream machinery between it and the reader. */
export interface ByteReader {
  read(buffer: Uint8Array): Promise<number | null>;
}

const READ_CHUNK = 64 * 1024;
/** Bursts up to a third of this many UTF-16 units are written from one reused buffer. */
const REUSED_WRITE_BYTES = 64 * 1024;

/**
 * Splits decoded text into `\n`-terminated lines (without the newline, `\r` kept). Linear in the
 * input's length: each chunk is searched once, and a long line's pieces are joined once, when its
 * newline arrives (searching a growing string for every chunk made a 15 MiB line take seconds).
 */
class LineSplitter {
  readonly #decoder = new TextDecoder();
  #pending: string[] = [];

  /** Calls `onLine` for each line `chunk` completes. */
  push(chunk: Uint8Array, onLine: (line: string) => void): void {
    const text = this.#decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      this.#pending.push(text.slice(start, nl));
      const line = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join("");
      this.#pending = [];
      start = nl + 1;
      onLine(line);
    }
    if (start < text.length) this.#pending.push(text.slice(start));
  }

  /** The unterminated tail, if any. */
  end(): string {
    this.#pending.push(this.#decoder.decode());
    return this.#pending.join("");
  }
}

/** Yields each line of `source` (see {@link LineSplitter}), then an unterminated tail. */
export async function* readLines(
  source: ReadableStream<Uint8Array> | ByteReader,
): AsyncGenerator<string> {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  const collect = (line: string) => lines.push(line);
  for await (const chunk of chunksOf(source)) {
    splitter.push(chunk, collect);
    yield* lines.splice(0);
  }
  const tail = splitter.end();
  if (tail !== "") yield tail;
}

/**
 * Calls `onLine` for each line of a connection, then for an unterminated tail; settles when it
 * ends. A plain loop over one reused buffer: no async generator per chunk or per line, which a
 * lane's reader would pay per invoke. A read that fails rejects.
 */
export async function eachLine(source: ByteReader, onLine: (line: string) => void): Promise<void> {
  const splitter = new LineSplitter();
  const buffer = new Uint8Array(READ_CHUNK);
  for (let n = await source.read(buffer); n !== null; n = await source.read(buffer)) {
    splitter.push(buffer.subarray(0, n), onLine);
  }
  const tail = splitter.end();
  if (tail !== "") onLine(tail);
}

/** The chunks of a stream, or of a connection read into one reused buffer (decoded at once). */
async function* chunksOf(
  source: ReadableStream<Uint8Array> | ByteReader,
): AsyncGenerator<Uint8Array> {
  if (source instanceof ReadableStream) {
    yield* source;
    return;
  }
  const buffer = new Uint8Array(READ_CHUNK);
  for (let n = await source.read(buffer); n !== null; n = await source.read(buffer)) {
    yield buffer.subarray(0, n);
  }
}

/**
 * A writer of protocol lines that queues them and hands them to `flush` newline-joined (no
 * trailing newline) once the current synchronous work is over: the invokes one QuickJS slice
 * issues (a `Promise.all`) leave as one write or message, and the script's CPU time does not pay
 * for the system call.
 */
export function batchLines(flush: (lines: string) => void): (line: string) => void {
  const outbox: string[] = [];
  const send = () => {
    const lines = outbox.join("\n");
    outbox.length = 0;
    flush(lines);
  };
  return (line) => {
    outbox.push(line);
    if (outbox.length === 1) queueMicrotask(send);
  };
}

/**
 * A writer of lines to a connection, a burst at a time. Writes are chained, so lines leave in
 * order; a broken connection means the peer is gone, and reading notices it.
 */
export function connLines(
  conn: { write(bytes: Uint8Array): Promise<number> },
): (line: string) => void {
  const encoder = new TextEncoder();
  // Reused for every burst that fits (an invoke's line does): a new buffer per write costs its
  // allocation, and the writes take turns, so one is never encoded over while being written.
  const reused = new Uint8Array(REUSED_WRITE_BYTES);
  let chain = Promise.resolve();
  return batchLines((lines) => {
    chain = chain.then(async () => {
      const text = lines + "\n";
      // A UTF-16 code unit takes at most 3 bytes of UTF-8.
      const bytes = text.length * 3 <= reused.length
        ? reused.subarray(0, encoder.encodeInto(text, reused).written)
        : encoder.encode(text);
      for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
    }).catch(() => {});
  });
}
