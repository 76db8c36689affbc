/**
 * Splits a byte stream into text lines, for the newline-delimited JSON of the sandbox protocol.
 */

/**
 * Yields each `\n`-terminated line of `stream` (without the newline, `\r` kept), then a tail.
 * Linear in the stream's length: each chunk is searched once, and a long line's pieces are joined
 * once, when its newline arrives (searching a growing string for every chunk made a 15 MiB line
 * take seconds).
 */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending: string[] = [];
  for await (const chunk of stream) {
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
