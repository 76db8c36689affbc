/** Binary search over a list sorted by a numeric key. */

/** Index of the last element of `list` (sorted by `key`) whose key is ≤ `at`, or -1. */
export function lastAtOrBefore<T>(list: readonly T[], at: number, key: (t: T) => number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]!) <= at) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
