/**
 * The user's annotations of a function's local variables (rename_local, set_local_type), kept
 * in the store as one JSON object per function: `{default name: {name?, type?}}`. They are
 * applied when printing, so they never need a new decompilation.
 */

import type { EmbeddedDb } from "../db.ts";
import type { LocalAnnotation } from "./render.ts";

/** Local-variable annotations of the function at `start`, by the variable's default name. */
export function localAnnotations(d: EmbeddedDb, start: number): Map<string, LocalAnnotation> {
  const text = d.store.get("local", start);
  const out = new Map<string, LocalAnnotation>();
  if (!text) return out;
  try {
    const doc: unknown = JSON.parse(text);
    if (typeof doc !== "object" || doc === null) return out;
    for (const [k, v] of Object.entries(doc)) {
      if (typeof v !== "object" || v === null) continue;
      const entry: LocalAnnotation = {};
      const { name, type } = v as Record<string, unknown>;
      if (typeof name === "string" && name !== "") entry.name = name;
      if (typeof type === "string" && type !== "") entry.type = type;
      if (entry.name !== undefined || entry.type !== undefined) out.set(k, entry);
    }
  } catch {
    // An unreadable entry (edited by hand) annotates nothing.
  }
  return out;
}

/** The stored form of `locals` (null when empty). */
export function storedLocals(locals: ReadonlyMap<string, LocalAnnotation>): string | null {
  if (locals.size === 0) return null;
  return JSON.stringify(Object.fromEntries([...locals].sort(([a], [b]) => a.localeCompare(b))));
}
