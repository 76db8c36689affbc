/**
 * The parent's side of one sandbox (a process or a thread): reads its protocol lines, hands each
 * message to the run in progress, and notices when it goes away.
 */
import { encodeParentMessage, type ParentMessage } from "./protocol.ts";
import { type ChildMessage, parseChildMessage } from "./child_messages.ts";
import type { ChildExit, SandboxChild } from "./sandbox_child.ts";

/** The messages one run receives, and the process ending under it. */
export interface RunListener {
  onMessage(message: Exclude<ChildMessage, { type: "ready" }>): void;
  onExit(exit: ChildExit, stderr: string): void;
}

/** A sandbox process and its protocol client. */
export class SandboxProcess {
  readonly #child: SandboxChild;
  /** Resolves when the child reports ready; rejects if it ends first. */
  readonly ready: Promise<void>;
  /** Settles when the process has exited. */
  readonly exited: Promise<ChildExit>;
  #listener: RunListener | undefined;
  #alive = true;
  /** Killed by us: its exit may not be seen yet, but it must never take another run. */
  #killed = false;
  #broken: string | undefined;
  #outbox: string[] = [];
  #lanePath: string | undefined;

  constructor(child: SandboxChild) {
    this.#child = child;
    let markReady: () => void = () => {};
    let failReady: (err: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // A failed start is reported through run(); nobody may be listening here yet.
    this.ready.catch(() => {});
    // Known before the child is ready: it listens there before it reports ready.
    void child.lanePath().then((path) => this.#lanePath = path);
    child.listen((line) => this.#receive(line, markReady));
    this.exited = child.exited.then((exit) => {
      this.#alive = false;
      const stderr = this.stderrTail();
      failReady(new Error(describeExit(exit, stderr, child.kind)));
      this.#listener?.onExit(exit, stderr);
      this.#listener = undefined;
      return exit;
    });
  }

  /** Whether this sandbox is a process or a thread. */
  get kind(): "process" | "thread" {
    return this.#child.kind;
  }

  /** The child's lane socket (lane_hub.ts), when it has one. */
  get lanePath(): string | undefined {
    return this.#lanePath;
  }

  /**
   * Whether the process is still running and may take a run: false from the moment it is killed,
   * before its exit is seen. A run's answer can arrive after its kill was sent (a busy machine
   * delays the answer past the pool's grace time); the process must not go back to the pool then,
   * or the next run meets the SIGKILL.
   */
  get alive(): boolean {
    return this.#alive && !this.#killed;
  }

  /** Routes this process's run messages to `listener` (one run at a time), or stops routing. */
  listen(listener: RunListener | undefined): void {
    this.#listener = listener;
  }

  /** Sends one message; a process that is gone is noticed through `exited`, not here. */
  send(message: ParentMessage): void {
    if (!this.alive) return;
    this.#outbox.push(encodeParentMessage(message));
    if (this.#outbox.length === 1) queueMicrotask(() => this.#flush());
  }

  /** Writes queued messages as one chunk: answers to a burst of invokes go out together. */
  #flush(): void {
    const lines = this.#outbox.join("\n");
    this.#outbox = [];
    if (this.alive) this.#child.write(lines);
  }

  /** Kills the process (SIGKILL). */
  kill(): void {
    this.#killed = true;
    this.#child.kill();
  }

  /** The child's recent stderr. */
  stderrTail(): string {
    const tail = this.#child.stderrTail();
    return this.#broken ? `[it broke the protocol: ${this.#broken}] ${tail}` : tail;
  }

  #receive(line: string, markReady: () => void): void {
    if (line === "") return;
    const message = parseChildMessage(line);
    if (typeof message === "string") {
      // A child that breaks the protocol cannot be trusted with another run.
      this.#broken ??= message.slice(0, 500);
      this.kill();
      return;
    }
    if (message.type === "ready") markReady();
    else this.#listener?.onMessage(message);
  }
}

/** A sentence about how a sandbox ended, with its stderr. */
export function describeExit(
  exit: ChildExit,
  stderr: string,
  kind: "process" | "thread",
): string {
  const how = exit.signal
    ? (kind === "thread" ? "was terminated" : `was killed by ${exit.signal}`)
    : `exited with code ${exit.code}`;
  return `The sandbox ${kind} ${how}` + (stderr ? `; its stderr ends with: ${stderr}` : "");
}
