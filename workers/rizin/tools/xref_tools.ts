/** Rizin handlers: cross-references (`axtj`, `axfj`, `afxj`), strings and the code using them. */
import { z } from "zod";
import { RemcpError } from "../../../src/errors.ts";
import { listStrings } from "../../../src/protocol/catalog/data.ts";
import { findCodeByString, xrefsFrom, xrefsTo } from "../../../src/protocol/catalog/xrefs.ts";
import { hex, pageOf } from "../../../src/protocol/paging.ts";
import { compileFilter } from "../../../src/protocol/pattern.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, resolve } from "../db.ts";
import type { Model } from "../model.ts";
import { addr } from "../quote.ts";
import { parseRz, RzXref } from "../rz_json.ts";
import type { Conn } from "../session.ts";
import { withRizin } from "./_common.ts";
import { ops } from "./code_tools.ts";
import { stringTable } from "./function_tools.ts";

type XrefType = "call" | "jump" | "read" | "write" | "offset" | "string";

/** Most strings find_code_by_string looks up references for. */
const MAX_STRINGS = 2000;

function typeOf(t: string | null | undefined): XrefType {
  switch ((t ?? "").toUpperCase()) {
    case "CALL":
      return "call";
    case "CODE":
      return "jump";
    case "STRING":
      return "string";
    default:
      return "read";
  }
}

const isCode = (t: XrefType) => t === "call" || t === "jump";

async function refs(c: Conn, cmd: string) {
  return parseRz(z.array(RzXref), await c.json(cmd, []), cmd);
}

/** Page items of xrefs, with the referencing function and instruction. */
async function xrefItems(
  c: Conn,
  m: Model,
  list: { from: number; to: number; type: XrefType }[],
  args: { offset?: number | undefined; limit?: number | undefined },
) {
  const page = pageOf(list, args, (x) => x);
  const items = [];
  for (const x of page.items) {
    const f = m.functionContaining(x.from);
    const op = (await ops(c, x.from, 1))[0];
    const toName = m.nameAt(x.to) ?? m.label(x.to);
    items.push({
      from: hex(x.from),
      to: hex(x.to),
      type: x.type,
      ...(f ? { function: m.functionName(f) } : {}),
      ...(toName ? { to_name: toName } : {}),
      ...(op?.opcode ? { instruction: op.opcode } : {}),
    });
  }
  return { ...page, items };
}

function keep(kind: "code" | "data" | "any" | undefined) {
  return (t: XrefType) => kind === undefined || kind === "any" || (kind === "code") === isCode(t);
}

/** The xref and string tools over `db`. */
export function xrefTools(db: DbAccess): ToolImpl[] {
  return [
    impl(xrefsTo, (args) =>
      withRizin(db, async (c, m) => {
        const a = resolve(m, args.address);
        const list = (await refs(c, `axtj @ ${addr(a)}`))
          .map((x) => ({ from: x.from, to: x.to ?? a, type: typeOf(x.type) }))
          .filter((x) => keep(args.type)(x.type))
          .sort((x, y) => x.from - y.from);
        return xrefItems(c, m, list, args);
      })),
    impl(xrefsFrom, (args) =>
      withRizin(db, async (c, m) => {
        const a = resolve(m, args.address);
        const whole = m.functionAt(a) !== undefined;
        const raw = await refs(c, whole ? `afxj @ ${addr(a)}` : `axfj @ ${addr(a)}`);
        const list = raw.filter((x) => x.to !== undefined && x.to !== null)
          .map((x) => ({ from: x.from, to: x.to!, type: typeOf(x.type) }))
          .filter((x) => keep(args.type)(x.type))
          .sort((x, y) => x.from - y.from || x.to - y.to);
        return xrefItems(c, m, list, args);
      })),
    impl(listStrings, (args) =>
      withRizin(db, async (c, m) => {
        const minLength = args.min_length ?? 4;
        const enc = args.encoding ?? "any";
        const re = compileFilter(args.filter);
        const all = (await stringTable(c, m)).filter((s) =>
          s.length >= minLength &&
          (enc === "any" || s.encoding === enc) &&
          (args.section === undefined || s.section === args.section) &&
          (!re || re.test(s.text))
        );
        return pageOf(all, args, (s) => ({
          address: hex(s.address),
          length: s.length,
          encoding: s.encoding,
          ...(s.section ? { section: s.section } : {}),
          text: s.text,
        }));
      })),
    impl(findCodeByString, (args) =>
      withRizin(db, async (c, m) => {
        const re = compileFilter(args.pattern, "pattern");
        if (!re) throw new RemcpError("InvalidArgument", "pattern is empty", { param: "pattern" });
        const matching = (await stringTable(c, m)).filter((s) => re.test(s.text));
        const hits: { s: { address: number; text: string }; from: number }[] = [];
        for (const s of matching.slice(0, MAX_STRINGS)) {
          for (const x of await refs(c, `axtj @ ${addr(s.address)}`)) {
            hits.push({ s, from: x.from });
          }
        }
        hits.sort((x, y) => x.from - y.from);
        const page = pageOf(hits, args, (h) => {
          const f = m.functionContaining(h.from);
          return {
            string_address: hex(h.s.address),
            text: h.s.text,
            from: hex(h.from),
            ...(f ? { function: m.functionName(f), function_start: hex(f.start) } : {}),
          };
        });
        return matching.length > MAX_STRINGS
          ? {
            ...page,
            warnings: [{
              code: "capped",
              message: `${matching.length} strings match; references of the first ` +
                `${MAX_STRINGS} were searched: narrow the pattern`,
            }],
          }
          : page;
      })),
  ];
}
