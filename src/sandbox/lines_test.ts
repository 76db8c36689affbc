import assert from "node:assert/strict";
import { batchLines, type ByteReader, eachLine, readLines } from "./lines.ts";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((c) => encoder.encode(c)));
}

Deno.test("readLines() joins lines split across chunks and keeps a final unterminated line", async () => {
  const lines: string[] = [];
  for await (const line of readLines(streamOf(['{"a":', '1}\n{"b"', ":2}\n\nta", "il"]))) {
    lines.push(line);
  }
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', "", "tail"]);
});

Deno.test("readLines() does not split a multi-byte character cut between chunks", async () => {
  const bytes = new TextEncoder().encode("é\n");
  const stream = ReadableStream.from([bytes.subarray(0, 1), bytes.subarray(1)]);
  const lines: string[] = [];
  for await (const line of readLines(stream)) lines.push(line);
  assert.deepEqual(lines, ["é"]);
});

Deno.test("readLines() reads a 15 MiB line sent in 64 KiB chunks, and the lines after it", async () => {
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  const count = 240;
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent++ < count) c.enqueue(chunk);
      else {
        c.enqueue(new TextEncoder().encode("\nnext\n"));
        c.close();
      }
    },
  });
  const lengths: number[] = [];
  for await (const line of readLines(stream)) lengths.push(line.length);
  assert.deepEqual(lengths, [count * 64 * 1024, 4]);
});

Deno.test("readLines() reads a connection through one reused buffer", async () => {
  const chunks = ["é\n{", '"a":1}\n', "tail"].map((c) => new TextEncoder().encode(c));
  const conn = {
    read(buffer: Uint8Array): Promise<number | null> {
      const next = chunks.shift();
      if (!next) return Promise.resolve(null);
      buffer.set(next);
      return Promise.resolve(next.length);
    },
  };
  const lines: string[] = [];
  for await (const line of readLines(conn)) lines.push(line);
  assert.deepEqual(lines, ["é", '{"a":1}', "tail"]);
});

Deno.test("batchLines() sends the lines of one synchronous burst together, in order", async () => {
  const sent: string[] = [];
  const send = batchLines((lines) => sent.push(lines));
  send("a");
  send("b");
  assert.deepEqual(sent, []);
  await Promise.resolve();
  send("c");
  await Promise.resolve();
  assert.deepEqual(sent, ["a\nb", "c"]);
});

/** A connection that hands out `chunks`, one per read (as a socket may), then ends. */
function readerOf(chunks: Uint8Array[]): ByteReader {
  let i = 0;
  return {
    read(buffer) {
      const chunk = chunks[i++];
      if (chunk === undefined) return Promise.resolve(null);
      buffer.set(chunk);
      return Promise.resolve(chunk.length);
    },
  };
}

Deno.test("eachLine() calls back each line of a connection, whole across reads, then the tail", async () => {
  const encoder = new TextEncoder();
  const e = encoder.encode("é\n");
  const chunks = [
    encoder.encode('{"a":'),
    encoder.encode('1}\n{"b"'),
    encoder.encode(":2}\n\n"),
    e.subarray(0, 1),
    e.subarray(1),
    encoder.encode("ta"),
    encoder.encode("il"),
  ];
  const lines: string[] = [];
  await eachLine(readerOf(chunks), (line) => lines.push(line));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', "", "é", "tail"]);
});

Deno.test("eachLine() rejects when a read fails, after the lines before it", async () => {
  const lines: string[] = [];
  const chunks = [new TextEncoder().encode("one\ntw")];
  const reader: ByteReader = {
    read: (buffer) =>
      chunks.length ? readerOf(chunks.splice(0)).read(buffer) : Promise.reject(new Error("reset")),
  };
  await assert.rejects(eachLine(reader, (line) => lines.push(line)), /reset/);
  assert.deepEqual(lines, ["one"]);
});
