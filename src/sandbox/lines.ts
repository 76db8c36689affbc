/**
 * Splits a byte stream into text lines, for the newline-delimited JSON of the sandbox protocol.
 */

/** Yields each `\n`-terminated line of `stream` (without the newline, `\r` kept), then a tail. */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n", start)) {
      yield buffered.slice(start, nl);
      start = nl + 1;
    }
    buffered = buffered.slice(start);
  }
  buffered += decoder.decode();
  if (buffered !== "") yield buffered;
}
