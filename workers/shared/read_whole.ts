/**
 * Reads a whole file into one buffer of its size. `Deno.readFile` peaks at about twice the
 * file (measured on Deno 2.9: 560 MiB of peak resident memory for a 256 MiB file, 305 MiB once
 * done) — `bench/open_memory.ts` shows the difference for an opened database. Reading through a
 * handle into a buffer allocated once keeps the peak at the file's size.
 */

// Big enough to keep the number of reads small, small enough that no read stalls the worker.
const CHUNK = 8 * 1024 * 1024;

/** The bytes of `path`, read into a single buffer sized from the open file. */
export async function readWhole(path: string): Promise<Uint8Array<ArrayBuffer>> {
  using file = await Deno.open(path, { read: true });
  const size = (await file.stat()).size;
  const bytes = new Uint8Array(size);
  let at = 0;
  while (at < size) {
    const n = await file.read(bytes.subarray(at, Math.min(size, at + CHUNK)));
    if (n === null) break; // Shrunk while we read: keep what was there.
    at += n;
  }
  return at === size ? bytes : bytes.subarray(0, at);
}
