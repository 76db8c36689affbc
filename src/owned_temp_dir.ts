/**
 * Private folders in the system's temporary folder that outlive a crash: open_data samples
 * (`remcp-data-*`) and the daemon's socket folder (`remcp-http-*`). Each records its owner's pid;
 * a process killed by SIGKILL or the kernel cannot remove its folder, so the next one to make a
 * folder of the same kind removes those whose owner is gone.
 */
import { dirname, join } from "node:path";
import { processAlive } from "./daemon/state.ts";

const OWNER = ".owner";

/**
 * Makes a fresh 0700 folder named `prefix…` that names this process as its owner, after removing
 * the stale ones of the same prefix; returns its path.
 */
export async function makeOwnedTempDir(
  prefix: string,
  alive: (pid: number) => boolean = processAlive,
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  await Deno.chmod(dir, 0o700);
  await Deno.writeTextFile(join(dir, OWNER), String(Deno.pid));
  await removeStale(dirname(dir), prefix, dir, alive);
  return dir;
}

/** Removes the `prefix…` folders in `parent` (other than `keep`) whose owner process is gone. */
export async function removeStale(
  parent: string,
  prefix: string,
  keep: string,
  alive: (pid: number) => boolean,
): Promise<string[]> {
  const removed: string[] = [];
  try {
    for await (const e of Deno.readDir(parent)) {
      if (!e.isDirectory || !e.name.startsWith(prefix)) continue;
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
      } catch { /* another process removed it first, or it is not ours */ }
    }
  } catch { /* the temporary folder cannot be listed: nothing to clean */ }
  return removed;
}
