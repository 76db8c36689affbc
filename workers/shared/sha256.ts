/**
 * SHA-256 in chunks. `crypto.subtle.digest` copies its whole input first (measured on Deno 2.9:
 * +256 MiB of peak memory for a 256 MiB file), and a backend that only needs the digest (rizin
 * reads the file itself) must not hold the file in memory to get it.
 */
import { createHash } from "node:crypto";

const CHUNK = 4 * 1024 * 1024;

/** Lower-case hex SHA-256 of the file at `path`, read a chunk at a time. */
export async function sha256File(path: string): Promise<string> {
  using file = await Deno.open(path, { read: true });
  const hash = createHash("sha256");
  const buf = new Uint8Array(CHUNK);
  for (;;) {
    const n = await file.read(buf);
    if (n === null) break;
    hash.update(buf.subarray(0, n));
  }
  return hash.digest("hex");
}
