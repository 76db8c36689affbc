/**
 * Numbers the decompile benchmark and the differential test report: shares, percentiles, and the
 * structure of one decompiled function (gotos, lines, intrinsic calls).
 */

/** The `q` quantile (0..1) of `values`, nearest-rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Mean of `values`; NaN when empty. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** "12.3%" of `part` in `whole` ("-" when whole is 0). */
export function pct(part: number, whole: number): string {
  return whole === 0 ? "-" : `${(100 * part / whole).toFixed(1)}%`;
}

/** Structure of one function's pseudo-C. */
export interface CodeShape {
  /** Non-blank lines. */
  lines: number;
  /** `goto` statements (SAILR counts each goto statement). */
  gotos: number;
  /** Calls to `__asm_*` intrinsics (instructions not lifted to C). */
  asmIntrinsics: number;
}

/** Counts the structure of `code`, ignoring comments and string literals. */
export function shapeOf(code: string): CodeShape {
  const plain = code
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\/\/[^\n]*/g, "")
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/'(?:[^'\\\n]|\\.)*'/g, "''");
  return {
    lines: plain.split("\n").filter((l) => l.trim() !== "").length,
    gotos: (plain.match(/\bgoto\b/g) ?? []).length,
    asmIntrinsics: (plain.match(/\b__asm_\w+\s*\(/g) ?? []).length,
  };
}

/** A left-aligned text table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const fmt = (r: readonly string[]) =>
    r.map((c, i) => i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)).join("  ");
  return [fmt(header), ...rows.map(fmt)].join("\n");
}

/** The most frequent values of `items` as "value ×count" lines, at most `n`. */
export function topCounts(items: readonly string[], n: number): string[] {
  const counts = new Map<string, number>();
  for (const s of items) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, n).map(([s, c]) => `${c}× ${s}`);
}

/** At most `max` items of `items`, spread evenly over it (all of them when there are fewer). */
export function evenSample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = items.length / max;
  const out: T[] = [];
  for (let i = 0; out.length < max; i += step) out.push(items[Math.floor(i)]!);
  return out;
}
