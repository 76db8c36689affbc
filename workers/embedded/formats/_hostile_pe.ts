/**
 * Test input: the hostile PE of the reliability campaign, made from a committed fixture — its
 * first 6 KB, with the first section's VirtualSize (and optionally SizeOfImage) set to
 * 0xFFFFFFFF.
 */

/** The first `keep` bytes of the PE `fixture` with its first section claiming 4 GiB. */
export function hostilePe(
  fixture: Uint8Array,
  opts: { keep?: number; sizeOfImage?: boolean } = {},
): Uint8Array {
  const bytes = fixture.slice(0, opts.keep ?? 6 * 1024);
  const dv = new DataView(bytes.buffer);
  const pe = dv.getUint32(0x3c, true);
  const opt = pe + 24;
  const firstSection = opt + dv.getUint16(pe + 20, true);
  dv.setUint32(firstSection + 8, 0xffff_ffff, true);
  if (opts.sizeOfImage) dv.setUint32(opt + 56, 0xffff_ffff, true);
  return bytes;
}
