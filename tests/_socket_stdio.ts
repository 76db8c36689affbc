/**
 * Starts a program with Unix sockets as its stdin and stdout, the way an MCP host on Node.js
 * starts a server (its child_process gives the child a socket pair per stdio stream), where Deno's
 * own child processes get pipes. Deno cannot hand a child an arbitrary descriptor, so a two-line
 * Python launcher connects to a socket of this process, puts the connection on fd 0 and 1 and
 * executes the program in its place (same pid).
 */
import { Client } from "@modelcontextprotocol/client";
import { type ByteConn, LineTransport } from "../src/line_transport.ts";
import { remcpArgs, remcpEnv } from "./_harness.ts";

/** Connects once (`shared`: one socket on fd 0 and 1) or twice (stdin's, then stdout's). */
const LAUNCHER = `
import os, socket, sys
path, shared, argv = sys.argv[1], sys.argv[2] == "shared", sys.argv[3:]
def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s
stdin = connect()
stdout = stdin if shared else connect()
os.dup2(stdin.fileno(), 0)
os.dup2(stdout.fileno(), 1)
os.execv(argv[0], argv)
`;

/** A program running on sockets, seen from this side. */
export interface SocketChild {
  pid: number;
  /** This side of the child's stdin (the same connection as `stdout` when shared). */
  stdin: Deno.UnixConn;
  stdout: Deno.UnixConn;
  status: Promise<Deno.CommandStatus>;
  /** What the child wrote to stderr so far. */
  stderr(): string;
}

/** Runs `command args…` with sockets as stdin and stdout. */
export async function spawnOnSockets(
  command: string,
  args: string[],
  opts: { env?: Record<string, string>; shared?: boolean } = {},
): Promise<SocketChild> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-test-sock-" });
  const path = `${dir}/stdio.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  try {
    const child = new Deno.Command(Deno.env.get("REMCP_PYTHON") ?? "python3", {
      args: ["-c", LAUNCHER, path, opts.shared ? "shared" : "split", command, ...args],
      env: opts.env ?? Deno.env.toObject(),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let text = "";
    const decoder = new TextDecoder();
    const drained = child.stderr.pipeTo(
      new WritableStream({ write: (c) => void (text += decoder.decode(c, { stream: true })) }),
    ).catch(() => {});
    const gone = child.status.then((s) => {
      throw new Error(`the launcher ended (${s.code}) before connecting: ${text}`);
    });
    const stdin = await Promise.race([listener.accept(), gone]) as Deno.UnixConn;
    const stdout = opts.shared ? stdin : await Promise.race([listener.accept(), gone]);
    return {
      pid: child.pid,
      stdin,
      stdout: stdout as Deno.UnixConn,
      status: child.status.then(async (s) => (await drained, s)),
      stderr: () => text,
    };
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The client's side of a child's socket stdio: writes to its stdin, reads its stdout. */
export function socketTransport(child: SocketChild): LineTransport {
  const conn: ByteConn = {
    read: (buffer) => child.stdout.read(buffer),
    write: (bytes) => child.stdin.write(bytes),
    // The child sees the end of its input, as when a client closes a pipe.
    closeWrite: () => child.stdin.closeWrite(),
    close() {
      for (const c of new Set([child.stdin, child.stdout])) {
        try {
          c.close();
        } catch {
          // Closed already.
        }
      }
    },
  };
  return new LineTransport({ conn });
}

/** An MCP client connected to `child`'s stdio. */
export async function connectClient(child: SocketChild): Promise<Client> {
  const client = new Client({ name: "remcp-test", version: "0.0.0" });
  await client.connect(socketTransport(child));
  return client;
}

/** A remcp process on sockets with its client, as {@link startRemcp} gives one on pipes. */
export interface SocketHarness {
  client: Client;
  child: SocketChild;
  close(): Promise<void>;
}

/**
 * Starts `remcp [args]` with sockets as stdin and stdout (a fresh state folder, removed by
 * `close`) and connects a client.
 */
export async function startRemcpOnSockets(
  opts: { args?: string[]; env?: Record<string, string>; shared?: boolean; root?: string } = {},
): Promise<SocketHarness> {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-test-state-" });
  const child = await spawnOnSockets(Deno.execPath(), remcpArgs(opts.args ?? [], opts.root), {
    env: remcpEnv(stateDir, opts.env),
    shared: opts.shared ?? false,
  });
  const client = await connectClient(child);
  return {
    client,
    child,
    async close() {
      await client.close().catch(() => {});
      await child.status;
      await Deno.remove(stateDir, { recursive: true }).catch(() => {});
    },
  };
}
