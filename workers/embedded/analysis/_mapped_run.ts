/**
 * A scan over a large mapped range without holding it: the image reads a raw blob from the file
 * as it is asked (it holds none of it), so reading a 256 MiB range at once would cost 256 MiB,
 * and reading it in fresh windows would leave up to V8's external-memory threshold (64 MiB) of
 * dead windows before a collection. One buffer is filled again for each window instead.
 */
import type { BinaryImage } from "../formats/image.ts";

/** Bytes read at a time (the buffer is this plus {@link AHEAD}). */
const WINDOW = 4 << 20;
/**
 * Bytes every window carries past the offsets it answers for: the longest look-ahead of a scan
 * (a PowerPC traceback table names itself in up to 64 KiB).
 */
const AHEAD = 128 << 10;
/** Window starts keep this alignment relative to the run's start, as whole-range indexes did. */
const ALIGN = 16;

/**
 * The mapped run of bytes at [start, end): what `image.readUpTo(start, end - start)` returns,
 * read a window at a time. After {@link has}(i) is true, `bytes[i - base]` is the run's byte at
 * offset i, with the rest of the run (or at least {@link AHEAD} bytes of it) after it, so
 * look-ahead sees what it would see in the whole range. `bytes` is overwritten when the window
 * moves: keep nothing of it.
 */
export class MappedRun {
  /** Offset in the run of `bytes[0]`. */
  base = 0;
  /** The current window. */
  bytes: Uint8Array = new Uint8Array(0);
  readonly #image: BinaryImage;
  readonly #start: number;
  /** The run's length as far as known: the range's, until a window finds where mapping stops. */
  #length: number;
  #buffer: Uint8Array | undefined;

  constructor(image: BinaryImage, start: number, end: number) {
    this.#image = image;
    this.#start = start;
    this.#length = Math.max(0, end - start);
  }

  /** Whether offset `i` is in the run; moves the window onto it when needed. */
  has(i: number): boolean {
    const end = this.base + this.bytes.length;
    const tail = end >= this.#length;
    if (i >= this.base && (tail ? i < end : i < end - AHEAD)) return true;
    if (i < 0 || i >= this.#length) return false;
    const base = i - (i % ALIGN);
    const want = Math.min(WINDOW + AHEAD, this.#length - base);
    this.#buffer ??= new Uint8Array(Math.min(WINDOW + AHEAD, this.#length));
    const got = this.#image.readInto(this.#start + base, this.#buffer.subarray(0, want));
    if (got < want) this.#length = base + got;
    this.base = base;
    this.bytes = this.#buffer.subarray(0, got);
    return i < base + got;
  }
}
