/**
 * Newline-delimited text over bytes, for the JSON lines of the sandbox protocol: reading lines
 * from a stream or a connection, and writing the lines of one burst together.
 */

/** A byte source read directly (a `Deno.Conn`): no stream machinery between it and the reader. */
export interface ByteReader {
  read(buffer: Uint8Array): Promise<number | null>;
}

const READ_CHUNK = 64 * 1024;

/**
 * Yields each `\n`-terminated line of `source` (without the newline, `\r` kept), then a tail.
 * Linear in the input's length: each chunk is searched once, and a long line's pieces are joined
 * once, when its newline arrives (searching a growing string for every chunk made a 15 MiB line
 * take seconds).
 */
export async function* readLines(
  source: ReadableStream<Uint8Array> | ByteReader,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending: string[] = [];
  for await (const chunk of chunksOf(source)) {
    const text = decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      pending.push(text.slice(start, nl));
      yield pending.join("");
      pending = [];
      start = nl + 1;
    }
    if (start < text.length) pending.push(text.slice(start));
  }
  pending.push(decoder.decode());
  const tail = pending.join("");
  if (tail !== "") yield tail;
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
  let chain = Promise.resolve();
  return batchLines((lines) => {
    const bytes = encoder.encode(lines + "\n");
    chain = chain.then(async () => {
      for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
    }).catch(() => {});
  });
}
