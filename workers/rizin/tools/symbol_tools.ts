/** Rizin handlers: imports, exports and names. */
import { listExports, listImports, listNames } from "../../../src/protocol/catalog/symbols.ts";
import { hex, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import type { DbAccess } from "../db.ts";
import { symbolName } from "../model.ts";
import { withRizin } from "./_common.ts";

/** The symbol tools over `db`. */
export function symbolTools(db: DbAccess): ToolImpl[] {
  return [
    impl(listImports, (args) =>
      withRizin(db, (_c, m) => {
        // The pointer slot is where the import's relocation points (GOT / IAT entry).
        const slots = new Map<string, number>();
        for (const r of m.st.relocs) {
          if (r.name && r.vaddr && !slots.has(r.name)) slots.set(r.name, r.vaddr);
        }
        const items = m.st.imports.map((i) => ({
          name: i.name,
          library: i.libname ?? undefined,
          ordinal: i.ordinal ?? undefined,
          address: i.plt || slots.get(i.name) || 0,
          slot: slots.get(i.name),
        }));
        return paginate(items, args, (i) => `${i.library ?? ""}!${i.name}`, (i) => ({
          name: i.name,
          ...(i.library ? { library: i.library } : {}),
          ...(i.ordinal !== undefined ? { ordinal: i.ordinal } : {}),
          address: hex(i.address),
          ...(i.slot !== undefined ? { slot: hex(i.slot) } : {}),
        }));
      })),
    impl(listExports, (args) =>
      withRizin(db, (_c, m) => {
        const items = m.st.exports.filter((e) => e.vaddr && !e.is_imported);
        return paginate(items, args, symbolName, (e) => ({
          name: symbolName(e),
          address: hex(e.vaddr ?? 0),
          ...(e.ordinal !== undefined && e.ordinal !== null ? { ordinal: e.ordinal } : {}),
        }));
      })),
    impl(listNames, (args) =>
      withRizin(db, (_c, m) => {
        const kind = args.kind ?? "any";
        const all = m.names().filter((n) => kind === "any" || n.kind === kind);
        return paginate(all, args, (n) => n.name, (n) => ({
          name: n.name,
          address: hex(n.address),
          size: n.size,
          kind: n.kind,
          source: n.source,
        }));
      })),
  ];
}
