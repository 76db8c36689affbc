/**
 * Rizin handlers: byte and text search through `/xj` with a mask, bounded by `search.from` /
 * `search.to` that remcp resolves first (rizin evaluates an unknown flag there as 0).
 */
import { RemcpError } from "../../../src/errors.ts";
import { searchBytes, searchText } from "../../../src/protocol/catalog/search.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { parsePattern } from "../../shared/values.ts";
import { type DbAccess, resolve } from "../db.ts";
import type { Model } from "../model.ts";
import { addr } from "../quote.ts";
import { parseRz, RzSearchHit } from "../rz_json.ts";
import type { Conn } from "../session.ts";
import { withRizin } from "./_common.ts";
import { z } from "zod";

/** Most hits one search collects. */
export const MAX_HITS = 100_000;

/** `/x` argument `bytes:mask` for a pattern; `fold` ignores ASCII letter case. */
export function hexMask(pattern: number[], fold = false): string {
  if (pattern.every((b) => b === -1)) {
    throw new RemcpError("InvalidArgument", "pattern is only wildcards", { param: "pattern" });
  }
  const h = (b: number) => b.toString(16).padStart(2, "0");
  const letter = (b: number) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
  const bytes = pattern.map((b) => (b === -1 ? "00" : h(fold && letter(b) ? b & 0xdf : b)));
  const mask = pattern.map((b) => (b === -1 ? "00" : fold && letter(b) ? "df" : "ff"));
  return `${bytes.join("")}:${mask.join("")}`;
}

/** The [start, end) range of a search, resolved by remcp (never by rizin). */
export function searchRange(
  m: Model,
  args: { start?: string | number | undefined; end?: string | number | undefined },
) {
  const ranges = m.st.maps.length ? m.st.maps : m.st.segments;
  const lo = ranges.reduce((x, r) => Math.min(x, r.start), Number.MAX_SAFE_INTEGER);
  const hi = ranges.reduce((x, r) => Math.max(x, r.end), 0);
  const start = args.start !== undefined ? resolve(m, args.start) : Math.min(lo, hi);
  const end = args.end !== undefined ? resolve(m, args.end) : hi;
  if (end <= start) {
    throw new RemcpError("InvalidArgument", `end ${hex(end)} is not after start ${hex(start)}`, {
      param: "end",
    });
  }
  return { start, end };
}

/** Runs `/xj` over [start, end); hit addresses in order. */
export async function searchHex(
  c: Conn,
  arg: string,
  start: number,
  end: number,
): Promise<{ hits: number[]; capped: boolean }> {
  await c.must("e search.in=io.maps");
  await c.must(`e search.from=${addr(start)}`);
  await c.must(`e search.to=${addr(end)}`);
  await c.must(`e search.maxhits=${MAX_HITS}`);
  const cmd = `/xj ${arg}`;
  const raw = parseRz(z.array(RzSearchHit), await c.json(cmd, []), cmd);
  const hits = [...new Set(raw.map((h) => h.offset))].filter((a) => a >= start && a < end)
    .sort((a, b) => a - b);
  return { hits, capped: raw.length >= MAX_HITS };
}

function hitItem(m: Model, a: number, preview: string | undefined) {
  const sec = m.sectionAt(a);
  const label = m.label(a);
  return {
    address: hex(a),
    ...(sec ? { section: sec.name } : {}),
    ...(label ? { function: label } : {}),
    ...(preview ? { preview } : {}),
  };
}

const spaced = (bytes: number[]) =>
  bytes.map((b) => (b === -1 ? "??" : b.toString(16).padStart(2, "0"))).join(" ");

const capWarning = {
  code: "capped",
  message: `Stopped at ${MAX_HITS} hits: narrow the range with start/end`,
};

/** The search tools over `db`. */
export function searchTools(db: DbAccess): ToolImpl[] {
  return [
    impl(searchBytes, (args) =>
      withRizin(db, async (c, m) => {
        const pattern = parsePattern(args.pattern);
        const { start, end } = searchRange(m, args);
        const { hits, capped } = await searchHex(c, hexMask(pattern), start, end);
        const page = pageOf(hits, args, (a) => hitItem(m, a, spaced(pattern)));
        return capped ? { ...page, warnings: [capWarning] } : page;
      })),
    impl(searchText, (args) =>
      withRizin(db, async (c, m) => {
        const { start, end } = searchRange(m, args);
        const fold = !args.case_sensitive;
        const ascii = [...new TextEncoder().encode(args.text)];
        const wide = [...args.text].flatMap((ch) => {
          const code = ch.charCodeAt(0);
          return [code & 0xff, code >> 8];
        });
        const a = await searchHex(c, hexMask(ascii, fold), start, end);
        const w = await searchHex(c, hexMask(wide, fold), start, end);
        const all = [
          ...a.hits.map((x) => ({ address: x, encoding: "ascii" })),
          ...w.hits.map((x) => ({ address: x, encoding: "utf16" })),
        ].sort((x, y) => x.address - y.address);
        const page = pageOf(all, args, (h) => ({
          ...hitItem(m, h.address, undefined),
          encoding: h.encoding,
        }));
        return a.capped || w.capped ? { ...page, warnings: [capWarning] } : page;
      })),
  ];
}
