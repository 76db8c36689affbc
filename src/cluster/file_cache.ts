/**
 * A node's local copy of the binaries it runs, named by SHA-256: fetched from the object store
 * once per node, written under a temporary name and renamed when complete, so a killed node never
 * leaves a half file under a real name.
 */
import { join } from "node:path";
import type { ObjectStore } from "@nats-io/obj";
import { RemcpError } from "../errors.ts";
import { objectDigest } from "./protocol.ts";

/** Fetches binaries into a folder. */
export interface FileCache {
  readonly dir: string;
  /** The local path of `sha256`, fetched if missing. */
  path(sha256: string): Promise<string>;
  /** Removes leftovers of interrupted fetches. */
  sweep(): Promise<void>;
}

/** A cache in `dir` over `store`. */
export function createFileCache(dir: string, store: ObjectStore): FileCache {
  const pending = new Map<string, Promise<string>>();
  const fetch = async (sha256: string): Promise<string> => {
    const final = join(dir, sha256);
    try {
      await Deno.stat(final);
      return final;
    } catch {
      // Not cached yet.
    }
    const got = await store.get(sha256);
    if (!got || got.info.digest !== objectDigest(sha256)) {
      await got?.data.cancel().catch(() => {});
      throw new RemcpError(
        "NotFound",
        `The binary ${sha256} is not in the object store (deleted, expired or replaced since ` +
          `it was submitted): submit the file again`,
        { sha256 },
      );
    }
    const part = join(dir, `${sha256}.part-${crypto.randomUUID().slice(0, 8)}`);
    try {
      const f = await Deno.open(part, { write: true, createNew: true, mode: 0o600 });
      await got.data.pipeTo(f.writable);
      // The client checks the object's SHA-256 digest as it reads; a mismatch rejects here.
      await got.error.then((e) => {
        if (e) throw e;
      });
      await Deno.rename(part, final);
      return final;
    } catch (err) {
      await Deno.remove(part).catch(() => {});
      throw err;
    }
  };
  return {
    dir,
    path(sha256) {
      let p = pending.get(sha256);
      if (!p) {
        p = fetch(sha256).finally(() => pending.delete(sha256));
        pending.set(sha256, p);
      }
      return p;
    },
    async sweep() {
      for await (const e of Deno.readDir(dir)) {
        if (e.isFile && e.name.includes(".part-")) {
          await Deno.remove(join(dir, e.name)).catch(() => {});
        }
      }
    },
  };
}
