/**
 * Printed C cut to a size a result can carry: the first lines that fit, their line map, and a
 * closing comment that says where the cut is and how to read the rest. The line map is cut with
 * the code (the generic cut at the output cap shortens only the text and leaves a map that
 * points past its end).
 *
 * Where to read on: the lowest instruction address that a line of the whole function's C maps
 * to and no printed line does. Structured C is not in address order (a loop's body may print
 * before code at lower addresses), so the first address of the next line can lie near the start,
 * inside what was printed; the lowest address not printed is where the disassembly holds code the
 * reader has not seen yet (it may be followed by some that was printed).
 */

import { hex } from "../../../src/protocol/paging.ts";
import { DEFAULT_MAX_OUTPUT_BYTES } from "../../../src/protocol/results.ts";
import type { Rendered } from "./render.ts";

/** The C decompile_function carries at most (the rest of the result's cap is for the rest). */
export const MAX_CODE_BYTES = DEFAULT_MAX_OUTPUT_BYTES * 3 / 4;

/** Printed code and its line map, possibly cut. */
export interface Fitted {
  code: string;
  lines: { line: number; addresses: number[] }[];
  /** The note on the cut, when there is one. */
  cut?: string;
}

/** Serialized bytes of one line-map entry: `{"line":N,"addresses":["0x…"]}` and a comma. */
function mapBytes(entry: { line: number; addresses: number[] }): number {
  return 24 + String(entry.line).length + entry.addresses.length * 16;
}

/**
 * `r`'s code and line map cut at a line end so that both together stay under `maxBytes`
 * (UTF-16 code units of the code, estimated JSON bytes of the map), with a closing note. Code
 * whose printing stopped early (`r.stopped`) is always cut, before its closing brace.
 */
export function fitRendered(r: Rendered, maxBytes: number): Fitted {
  const text = r.code.endsWith("\n") ? r.code.slice(0, -1).split("\n") : r.code.split("\n");
  const byLine = new Map(r.lines.map((l) => [l.line, l]));
  const cost = (i: number) => {
    const entry = byLine.get(i + 1);
    return text[i]!.length + 1 + (entry ? mapBytes(entry) : 0);
  };
  let total = 0;
  for (let i = 0; i < text.length; i++) total += cost(i);
  if (total <= maxBytes && r.stopped === undefined) return { code: r.code, lines: r.lines };
  // Room for the note and its JSON escapes; a stopped body ends before its closing brace.
  const room = maxBytes - 400;
  const most = r.stopped !== undefined ? text.length - 1 : text.length;
  let used = 0;
  let keep = 0;
  for (; keep < most; keep++) {
    const c = cost(keep);
    if (used + c > room) break;
    used += c;
  }
  const printed = new Set<number>();
  for (const l of r.lines) if (l.line <= keep) { for (const a of l.addresses) printed.add(a); }
  let next: number | undefined;
  const see = (a: number) => {
    if (!printed.has(a) && (next === undefined || a < next)) next = a;
  };
  for (const l of r.lines) if (l.line > keep) l.addresses.forEach(see);
  r.stopped?.rest.forEach(see);
  const why = r.stopped?.why === "time"
    ? "when printing ran out of the function's time budget"
    : "to fit the result";
  const cut = `output cut after line ${keep} of ${r.stopped?.total ?? text.length} ${why}; ` +
    (next !== undefined
      ? `the lowest instruction address no printed line comes from is ${hex(next)}: read the ` +
        `code from there on with disassemble_function (paged)`
      : "read the rest with disassemble_function (paged)");
  return {
    code: [...text.slice(0, keep), `/* remcp: ${cut} */`].join("\n") + "\n",
    lines: r.lines.filter((l) => l.line <= keep),
    cut,
  };
}
