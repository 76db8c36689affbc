/**
 * Progress of `remcp run` on stderr: a one-line bar redrawn in place on a terminal, plain lines
 * otherwise, nothing when quiet.
 */

/** Reports files done out of total. */
export interface Progress {
  start(file: string): void;
  done(file: string, ok: boolean): void;
  finish(): void;
}

/** Where progress is written and how. */
export interface ProgressSink {
  write(text: string): void;
  isTerminal: boolean;
}

/** The stderr sink. */
export const stderrProgressSink: ProgressSink = {
  write(text) {
    try {
      Deno.stderr.writeSync(new TextEncoder().encode(text));
    } catch {
      // stderr closed: progress is best effort.
    }
  },
  isTerminal: Deno.stderr.isTerminal(),
};

/** A progress reporter for `total` files. */
export function createProgress(
  total: number,
  sink: ProgressSink,
  quiet: boolean,
  now: () => number = () => performance.now(),
): Progress {
  const started = now();
  let finished = 0;
  let failed = 0;
  let current = "";
  const fmt = (ms: number) => `${Math.round(ms / 1000)}s`;
  const bar = () => {
    const elapsed = now() - started;
    const eta = finished > 0 ? (elapsed / finished) * (total - finished) : 0;
    const width = 24;
    const filled = Math.round((finished / total) * width);
    const name = current.length > 40 ? "…" + current.slice(-39) : current;
    return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${finished}/${total}` +
      `${failed ? ` (${failed} failed)` : ""} ${fmt(elapsed)} elapsed, ETA ${fmt(eta)} ${name}`;
  };
  return {
    start(file) {
      current = file;
      if (quiet) return;
      if (sink.isTerminal) sink.write(`\r\x1b[2K${bar()}`);
      else sink.write(`remcp run: started ${file}\n`);
    },
    done(file, ok) {
      finished++;
      if (!ok) failed++;
      if (quiet) return;
      if (sink.isTerminal) sink.write(`\r\x1b[2K${bar()}`);
      else sink.write(`remcp run: ${ok ? "done" : "FAILED"} ${file} (${finished}/${total})\n`);
    },
    finish() {
      if (quiet) return;
      if (sink.isTerminal) sink.write(`\r\x1b[2K${bar()}\n`);
      else {sink.write(
          `remcp run: ${finished}/${total} files, ${failed} failed, ${fmt(now() - started)}\n`,
        );}
    },
  };
}
