import assert from "node:assert/strict";
import { connect, createServer, Socket } from "node:net";
import { adoptable, type FdKind, SocketPairConn } from "./stdio_conn.ts";

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

/** A connected pair of node:net sockets over a Unix socket in a temporary folder. */
async function socketPair(dir: string): Promise<{ a: Socket; b: Socket; close(): void }> {
  const server = createServer();
  const path = `${dir}/s`;
  await new Promise<void>((r) => server.listen(path, r));
  const accepted = new Promise<Socket>((r) => server.once("connection", r));
  const a = connect(path);
  await new Promise<void>((r) => a.once("connect", r));
  const b = await accepted;
  return {
    a,
    b,
    close() {
      a.destroy();
      b.destroy();
      server.close();
    },
  };
}

/** Everything `socket` receives until `n` bytes have arrived. */
function receive(socket: Socket, n: number): Promise<string> {
  let got = "";
  return new Promise((resolve) => {
    socket.on("data", (chunk: Uint8Array) => {
      got += new TextDecoder().decode(chunk);
      if (got.length >= n) resolve(got);
    });
  });
}

Deno.test("a write the descriptor refuses (EAGAIN) goes through the socket, in order", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-stdio-conn-" });
  const { a, b, close } = await socketPair(dir);
  try {
    const direct: string[] = [];
    let full = true;
    const conn = new SocketPairConn(new Socket(), a, (bytes) => {
      if (full) throw new Deno.errors.WouldBlock("Resource temporarily unavailable");
      direct.push(new TextDecoder().decode(bytes));
      return bytes.length;
    });
    const got = receive(b, 2);
    const enc = (s: string) => new TextEncoder().encode(s);
    assert.equal(await conn.write(enc("ab")), 2);
    full = false;
    assert.equal(await conn.write(enc("cd")), 2);
    assert.equal(await got, "ab", "the refused write arrived through the socket");
    assert.deepEqual(direct, ["cd"], "the next write, with nothing waiting, went at once");
    // A write made while another waits in the socket follows it there.
    const gotBoth = receive(b, 4);
    full = true;
    const first = conn.write(enc("ef"));
    full = false;
    await Promise.all([first, conn.write(enc("gh"))]);
    assert.equal(await gotBoth, "efgh");
    assert.deepEqual(direct, ["cd"]);
    // A line over 4096 bytes never goes at once (writeSync could write part of it, then fail).
    const long = "x".repeat(5000);
    const gotLong = receive(b, 5000);
    assert.equal(await conn.write(enc(long)), 5000);
    assert.equal(await gotLong, long);
    assert.deepEqual(direct, ["cd"]);
  } finally {
    close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a write that fails otherwise (EPIPE) fails, and every write after it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-stdio-conn-" });
  const { a, close } = await socketPair(dir);
  try {
    const conn = new SocketPairConn(new Socket(), a, () => {
      throw new Deno.errors.BrokenPipe("Broken pipe");
    });
    const bytes = new TextEncoder().encode("ab");
    await assert.rejects(conn.write(bytes), Deno.errors.BrokenPipe);
    await assert.rejects(conn.write(bytes), Deno.errors.BrokenPipe);
  } finally {
    close();
    await Deno.remove(dir, { recursive: true });
  }
});
