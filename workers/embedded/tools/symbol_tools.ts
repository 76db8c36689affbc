/** Embedded handlers: imports, exports and names. */
import { listExports, listImports, listNames } from "../../../src/protocol/catalog/symbols.ts";
import { hex, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import type { DbAccess } from "../db.ts";

/** The symbol tools over `db`. */
export function symbolTools(db: DbAccess): ToolImpl[] {
  return [
    impl(
      listImports,
      (args) =>
        paginate(db().image.imports, args, (i) => `${i.library ?? ""}!${i.name}`, (i) => ({
          name: i.name,
          ...(i.library !== undefined ? { library: i.library } : {}),
          ...(i.ordinal !== undefined ? { ordinal: i.ordinal } : {}),
          address: hex(i.address),
          ...(i.slot !== undefined ? { slot: hex(i.slot) } : {}),
          ...(i.delayLoad ? { delay_load: true } : {}),
        })),
      { duringAnalysis: true },
    ),
    impl(listExports, (args) =>
      paginate(db().image.exports, args, (e) => e.name, (e) => ({
        name: e.name,
        address: hex(e.address),
        ...(e.ordinal !== undefined ? { ordinal: e.ordinal } : {}),
        ...(e.forwarder !== undefined ? { forwarder: e.forwarder } : {}),
      })), { duringAnalysis: true }),
    impl(listNames, (args) => {
      const d = db();
      const kind = args.kind ?? "any";
      const all = d.names.all().filter((n) => kind === "any" || n.kind === kind);
      return paginate(all, args, (n) => n.name, (n) => ({
        name: d.names.userName(n.address) ?? n.name,
        address: hex(n.address),
        size: n.size,
        kind: n.kind,
        source: n.source,
      }));
    }, { duringAnalysis: true }),
  ];
}
