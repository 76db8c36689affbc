/**
 * Paging for listing tools: `offset`, `limit`, an optional `filter` pattern (see
 * pattern.ts), and the output shape
 * `{items, total, offset, limit, has_more, next_offset?}`.
 */
import { compileFilter } from "./pattern.ts";

/** Default page size. */
export const DEFAULT_LIMIT = 100;
/** Largest page size a caller may ask for. */
export const MAX_LIMIT = 10_000;

/** Paging arguments after parsing. */
export interface PageArgs {
  offset?: number | undefined;
  limit?: number | undefined;
  filter?: string | undefined;
}

/** One page of a listing. */
export interface Page<T> {
  [key: string]: unknown;
  items: T[];
  total: number;
  offset: number;
  limit: number;
  has_more: boolean;
  next_offset?: number;
}

/**
 * Pages `all` after keeping the elements whose `text(item)` matches the filter, then maps the
 * page's items with `map` (so formatting work is done only for returned items).
 */
export function paginate<T, U>(
  all: readonly T[],
  args: PageArgs,
  text: (item: T) => string,
  map: (item: T) => U,
): Page<U> {
  const re = compileFilter(args.filter);
  const kept = re ? all.filter((item) => re.test(text(item))) : all;
  return pageOf(kept, args, map);
}

/** Pages an already-filtered list. */
export function pageOf<T, U>(kept: readonly T[], args: PageArgs, map: (item: T) => U): Page<U> {
  const offset = args.offset ?? 0;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const slice = kept.slice(offset, offset + limit);
  const page: Page<U> = {
    items: slice.map(map),
    total: kept.length,
    offset,
    limit,
    has_more: offset + slice.length < kept.length,
  };
  if (page.has_more) page.next_offset = offset + slice.length;
  return page;
}

/** `0x`-prefixed lowercase hex, the one way addresses leave remcp. */
export function hex(value: number): string {
  return "0x" + value.toString(16);
}
