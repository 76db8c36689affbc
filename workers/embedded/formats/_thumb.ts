/** Per-address ARM/Thumb mode, from mapping symbols or function starts that carry a mode. */

import { lastAtOrBefore } from "./_sorted.ts";

/**
 * Returns `isThumb(addr)`: the mode of the nearest mark at or before `addr` (ELF mapping symbols
 * `$a`/`$t`/`$d`, or Mach-O function starts); without marks, the nearest Thumb function start
 * counts as Thumb; else `fallback`.
 */
export function thumbOracle(
  mapping: { addr: number; thumb: boolean }[],
  thumbFuncs: number[],
  fallback: boolean,
): (addr: number) => boolean {
  const marks = mapping.length > 0
    ? [...mapping].sort((a, b) => a.addr - b.addr)
    : [...thumbFuncs].sort((a, b) => a - b).map((addr) => ({ addr, thumb: true }));
  if (marks.length === 0) return () => fallback;
  return (addr: number) => {
    const found = lastAtOrBefore(marks, addr, (m) => m.addr);
    return found < 0 ? fallback : marks[found]!.thumb;
  };
}
