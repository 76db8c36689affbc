/**
 * Structural truncation for free-form results (execute): cut the largest arrays and strings until
 * the JSON fits, keeping the same shape and valid JSON, and say what was dropped.
 */
import { byteLength } from "../protocol/results.ts";

/** Shrinks `value` to at most `maxBytes` of JSON; `notes` records what was cut. */
export function shrinkValue(value: unknown, maxBytes: number, notes: string[]): unknown {
  let current = cutLongStrings(value, maxBytes, "result", notes);
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

/**
 * Cuts every string longer than `maxBytes` characters to that length first: such a string cannot
 * fit, and serializing it whole, round after round, is most of the cost of shrinking.
 */
function cutLongStrings(value: unknown, maxBytes: number, where: string, notes: string[]): unknown {
  if (typeof value === "string") {
    if (value.length <= maxBytes) return value;
    notes.push(`${where}: string cut from ${value.length} to ${maxBytes} characters`);
    return value.slice(0, maxBytes);
  }
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    return value.map((v, i) => cutLongStrings(v, maxBytes, `${where}[${i}]`, notes));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = cutLongStrings(v, maxBytes, `${where}.${k}`, notes);
  }
  return out;
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
  const exact = Math.max(0, (bytes - excess - 64) / bytes);
  if (typeof v === "string") {
    // A string is cut to size at once (a 10 MB string in halves took seconds of serializing);
    // escapes can make it a little long still, and the next round trims the rest.
    const keep = Math.floor(v.length * exact);
    notes.push(`${where}: string cut from ${v.length} to ${keep} characters`);
    return v.slice(0, keep);
  }
  // Never drop more than half of an array in one round: the next round may find a better thing
  // to cut inside what is left.
  const keepFraction = Math.max(0.5, exact);
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
