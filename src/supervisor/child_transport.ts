/**
 * An MCP `Transport` over a child process's stdin/stdout pipes: newline-delimited JSON-RPC, as
 * the stdio binding specifies. No `node:child_process`: the pipes come from `Deno.Command`.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

/** The two pipes the transport needs. */
export interface ChildPipes {
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
}

/** JSON-RPC over a child's pipes. */
export class ChildTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  #pipes: ChildPipes;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #closed = false;
  #encoder = new TextEncoder();

  constructor(pipes: ChildPipes) {
    this.#pipes = pipes;
  }

  start(): Promise<void> {
    this.#writer = this.#pipes.stdin.getWriter();
    void this.#readLoop();
    return Promise.resolve();
  }

  async #readLoop(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of this.#pipes.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf("\n")) !== -1) {
          const line = buffer.slice(0, nl).replace(/\r$/, "");
          buffer = buffer.slice(nl + 1);
          if (line.trim() === "") continue;
          let message: JSONRPCMessage;
          try {
            message = JSON.parse(line) as JSONRPCMessage;
          } catch (err) {
            this.onerror?.(
              new Error(`Child wrote a line that is not JSON: ${line.slice(0, 200)}`, {
                cause: err,
              }),
            );
            continue;
          }
          this.onmessage?.(message);
        }
      }
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
    this.#finish();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#writer) throw new Error("Transport is closed");
    await this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#writer?.close();
    } catch {
      // The child may already be gone; closing is best effort.
    }
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
