import assert from "node:assert/strict";
import { adoptable, type FdKind } from "./stdio_conn.ts";

type Kind = "socket" | "pipe" | "tty" | "file";
/** Descriptors 0, 1, 2 of the given kinds; `same` gives two of them one object. */
function fds(kinds: Kind[], same: [number, number][] = []): (fd: number) => FdKind | undefined {
  return (fd) => {
    const kind = kinds[fd];
    if (!kind) return undefined;
    const twin = same.find(([, b]) => b === fd)?.[0];
    return {
      isSocket: () => kind === "socket",
      isFIFO: () => kind === "pipe",
      dev: 1,
      ino: twin ?? fd,
    };
  };
}

Deno.test("stdio is adopted for sockets and pipes on Linux, only with REMCP_STDIO=auto", () => {
  assert.equal(adoptable("auto", "linux", fds(["socket", "socket", "file"])), true);
  assert.equal(adoptable("auto", "linux", fds(["pipe", "pipe", "pipe"])), true);
  assert.equal(adoptable("auto", "linux", fds(["socket", "socket", "socket"], [[0, 1]])), true);
  assert.equal(adoptable("stream", "linux", fds(["socket", "socket", "file"])), false);
  assert.equal(adoptable("auto", "darwin", fds(["socket", "socket", "file"])), false);
  assert.equal(adoptable("auto", "windows", fds(["pipe", "pipe", "file"])), false);
});

Deno.test("stdio stays Deno's for terminals, files, a closed fd, and stderr sharing stdout", () => {
  assert.equal(adoptable("auto", "linux", fds(["tty", "pipe", "tty"])), false);
  assert.equal(adoptable("auto", "linux", fds(["pipe", "tty", "tty"])), false);
  assert.equal(adoptable("auto", "linux", fds(["file", "pipe", "tty"])), false);
  assert.equal(adoptable("auto", "linux", fds([])), false);
  // `2>&1`: making stdout non-blocking would make stderr's writes fail when the pipe is full.
  assert.equal(adoptable("auto", "linux", fds(["pipe", "pipe", "pipe"], [[1, 2]])), false);
});
