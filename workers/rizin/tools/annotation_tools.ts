/**
 * Rizin handlers: names, comments, prototypes, bookmarks, undo/redo and the journal. Each change
 * is written to remcp's store (which survives rizin restarts and reopens) and applied in rizin
 * (`afn`/`f`, `CCu`, `afs`) so rizin's own output shows it.
 */
import * as spec from "../../../src/protocol/catalog/annotations.ts";
import { hex, pageOf, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, resolveMapped, type RizinDb } from "../db.ts";
import type { Model } from "../model.ts";
import { addr, quoteArg } from "../quote.ts";
import { applyComment, applyName } from "../replay.ts";
import type { Conn } from "../session.ts";
import type { AnnotationKind } from "../../shared/store/store.ts";
import {
  changeRow,
  changesPage,
  checkNameFree,
  checkNameSyntax,
  checkPrototype,
  exportDocument,
  parseImportDocument,
} from "../../shared/annotation_docs.ts";
import { withRizin } from "./_common.ts";

/** Checks a user-supplied name's syntax and uniqueness. */
export function checkName(m: Model, address: number, name: string): void {
  checkNameSyntax(name);
  checkNameFree(name, address, m.lookup(name));
}

/** Applies an annotation value in rizin and the model (the store already holds it). */
async function apply(
  c: Conn,
  m: Model,
  kind: AnnotationKind,
  address: number,
  value: string | null,
  old: string | null,
): Promise<void> {
  if (kind === "name") {
    await applyName(c, address, value, old ?? undefined);
    m.reindex();
  } else if (kind === "comment") await applyComment(c, address, value);
  else if (kind === "prototype" && value !== null) {
    const r = await c.run(`afs ${quoteArg(value, "prototype")} @ ${addr(address)}`);
    if (r.failed) {
      c.warnings.push({
        code: "rizin_prototype",
        message: `Stored, but rizin did not accept the prototype: ${r.errors.join("; ")}`,
      });
    }
  }
}

/** The annotation tools over `db`. */
export function annotationTools(db: DbAccess): ToolImpl[] {
  const where = (m: Model, address: number) => {
    const f = m.functionContaining(address);
    const label = f ? m.functionName(f) : m.label(address);
    return label ? { function: label } : {};
  };
  const change = async (
    c: Conn,
    m: Model,
    d: RizinDb,
    kind: AnnotationKind,
    address: number,
    value: string | null,
  ) => {
    const before = d.store.get(kind, address) ?? null;
    const ch = d.store.set(kind, address, value);
    try {
      await apply(c, m, kind, address, value, before);
    } catch (err) {
      // rizin refused: keep remcp's store and rizin in step.
      d.store.set(kind, address, before);
      if (kind === "name") m.reindex();
      throw err;
    }
    return ch;
  };
  return [
    impl(spec.rename, (args) =>
      withRizin(db, async (c, m, d) => {
        const address = resolveMapped(m, args.address, d.name);
        const name = args.name.trim();
        const before = m.nameAt(address) ?? null;
        if (name !== "") checkName(m, address, name);
        await change(c, m, d, "name", address, name === "" ? null : name);
        return { address: hex(address), old_name: before, new_name: m.nameAt(address) ?? null };
      })),
    impl(spec.setComment, (args) =>
      withRizin(db, async (c, m, d) => {
        const address = resolveMapped(m, args.address, d.name);
        const ch = await change(
          c,
          m,
          d,
          "comment",
          address,
          args.comment === "" ? null : args.comment,
        );
        return { address: hex(address), old_comment: ch.old, new_comment: ch.new };
      })),
    impl(
      spec.listComments,
      (args) =>
        withRizin(
          db,
          (_c, m, d) =>
            paginate(d.store.all("comment"), args, ([, text]) => text, ([address, comment]) => ({
              address: hex(address),
              comment,
              ...where(m, address),
            })),
        ),
    ),
    impl(spec.setFunctionPrototype, (args) =>
      withRizin(db, async (c, m, d) => {
        const a = resolveMapped(m, args.address, d.name);
        const address = m.functionContaining(a)?.start ?? a;
        const proto = args.prototype.trim();
        checkPrototype(proto);
        const ch = await change(c, m, d, "prototype", address, proto === "" ? null : proto);
        return { address: hex(address), old_prototype: ch.old, new_prototype: ch.new };
      })),
    impl(spec.addBookmark, (args) =>
      withRizin(db, (_c, m, d) => {
        const address = resolveMapped(m, args.address, d.name);
        const ch = d.store.set("bookmark", address, args.note);
        return { address: hex(address), old_note: ch.old, note: args.note };
      })),
    impl(
      spec.listBookmarks,
      (args) =>
        withRizin(db, (_c, m, d) =>
          pageOf(d.store.all("bookmark"), args, ([address, note]) => ({
            address: hex(address),
            note,
            ...where(m, address),
          }))),
    ),
    impl(spec.undo, () =>
      withRizin(db, async (c, m, d) => {
        const ch = d.store.undo();
        if (ch) await apply(c, m, ch.kind, ch.address, ch.old, ch.new);
        return { undone: ch ? changeRow(ch) : null };
      })),
    impl(spec.redo, () =>
      withRizin(db, async (c, m, d) => {
        const ch = d.store.redo();
        if (ch) await apply(c, m, ch.kind, ch.address, ch.new, ch.old);
        return { redone: ch ? changeRow(ch) : null };
      })),
    impl(spec.listChanges, (args) => withRizin(db, (_c, _m, d) => changesPage(d.store, args))),
    impl(
      spec.exportAnnotations,
      (args) =>
        withRizin(
          db,
          (_c, m, d) =>
            exportDocument(d.store, d, args.format ?? "json", (a) => m.functionAt(a) !== undefined),
        ),
    ),
    impl(spec.importAnnotations, (args) =>
      withRizin(db, async (c, m, d) => {
        const { items, warnings } = parseImportDocument(args.document, d.sha256);
        let applied = 0;
        let skipped = 0;
        for (const item of items) {
          try {
            const a = resolveMapped(m, item.address, d.name);
            if (item.kind === "name") checkName(m, a, item.value);
            if (item.kind === "bookmark") d.store.set(item.kind, a, item.value);
            else await change(c, m, d, item.kind, a, item.value);
            applied++;
          } catch {
            skipped++;
          }
        }
        return { applied, skipped, ...(warnings.length ? { warnings } : {}) };
      })),
  ];
}
