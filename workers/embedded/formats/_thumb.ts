/** Per-address ARM/Thumb mode, from mapping symbols or function starts that carry a mode. */

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
    let lo = 0;
    let hi = marks.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (marks[mid]!.addr <= addr) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? fallback : marks[found]!.thumb;
  };
}
