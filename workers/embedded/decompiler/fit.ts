/**
 * Printed C cut to a size a result can carry: the first lines that fit, their line map, and a
 * closing comment that says where the cut is and how to read the rest. The line map is cut with
 * the code (the generic cut at the output cap shortens only the text and leaves a map that
 * points past its end).
 */

import { hex } from "../../../src/protocol/paging.ts";
import type { Rendered } from "./render.ts";

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
 * (UTF-16 code units of the code, estimated JSON bytes of the map), with a closing note.
 */
export function fitRendered(r: Rendered, maxBytes: number): Fitted {
  const text = r.code.endsWith("\n") ? r.code.slice(0, -1).split("\n") : r.code.split("\n");
  const byLine = new Map(r.lines.map((l) => [l.line, l]));
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const entry = byLine.get(i + 1);
    total += text[i]!.length + 1 + (entry ? mapBytes(entry) : 0);
  }
  if (total <= maxBytes) return { code: r.code, lines: r.lines };
  // Room for the note and its JSON escapes.
  const room = maxBytes - 400;
  let used = 0;
  let keep = 0;
  for (; keep < text.length; keep++) {
    const entry = byLine.get(keep + 1);
    const cost = text[keep]!.length + 1 + (entry ? mapBytes(entry) : 0);
    if (used + cost > room) break;
    used += cost;
  }
  const next = r.lines.find((l) => l.line > keep && l.addresses.length > 0)?.addresses[0];
  const cut = `output cut after line ${keep} of ${text.length} to fit the result; ` +
    (next !== undefined
      ? `read the code from ${hex(next)} on with disassemble_function (paged)`
      : "read the rest with disassemble_function (paged)");
  return {
    code: [...text.slice(0, keep), `/* remcp: ${cut} */`].join("\n") + "\n",
    lines: r.lines.filter((l) => l.line <= keep),
    cut,
  };
}
