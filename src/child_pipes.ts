/**
 * A child this program starts (a worker) spoken to over its own stdin and stdout, served on the
 * event loop's thread at both ends: here node:child_process gives each pipe as a node:net socket
 * on a non-blocking descriptor, and the child adopts its side the same way (src/stdio_conn.ts).
 * A pipe wakes its writer only when it was full; a Unix socket wakes its writer (EPOLLOUT) each
 * time the peer reads, and Deno registers every socket for writability, so over a socket each
 * side took one to two empty wake-ups per message (docs/ARCHITECTURE.md section 7).
 */
import { spawn } from "node:child_process";
import { Socket } from "node:net";
import { constants } from "node:os";
import { stdioKind } from "./config.ts";
import type { ByteConn } from "./line_transport.ts";
import { SocketPairConn } from "./stdio_conn.ts";

const signals: Readonly<Record<string, number>> = constants.signals;

/** A running child and its stdin and stdout as one connection. */
export interface PipedChild {
  readonly pid: number;
  /** Reads the child's stdout, writes its stdin; `closeWrite` ends the child's input. */
  readonly conn: ByteConn;
  readonly stderr: AsyncIterable<Uint8Array>;
  /** How it ended; the code of a signalled child is 128 + the signal's number, as Deno's. */
  readonly status: Promise<Deno.CommandStatus>;
  kill(signal?: Deno.Signal): void;
}

/**
 * Whether a child started with `env` serves its stdin and stdout on its event loop, so that its
 * pipes are the cheaper hop: on Linux (the one system `src/stdio_conn.ts` adopts pipes on) and
 * unless `REMCP_STDIO=stream` keeps Deno's stdio, whose blocking thread per message cost more
 * than a socket (docs/ARCHITECTURE.md section 7).
 */
export function childPipesServed(env: Record<string, string>, os: string = Deno.build.os): boolean {
  return os === "linux" && stdioKind(env.REMCP_STDIO) === "auto";
}

/**
 * Starts `command args…` with piped stdin, stdout and stderr and `env` over this process's own
 * environment (as `Deno.Command` merges it). Throws when the program cannot be started.
 */
export function spawnOnPipes(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): PipedChild {
  const child = spawn(command, [...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...Deno.env.toObject(), ...env },
  });
  // Without a listener an error event (a program that cannot start, a failed kill) would end
  // this process; what went wrong is thrown below or told by the exit status.
  child.on("error", () => {});
  const { stdin, stdout, stderr, pid } = child;
  if (
    pid === undefined || !(stdin instanceof Socket) || !(stdout instanceof Socket) ||
    !(stderr instanceof Socket)
  ) {
    // The reason (ENOENT, EACCES) arrives as an error event a tick later: say what is known.
    child.kill("SIGKILL");
    throw new Error(`Cannot start ${command}`);
  }
  let exited = false;
  const status = new Promise<Deno.CommandStatus>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      const number = signal ? signals[signal] : undefined;
      resolve({
        success: code === 0,
        code: code ?? (number === undefined ? 1 : 128 + number),
        // node's names for the signals are the system's, as Deno's are ("SIGKILL").
        signal: signal as Deno.Signal | null,
      });
    });
  });
  stderr.on("error", () => {});
  return {
    pid,
    conn: new SocketPairConn(stdout, stdin),
    stderr,
    status,
    // Not `child.kill`: in Deno it also destroys the child's stdin at once, so a call racing the
    // kill failed as a broken stream ("Cannot call write after a stream was destroyed") before
    // the exit said the worker was gone. Until the exit is seen the pid is still this child's.
    kill: (signal = "SIGTERM") => {
      if (exited) return;
      try {
        Deno.kill(pid, signal);
      } catch {
        // Gone already.
      }
    },
  };
}
