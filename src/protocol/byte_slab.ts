/**
 * Bytes for the messages a transport writes, carved from shared 1 MiB slabs. A typed array of
 * more than a few bytes gets its own backing store, which costs microseconds to create and counts
 * against V8's external memory (more garbage collections): measured, allocating the buffer of
 * each 4 KB answer was a larger part of a routed call than copying it (docs/ARCHITECTURE.md
 * section 7). A view of a slab costs neither. Each view is owned by whoever took it; a slab is
 * freed when no view of it is left.
 */

const SLAB = 1024 * 1024;
/** Larger requests get their own buffer, so one big message never wastes most of a slab. */
const LARGEST = SLAB / 16;

let slab = new Uint8Array(0);
let at = 0;

/** `n` bytes that nobody else holds (zeroed only when new; callers write every byte). */
export function takeBytes(n: number): Uint8Array<ArrayBuffer> {
  if (n > LARGEST) return new Uint8Array(n);
  if (at + n > slab.length) {
    slab = new Uint8Array(SLAB);
    at = 0;
  }
  const out = slab.subarray(at, at + n);
  at += (n + 7) & ~7;
  return out;
}

const encoder = new TextEncoder();

/** `text` and a newline as UTF-8, in one buffer. */
export function encodeLine(text: string): Uint8Array<ArrayBuffer> {
  const most = text.length * 3 + 1;
  if (most > LARGEST) return encoder.encode(text + "\n");
  const start = at;
  const room = takeBytes(most);
  const { written } = encoder.encodeInto(text, room);
  room[written] = 0x0a;
  // Give back what the text did not use, when this was the last thing taken from the slab.
  if (room.buffer === slab.buffer && room.byteOffset === start) at = start + ((written + 8) & ~7);
  return room.subarray(0, written + 1);
}
