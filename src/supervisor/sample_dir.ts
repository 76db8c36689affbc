/**
 * The private folder of open_data samples (`remcp-data-*` in the system's temporary folder). Each
 * records its owner's pid; a server that crashed cannot remove its folder, so the next one to
 * make a folder removes those whose owner is gone.
 */
import { dirname, join } from "node:path";
import { processAlive } from "../daemon/state.ts";

const PREFIX = "remcp-data-";
const OWNER = ".owner";

/** Makes a fresh 0700 sample folder after removing stale ones; returns its path. */
export async function makeSampleDir(
  alive: (pid: number) => boolean = processAlive,
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: PREFIX });
  await Deno.chmod(dir, 0o700);
  await Deno.writeTextFile(join(dir, OWNER), String(Deno.pid));
  await removeStale(dirname(dir), dir, alive);
  return dir;
}

/** Removes the sample folders in `parent` (other than `keep`) whose owner process is gone. */
export async function removeStale(
  parent: string,
  keep: string,
  alive: (pid: number) => boolean,
): Promise<string[]> {
  const removed: string[] = [];
  try {
    for await (const e of Deno.readDir(parent)) {
      if (!e.isDirectory || !e.name.startsWith(PREFIX)) continue;
      const dir = join(parent, e.name);
      if (dir === keep) continue;
      let owner: number;
      try {
        owner = Number(await Deno.readTextFile(join(dir, OWNER)));
      } catch {
        continue; // not readable (another user's), or made before owners were recorded
      }
      if (!Number.isSafeInteger(owner) || owner <= 0 || alive(owner)) continue;
      try {
        await Deno.remove(dir, { recursive: true });
        removed.push(dir);
      } catch { /* another server removed it first, or it is not ours */ }
    }
  } catch { /* the temporary folder cannot be listed: nothing to clean */ }
  return removed;
}
