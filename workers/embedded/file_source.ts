/**
 * A file read on demand, for the format parsers: what they are told to keep (loaded segments,
 * symbol and string tables) is read once and held; anything else they touch (headers, section
 * names, debug directory entries) goes through a small page cache. Bytes nobody asks for — debug
 * sections, overlays, padding — are never read, so opening a file costs memory for what the
 * engine keeps, not for the file.
 *
 * After parsing, the image reads the ranges it does not hold (a raw blob, debug sections mapped
 * in the image) through the same page cache: {@link FileSource.close} drops what was kept and
 * closes the file, and the next read opens it again, first checking that it is the file that was
 * opened (same size and modification time), so nothing else is ever read under its name.
 *
 * Reads are synchronous because the parsers are.
 */
import { RemcpError } from "../../src/errors.ts";
import { type ByteSource, type ByteWindow, freshWindow, mergeRanges } from "./formats/_source.ts";
import { lastAtOrBefore } from "./formats/_sorted.ts";

/** Page size of the cache for reads outside the kept ranges. */
const PAGE = 64 * 1024;
/** Pages cached at most (4 MiB): headers and name tables, never a whole large table. */
const MAX_PAGES = 64;

/** A {@link ByteSource} over an open file; close it (or `using` it) when parsing is done. */
export class FileSource implements ByteSource, Disposable {
  readonly path: string;
  readonly length: number;
  /** Bytes read from the file so far, kept ranges and cache pages together. */
  bytesRead = 0;
  #file: Deno.FsFile | undefined;
  /** Modification time when opened, to recognise the file when it is opened again. */
  readonly #mtime: number | undefined;
  /** Most bytes the kept ranges may take (REMCP_MAX_HELD_MB); 0 for no limit. */
  readonly #maxHeldMb: number;
  /** Kept ranges, sorted and disjoint. */
  #kept: ByteWindow[] = [];
  /** Cached pages by index, least recently used first. */
  readonly #pages = new Map<number, ByteWindow>();

  private constructor(path: string, file: Deno.FsFile, info: Deno.FileInfo, maxHeldMb: number) {
    this.path = path;
    this.#file = file;
    this.length = info.size;
    this.#mtime = info.mtime?.getTime();
    this.#maxHeldMb = maxHeldMb;
  }

  /**
   * Opens `path` for reading; its size is taken now. Keeping more than `maxHeldMb` MiB (0: no
   * limit) is refused with `OpenFailed` naming REMCP_MAX_HELD_MB, before any of it is read.
   */
  static open(path: string, options: { maxHeldMb?: number } = {}): FileSource {
    const file = Deno.openSync(path, { read: true });
    try {
      return new FileSource(path, file, file.statSync(), options.maxHeldMb ?? 0);
    } catch (err) {
      file.close();
      throw err;
    }
  }

  window(off: number, len: number): ByteWindow {
    const kept = this.#keptHolding(off, len);
    if (kept) return kept;
    const index = Math.floor(off / PAGE);
    if (off + len <= (index + 1) * PAGE) return this.#page(index);
    // A value across a page boundary: read just it.
    return freshWindow(off, this.#readAt(off, len));
  }

  read(off: number, len: number): Uint8Array {
    const w = this.#keptHolding(off, len) ??
      (Math.floor(off / PAGE) === Math.floor((off + len - 1) / PAGE) && len > 0
        ? this.#page(Math.floor(off / PAGE))
        : undefined);
    if (w) return w.bytes.subarray(off - w.base, off - w.base + len);
    return this.#readAt(off, len);
  }

  readInto(off: number, out: Uint8Array): void {
    const w = this.#keptHolding(off, out.length);
    if (w) out.set(w.bytes.subarray(off - w.base, off - w.base + out.length));
    else this.#readAt(off, out.length, out);
  }

  keep(ranges: readonly { offset: number; size: number }[]): void {
    const all = [...this.#kept.map((w) => ({ offset: w.base, size: w.bytes.length })), ...ranges];
    const merged = mergeRanges(all, this.length);
    this.#refuseOverLimit(merged.reduce((n, m) => n + m.size, 0));
    this.#kept = merged.map((m) => {
      const same = this.#kept.find((w) => w.base === m.offset && w.bytes.length === m.size);
      return same ?? freshWindow(m.offset, this.#readAt(m.offset, m.size));
    });
  }

  /**
   * Closes the file and forgets the kept ranges and cached pages; bytes already handed out stay
   * valid, and a later read opens the file again.
   */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
    this.#kept = [];
    this.#pages.clear();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #keptHolding(off: number, len: number): ByteWindow | undefined {
    const w = this.#kept[lastAtOrBefore(this.#kept, off, (k) => k.base)];
    return w && off + len <= w.base + w.bytes.length ? w : undefined;
  }

  #page(index: number): ByteWindow {
    const hit = this.#pages.get(index);
    if (hit) {
      this.#pages.delete(index);
      this.#pages.set(index, hit);
      return hit;
    }
    const base = index * PAGE;
    const w = freshWindow(base, this.#readAt(base, Math.min(PAGE, this.length - base)));
    this.#pages.set(index, w);
    if (this.#pages.size > MAX_PAGES) this.#pages.delete(this.#pages.keys().next().value!);
    return w;
  }

  /** Exactly the bytes [off, off+len); a file that shrank since it was opened is an error. */
  #readAt(off: number, len: number, into?: Uint8Array): Uint8Array {
    const out = into ?? new Uint8Array(len);
    const file = this.#file ?? this.#reopen();
    file.seekSync(off, Deno.SeekMode.Start);
    let at = 0;
    while (at < len) {
      const n = file.readSync(out.subarray(at));
      if (n === null) {
        throw new RemcpError(
          "OpenFailed",
          `${this.path} changed while it was being opened (it is now shorter than ` +
            `${this.length} bytes): open it again once it is complete`,
          { path: this.path, offset: off + at },
        );
      }
      at += n;
    }
    this.bytesRead += len;
    return out;
  }

  #refuseOverLimit(held: number): void {
    const max = this.#maxHeldMb;
    if (max === 0 || held <= max * 1024 * 1024) return;
    throw new RemcpError(
      "OpenFailed",
      `${this.path} needs ${Math.ceil(held / 1024 / 1024)} MiB in memory (its loaded segments ` +
        `and tables), over the ${max} MiB limit of the embedded backend (REMCP_MAX_HELD_MB): ` +
        "raise REMCP_MAX_HELD_MB (and REMCP_WORKER_MEMORY_MB) or use another backend",
      { path: this.path, held_bytes: held, max_held_mb: max },
    );
  }

  /** The file opened again for a read after {@link close}, if it is still the file it was. */
  #reopen(): Deno.FsFile {
    const file = Deno.openSync(this.path, { read: true });
    let info: Deno.FileInfo;
    try {
      info = file.statSync();
    } catch (err) {
      file.close();
      throw err;
    }
    if (info.size !== this.length || info.mtime?.getTime() !== this.#mtime) {
      file.close();
      throw new RemcpError(
        "OpenFailed",
        `${this.path} changed since it was opened (it is read as it is used): close the ` +
          "database and open the file again",
        { path: this.path },
      );
    }
    this.#file = file;
    return file;
  }
}
