/**
 * The framing of `rizin -q0`: rizin writes one NUL when it is ready and one after each command's
 * output. {@link NulFramer} turns stdout chunks, split anywhere, into whole frames.
 */

/** Splits a byte stream into NUL-terminated frames. */
export class NulFramer {
  #pending: Uint8Array[] = [];
  #decoder = new TextDecoder("utf-8", { fatal: false });

  /** Feeds a chunk; returns the frames it completed (without their NULs), decoded as UTF-8. */
  push(chunk: Uint8Array): string[] {
    const frames: string[] = [];
    let from = 0;
    for (let at = chunk.indexOf(0, from); at !== -1; at = chunk.indexOf(0, from)) {
      this.#pending.push(chunk.subarray(from, at));
      frames.push(this.#take());
      from = at + 1;
    }
    // Copy: the stream may reuse the chunk's buffer for its next read.
    if (from < chunk.length) this.#pending.push(chunk.slice(from));
    return frames;
  }

  /** Bytes received since the last complete frame. */
  get pendingBytes(): number {
    return this.#pending.reduce((n, p) => n + p.length, 0);
  }

  /** Drops any partial frame (after the process was restarted). */
  reset(): void {
    this.#pending = [];
  }

  #take(): string {
    const parts = this.#pending;
    this.#pending = [];
    if (parts.length === 1) return this.#decoder.decode(parts[0]);
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return this.#decoder.decode(all);
  }
}
