/**
 * Paging for listing tools: `offset`, `limit`, an optional `filter` regex, and the output shape
 * `{items, total, offset, limit, has_more, next_offset?}`.
 */
import { RemcpError } from "../errors.ts";

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

// A quantified group that itself contains a quantifier, e.g. (a+)+ or (x*)*: the classic shape of
// catastrophic backtracking. Listings run in the worker's only thread, so refuse it up front.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/;

/**
 * Compiles a user filter as a case-insensitive regex. Invalid syntax and patterns prone to
 * catastrophic backtracking are `InvalidArgument`.
 */
export function compileFilter(pattern: string | undefined, param = "filter"): RegExp | undefined {
  if (pattern === undefined || pattern === "") return undefined;
  if (pattern.length > 500) {
    throw new RemcpError("InvalidArgument", `${param} is longer than 500 characters`, { param });
  }
  if (NESTED_QUANTIFIER.test(pattern)) {
    throw new RemcpError(
      "InvalidArgument",
      `${param} "${pattern}" nests quantifiers, which can take exponential time: simplify it`,
      { param },
    );
  }
  try {
    return new RegExp(pattern, "i");
  } catch (err) {
    throw new RemcpError(
      "InvalidArgument",
      `${param} is not a valid regular expression: ${err instanceof Error ? err.message : err}`,
      { param },
    );
  }
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
