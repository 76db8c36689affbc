/**
 * Putting binaries in the object store under their SHA-256, once: content already there (from
 * this submission or an earlier one) is not sent again.
 */
import { createHash } from "node:crypto";
import type { ObjectStore } from "@nats-io/obj";
import { objectDigest } from "./protocol.ts";

/** What happened to one file. */
export interface Upload {
  sha256: string;
  size: number;
  /** False when the store already held the content. */
  uploaded: boolean;
}

/** Uploads files into `store`; two files with the same content in one run travel once. */
export function createUploader(store: ObjectStore): (path: string) => Promise<Upload> {
  const seen = new Map<string, Promise<boolean>>();
  return async (path) => {
    const { sha256, size } = await hashFile(path);
    let put = seen.get(sha256);
    if (put) {
      await put;
      return { sha256, size, uploaded: false };
    }
    put = (async () => {
      const info = await store.info(sha256);
      if (info && !info.deleted && info.digest === objectDigest(sha256)) return false;
      // put() reads the file to its end and records the digest the nodes check on reading.
      const f = await Deno.open(path, { read: true });
      await store.put({ name: sha256 }, f.readable);
      return true;
    })();
    seen.set(sha256, put);
    put.catch(() => seen.delete(sha256));
    return { sha256, size, uploaded: await put };
  };
}

/** The SHA-256 (hex) and size of a file, read in chunks. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const h = createHash("sha256");
  let size = 0;
  const f = await Deno.open(path, { read: true });
  for await (const chunk of f.readable) {
    h.update(chunk);
    size += chunk.length;
  }
  return { sha256: h.digest("hex"), size };
}
