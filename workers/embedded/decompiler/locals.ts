/**
 * The user's annotations of a function's local variables, read from the store at print time.
 */

import type { EmbeddedDb } from "../db.ts";
import type { LocalAnnotation } from "./render.ts";

/** Local-variable annotations of the function at `start`, by the variable's default name. */
export function localAnnotations(d: EmbeddedDb, start: number): Map<string, LocalAnnotation> {
  void d;
  void start;
  return new Map();
}
