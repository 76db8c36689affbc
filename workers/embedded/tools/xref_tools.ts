/** Embedded handlers: cross-references and string users. */
import { findCodeByString, xrefsFrom, xrefsTo } from "../../../src/protocol/catalog/xrefs.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { compileFilter } from "../../../src/protocol/pattern.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { analysisOf, type DbAccess, type EmbeddedDb, fnName, resolve } from "../db.ts";
import type { Xref } from "../analysis/types.ts";

const CODE = new Set(["call", "jump"]);

function keep(type: "code" | "data" | "any" | undefined) {
  return (x: Xref) =>
    type === undefined || type === "any" || (type === "code") === CODE.has(x.kind);
}

/** Rows for a page of xrefs, with the instruction text decoded only for the page. */
async function rows(d: EmbeddedDb, xrefs: Xref[]) {
  const a = analysisOf(d);
  const out = [];
  for (const x of xrefs) {
    const fn = a.functionAt(x.from);
    const toName = d.names.nameAt(x.to);
    let instruction: string | undefined;
    try {
      const [insn] = await d.code.decodeAt(x.from, 1);
      if (insn) {
        const dec = await d.code.decoder(x.from);
        const t = dec.format(d.image.readUpTo(x.from, 16), x.from, insn);
        instruction = `${t.mnemonic} ${t.opStr}`.trim();
      }
    } catch {
      instruction = undefined;
    }
    out.push({
      from: hex(x.from),
      to: hex(x.to),
      type: x.kind,
      ...(fn ? { function: fnName(d, fn) } : {}),
      ...(toName ? { to_name: toName } : {}),
      ...(instruction ? { instruction } : {}),
    });
  }
  return out;
}

async function page(
  d: EmbeddedDb,
  all: Xref[],
  args: { offset?: number | undefined; limit?: number | undefined },
) {
  const p = pageOf(all, args, (x) => x);
  return { ...p, items: await rows(d, p.items) };
}

/** The xref tools over `db`. */
export function xrefTools(db: DbAccess): ToolImpl[] {
  return [
    impl(xrefsTo, (args) => {
      const d = db();
      const addr = resolve(d, args.address);
      return page(d, analysisOf(d).xrefsTo(addr).filter(keep(args.type)), args);
    }),
    impl(xrefsFrom, (args) => {
      const d = db();
      const a = analysisOf(d);
      const addr = resolve(d, args.address);
      const fn = a.functionStartingAt(addr);
      return page(d, a.xrefsFrom(fn ?? addr).filter(keep(args.type)), args);
    }),
    impl(findCodeByString, (args) => {
      const d = db();
      const a = analysisOf(d);
      const re = compileFilter(args.pattern, "pattern")!;
      const hits: { s: { address: number; text: string }; from: number; fn?: number }[] = [];
      for (const s of a.strings()) {
        if (!re.test(s.text)) continue;
        for (const r of a.codeRefsToString(s.address)) {
          hits.push({ s, from: r.from, ...(r.function ? { fn: r.function.start } : {}) });
        }
      }
      return pageOf(hits, args, (h) => {
        const fn = h.fn !== undefined ? a.functionStartingAt(h.fn) : undefined;
        return {
          string_address: hex(h.s.address),
          text: h.s.text,
          from: hex(h.from),
          ...(fn ? { function: fnName(d, fn), function_start: hex(fn.start) } : {}),
        };
      });
    }),
  ];
}
