/**
 * The connection to a child this program starts (a sandbox process; a worker where it cannot serve
 * its own stdio on its event loop, src/child_pipes.ts) over a Unix socket instead of the child's
 * stdin and stdout. A process's stdio goes through a blocking thread for every read and write in
 * Deno; a socket is read and written on the event loop's own thread, which halves what a message
 * costs each side (bench/hop_floor.ts). The socket lives in a private 0700 folder of this process,
 * and each listener takes one connection and is closed, so no other user can reach a child's
 * socket. Windows keeps the pipes.
 */
import { join } from "node:path";
import { makeOwnedTempDir } from "./owned_temp_dir.ts";

/** The prefix of the folders holding child sockets (a killed supervisor's are removed later). */
export const CHILD_SOCKET_PREFIX = "remcp-w-";

/** Whether children started by this program connect over a socket here. */
export const socketsAvailable = Deno.build.os !== "windows";

let dir: Promise<string> | undefined;
/** The folder, once made (the exit handler is synchronous). */
let made: string | undefined;
let next = 0;

/** One child's socket, waiting for that child to connect. */
export interface ChildSocket {
  /** The path to pass to the child (`remcp worker --connect`, `remcp sandbox --connect`). */
  path: string;
  /** The child's connection; rejects when `gone` settles first. */
  accept(gone: Promise<unknown>): Promise<Deno.Conn>;
  /** Stops listening and removes the path (idempotent). */
  close(): void;
}

/**
 * A fresh path in the private folder, for a socket a child listens on itself (a sandbox's lane
 * socket, src/sandbox/lane_hub.ts). Whoever starts that child removes the path when it ends.
 */
export async function childSocketPath(suffix = ""): Promise<string> {
  dir ??= makeOwnedTempDir(CHILD_SOCKET_PREFIX).then((d) => made = d);
  return join(await dir, `${Deno.pid}-${next++}${suffix}.sock`);
}

/** Opens a socket for the next child. */
export async function listenForChild(): Promise<ChildSocket> {
  const path = await childSocketPath();
  const listener = Deno.listen({ transport: "unix", path });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      listener.close();
    } catch {
      // Closed already.
    }
    try {
      Deno.removeSync(path);
    } catch {
      // Removed already.
    }
  };
  return {
    path,
    async accept(gone) {
      try {
        return await Promise.race([
          listener.accept(),
          gone.then(() => {
            throw new Error("the child ended before it connected");
          }),
        ]);
      } finally {
        close();
      }
    },
    close,
  };
}

// Each socket is removed once its child connects, so the folder is empty at exit: remove it.
// (A supervisor killed by SIGKILL leaves it behind; the next one removes it.)
globalThis.addEventListener("unload", () => {
  if (!made) return;
  try {
    Deno.removeSync(made, { recursive: true });
  } catch {
    // Gone already.
  }
});
