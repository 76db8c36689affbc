/**
 * Runs the parse of an optional part of a file (an unwind table, an export trie, …) so that a
 * malformed part becomes a warning instead of failing the whole open.
 */

import { RemcpError } from "../../../src/errors.ts";

/** Prefix of a warning that came from a programming fault rather than from malformed input. */
export const INTERNAL_WARNING = "internal error";

/**
 * Returns `parse()`, or `fallback` after appending a warning naming `part` to `warnings`.
 * Faults that are not `RemcpError` are still caught (a parser bug must not cost the user the
 * whole file) but are marked {@link INTERNAL_WARNING} so tests can tell them apart.
 */
export function optionalPart<T>(warnings: string[], part: string, fallback: T, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof RemcpError) {
      warnings.push(`${part} skipped: ${err.message}`);
    } else {
      const msg = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      warnings.push(`${part} skipped: ${INTERNAL_WARNING}: ${msg}`);
    }
    return fallback;
  }
}
