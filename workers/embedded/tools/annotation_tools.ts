/** Embedded handlers: names, comments, prototypes, bookmarks, undo/redo and the journal. */
import { builtinPrototypes, prototypeKey } from "../decompiler/abi/prototypes.ts";
import * as spec from "../../../src/protocol/catalog/annotations.ts";
import { hex, pageOf, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, type EmbeddedDb, labelOf, resolveMapped } from "../db.ts";
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

/** Checks a user-supplied name's syntax and uniqueness. */
export function checkName(d: EmbeddedDb, address: number, name: string): void {
  checkNameSyntax(name);
  checkNameFree(name, address, d.names.lookup(name));
}

function hasBuiltinPrototype(d: EmbeddedDb, name: string | null | undefined): boolean {
  if (name === null || name === undefined) return false;
  d.prototypes ??= builtinPrototypes();
  return d.prototypes.has(prototypeKey(name));
}

/** Applies a change's effect on the in-memory indexes after the store changed. */
export function applyToIndexes(
  d: EmbeddedDb,
  kind: AnnotationKind,
  address: number,
  value: string | null,
) {
  if (kind === "name") {
    // A name the built-in prototype table knows (`memcpy`) gives the function that prototype, so
    // renaming to or from one changes how it and its callers decompile, as a prototype does.
    const before = d.names.nameAt(address);
    d.names.setUserName(address, value ?? undefined);
    if (
      d.decompiler !== undefined &&
      (hasBuiltinPrototype(d, before) || hasBuiltinPrototype(d, value))
    ) {
      d.decompiler.invalidate();
    }
  }
  // A prototype changes how the function and its callers decompile.
  if (kind === "prototype") d.decompiler?.invalidate();
}

/** The annotation tools over `db`. */
export function annotationTools(db: DbAccess): ToolImpl[] {
  const where = (d: EmbeddedDb, address: number) => {
    const label = d.functionOf?.(address) ?? labelOf(d, address);
    return label ? { function: label } : {};
  };
  return [
    impl(spec.rename, (args) => {
      const d = db();
      const address = resolveMapped(d, args.address);
      const name = args.name.trim();
      const before = d.names.nameAt(address) ?? d.defaultName?.(address) ?? null;
      if (name !== "") checkName(d, address, name);
      d.store.set("name", address, name === "" ? null : name);
      applyToIndexes(d, "name", address, name === "" ? null : name);
      const after = d.names.nameAt(address) ?? d.defaultName?.(address) ?? null;
      return { address: hex(address), old_name: before, new_name: after };
    }),
    impl(spec.setComment, (args) => {
      const d = db();
      const address = resolveMapped(d, args.address);
      const c = d.store.set("comment", address, args.comment === "" ? null : args.comment);
      return { address: hex(address), old_comment: c.old, new_comment: c.new };
    }),
    impl(spec.listComments, (args) => {
      const d = db();
      return paginate(d.store.all("comment"), args, ([, text]) => text, ([address, comment]) => ({
        address: hex(address),
        comment,
        ...where(d, address),
      }));
    }),
    impl(spec.setFunctionPrototype, (args) => {
      const d = db();
      const address = d.functionStart?.(resolveMapped(d, args.address)) ??
        resolveMapped(d, args.address);
      const proto = args.prototype.trim();
      checkPrototype(proto);
      const c = d.store.set("prototype", address, proto === "" ? null : proto);
      applyToIndexes(d, "prototype", address, c.new);
      return { address: hex(address), old_prototype: c.old, new_prototype: c.new };
    }),
    impl(spec.addBookmark, (args) => {
      const d = db();
      const address = resolveMapped(d, args.address);
      const c = d.store.set("bookmark", address, args.note);
      return { address: hex(address), old_note: c.old, note: args.note };
    }),
    impl(spec.listBookmarks, (args) => {
      const d = db();
      return pageOf(d.store.all("bookmark"), args, ([address, note]) => ({
        address: hex(address),
        note,
        ...where(d, address),
      }));
    }),
    impl(spec.undo, () => {
      const d = db();
      const c = d.store.undo();
      if (c) applyToIndexes(d, c.kind, c.address, c.old);
      return { undone: c ? changeRow(c) : null };
    }),
    impl(spec.redo, () => {
      const d = db();
      const c = d.store.redo();
      if (c) applyToIndexes(d, c.kind, c.address, c.new);
      return { redone: c ? changeRow(c) : null };
    }),
    impl(spec.listChanges, (args) => {
      const d = db();
      return changesPage(
        d.store,
        args,
        (a) => d.names.baseName(a) ?? d.defaultName?.(a) ?? null,
      );
    }),
    impl(spec.exportAnnotations, (args) => {
      const d = db();
      return exportDocument(d.store, d, args.format ?? "json", (a) => d.functionStart?.(a) === a);
    }),
    impl(spec.importAnnotations, (args) => {
      const d = db();
      const { items, warnings } = parseImportDocument(args.document, d.sha256);
      let applied = 0;
      let skipped = 0;
      for (const item of items) {
        try {
          const a = resolveMapped(d, item.address);
          if (item.kind === "name") checkName(d, a, item.value);
          d.store.set(item.kind, a, item.value);
          applyToIndexes(d, item.kind, a, item.value);
          applied++;
        } catch {
          skipped++;
        }
      }
      return { applied, skipped, ...(warnings.length ? { warnings } : {}) };
    }),
  ];
}
