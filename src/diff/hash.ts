/** A fast 64-bit non-cryptographic hash (two FNV-1a lanes) for diffing keys. */

/** Feeds bytes and text, then gives a 16-hex-digit digest. */
export class Hasher {
  #a = 0x811c9dc5;
  #b = 0x01000193 ^ 0x5bd1e995;

  /** Adds bytes, then a separator so that [ab][c] and [a][bc] differ. */
  add(bytes: Uint8Array): void {
    let a = this.#a;
    let b = this.#b;
    for (let i = 0; i < bytes.length; i++) {
      a = Math.imul(a ^ bytes[i]!, 0x01000193);
      b = Math.imul(b ^ bytes[i]!, 0x01000193) ^ (b >>> 15);
    }
    a = Math.imul(a ^ 0x100, 0x01000193);
    b = Math.imul(b ^ (bytes.length & 0xffff), 0x01000193);
    this.#a = a;
    this.#b = b;
  }

  /** Adds text (UTF-16 code units). */
  text(s: string): void {
    let a = this.#a;
    let b = this.#b;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
    }
    this.#a = a;
    this.#b = b;
  }

  /** The digest as 16 hex digits. */
  digest(): string {
    return (this.#a >>> 0).toString(16).padStart(8, "0") +
      (this.#b >>> 0).toString(16).padStart(8, "0");
  }
}

/** The digest of one string. */
export function hashText(s: string): string {
  const h = new Hasher();
  h.text(s);
  return h.digest();
}
