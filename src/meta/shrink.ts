/**
 * Structural truncation for free-form results (execute): cut the largest arrays and strings until
 * the JSON fits, keeping the same shape and valid JSON, and say what was dropped.
 */
import { byteLength } from "../protocol/results.ts";

/** Shrinks `value` to at most `maxBytes` of JSON; `notes` records what was cut. */
export function shrinkValue(value: unknown, maxBytes: number, notes: string[]): unknown {
  let current = value;
  for (let round = 0; round < 64; round++) {
    const size = byteLength(JSON.stringify(current) ?? "null");
    if (size <= maxBytes) return current;
    const target = largestContainer(current, "result");
    if (!target) break;
    const excess = size - maxBytes;
    current = replaceAt(
      current,
      target.path,
      (v) => cut(v, excess, target.bytes, target.where, notes),
    );
  }
  notes.push("the result was too large even after cutting and was dropped");
  return null;
}

type Path = (string | number)[];

function largestContainer(
  value: unknown,
  where: string,
  path: Path = [],
): { path: Path; bytes: number; where: string } | undefined {
  if (typeof value === "string") {
    return value.length > 64 ? { path, bytes: byteLength(value), where } : undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  let child: { path: Path; bytes: number; where: string } | undefined;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  for (const [k, v] of entries) {
    const w = typeof k === "number" ? `${where}[${k}]` : `${where}.${k}`;
    const c = largestContainer(v, w, [...path, k]);
    if (c && (!child || c.bytes > child.bytes)) child = c;
  }
  if (Array.isArray(value) && value.length > 1) {
    const bytes = byteLength(JSON.stringify(value));
    // Prefer cutting inside one huge element over dropping many small ones.
    if (!child || child.bytes <= bytes / 2) return { path, bytes, where };
  }
  return child;
}

function cut(v: unknown, excess: number, bytes: number, where: string, notes: string[]): unknown {
  // Never drop more than half in one round: the next round may find a better thing to cut.
  const keepFraction = Math.max(0.5, (bytes - excess - 64) / bytes);
  if (typeof v === "string") {
    const keep = Math.floor(v.length * keepFraction);
    notes.push(`${where}: string cut from ${v.length} to ${keep} characters`);
    return v.slice(0, keep);
  }
  if (Array.isArray(v)) {
    const keep = Math.min(v.length - 1, Math.floor(v.length * keepFraction));
    notes.push(`${where}: kept ${keep} of ${v.length} items`);
    return v.slice(0, keep);
  }
  return v;
}

function replaceAt(value: unknown, path: Path, f: (v: unknown) => unknown): unknown {
  if (path.length === 0) return f(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = replaceAt(copy[head as number], rest, f);
    return copy;
  }
  const obj = value as Record<string, unknown>;
  return { ...obj, [head as string]: replaceAt(obj[head as string], rest, f) };
}
