/**
 * `--root DIR` / REMCP_ROOT: open_database opens only files inside one folder tree. Both sides
 * are resolved after symlinks, so a link inside the tree that points out of it is refused, and a
 * link outside that points in is allowed.
 */
import { isAbsolute, relative, sep } from "node:path";
import { RemcpError } from "../errors.ts";

/**
 * Refuses `path` unless it lies under `root` once both are resolved; undefined `root` allows
 * anything. A path that does not resolve is left to the opener to report.
 */
export async function confineToRoot(path: string, root: string | undefined): Promise<void> {
  if (root === undefined) return;
  let realRoot: string;
  try {
    realRoot = await Deno.realPath(root);
  } catch (err) {
    throw new RemcpError(
      "OpenFailed",
      `The folder remcp is confined to (--root / REMCP_ROOT: ${root}) cannot be resolved: ` +
        `${(err as Error).message}`,
      { root },
    );
  }
  let real: string;
  try {
    real = await Deno.realPath(path);
  } catch {
    return;
  }
  const rel = relative(realRoot, real);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new RemcpError(
      "OpenFailed",
      `${path} is outside the folder this server may open (--root / REMCP_ROOT: ${realRoot}): ` +
        "open a file under it",
      { path, root: realRoot },
    );
  }
}
