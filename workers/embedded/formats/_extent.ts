/**
 * How much of an executable range's declared size a parser keeps. A header may claim any size (a
 * 6 KB PE whose `.text` claims 4 GiB); the loader fills what the file does not back with zeros,
 * and zeros are no code, while analysis works per byte of every executable range (the 4 GiB
 * `.text` ran past its time budget and took 3 GB). So an executable range keeps at most one page
 * of zero fill past the bytes the file has. Other ranges keep their size: nothing walks them byte
 * by byte, and a large `.bss` is normal.
 */

/** Zero fill kept past the file's bytes at the end of an executable range. */
export const CODE_ZERO_FILL = 0x1000;

/**
 * The size kept of an executable range that declares `declared` bytes and whose file data is
 * `fileSize` bytes at `fileOffset` in a file of `fileLength` bytes.
 */
export function codeExtent(
  declared: number,
  file: { fileOffset: number; fileSize: number; fileLength: number },
): number {
  const available = Math.max(0, file.fileLength - Math.max(0, file.fileOffset));
  const backed = Math.max(0, Math.min(file.fileSize, declared, available));
  return Math.min(declared, backed + CODE_ZERO_FILL);
}

/** The warning a parser records when it cut a range. */
export function cutWarning(name: string, declared: number, kept: number): string {
  return `${name} claims 0x${declared.toString(16)} bytes, more than the file backs: ` +
    `kept 0x${kept.toString(16)}`;
}
