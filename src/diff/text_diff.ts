/** Line diffs for the diff tools: a longest-common-subsequence diff rendered unified-style. */

/** One line of a diff: kept (" "), removed ("-") or added ("+"). */
export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

// Past this many cells the DP table costs too much; the middle is then shown as replaced.
const MAX_CELLS = 4_000_000;

/** The lines of `a` and `b` aligned by their longest common subsequence. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: " ", text }));
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) {
    out.push(...midA.map((text) => ({ op: "-" as const, text })));
    out.push(...midB.map((text) => ({ op: "+" as const, text })));
  } else {
    out.push(...lcs(midA, midB));
  }
  out.push(...a.slice(a.length - tail).map((text) => ({ op: " " as const, text })));
  return out;
}

function lcs(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const len = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i * w + j] = a[i] === b[j]
        ? len[(i + 1) * w + j + 1]! + 1
        : Math.max(len[(i + 1) * w + j]!, len[i * w + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: " ", text: a[i]! });
      i++;
      j++;
    } else if (len[(i + 1) * w + j]! >= len[i * w + j + 1]!) {
      out.push({ op: "-", text: a[i++]! });
    } else {
      out.push({ op: "+", text: b[j++]! });
    }
  }
  while (i < n) out.push({ op: "-", text: a[i++]! });
  while (j < m) out.push({ op: "+", text: b[j++]! });
  return out;
}

/** Unified-style text; unchanged runs longer than 2·`context` lines are elided. */
export function renderDiff(lines: readonly DiffLine[], context = 3): string {
  const keep = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.op === " ") return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) {
      keep[k] = true;
    }
  });
  const out: string[] = [];
  let skipped = 0;
  lines.forEach((l, i) => {
    if (!keep[i]) {
      skipped++;
      return;
    }
    if (skipped > 0) out.push(`@@ ${skipped} unchanged @@`);
    skipped = 0;
    out.push(`${l.op}${l.text}`);
  });
  if (skipped > 0) out.push(`@@ ${skipped} unchanged @@`);
  return out.join("\n");
}

/** The share of lines the two sides have in common, in [0, 1]. */
export function lineSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length + b.length === 0) return 1;
  const same = diffLines(a, b).filter((l) => l.op === " ").length;
  return (2 * same) / (a.length + b.length);
}
