/** Embedded handlers: names, comments, prototypes, bookmarks, undo/redo and the journal. */
import { z } from "zod";
import { RemcpError } from "../../../src/errors.ts";
import * as spec from "../../../src/protocol/catalog/annotations.ts";
import { hex, pageOf, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, type EmbeddedDb, labelOf, resolveMapped } from "../db.ts";
import type { AnnotationKind, Change } from "../store/store.ts";

const NAME = /^[A-Za-z_.$@?][A-Za-z0-9_.$@?:<>~]*$/;

/** Checks a user-supplied name's syntax and uniqueness. */
export function checkName(d: EmbeddedDb, address: number, name: string): void {
  if (!NAME.test(name)) {
    throw new RemcpError(
      "InvalidArgument",
      `"${name}" is not a valid name: start with a letter, _ . $ @ or ?, then letters, digits ` +
        `or _ . $ @ ? : < > ~`,
      { param: "name" },
    );
  }
  const at = d.names.lookup(name);
  if (at !== undefined && at !== address) {
    throw new RemcpError(
      "InvalidArgument",
      `The name "${name}" is already used at ${hex(at)}: choose another (e.g. ${name}_${
        address.toString(16)
      })`,
      { param: "name", used_at: hex(at) },
    );
  }
}

function changeOut(c: Change) {
  return { ...c, address: hex(c.address) };
}

/** Applies a change's effect on the in-memory indexes after the store changed. */
export function applyToIndexes(
  d: EmbeddedDb,
  kind: AnnotationKind,
  address: number,
  value: string | null,
) {
  if (kind === "name") d.names.setUserName(address, value ?? undefined);
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
      if (proto !== "" && !/^[^;{}]+\([^;{}]*\)\s*$/.test(proto)) {
        throw new RemcpError(
          "InvalidArgument",
          `"${proto}" does not look like a C prototype: write e.g. "int parse(char *buf, size_t len)"`,
          { param: "prototype" },
        );
      }
      const c = d.store.set("prototype", address, proto === "" ? null : proto);
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
      return { undone: c ? changeOut(c) : null };
    }),
    impl(spec.redo, () => {
      const d = db();
      const c = d.store.redo();
      if (c) applyToIndexes(d, c.kind, c.address, c.new);
      return { redone: c ? changeOut(c) : null };
    }),
    impl(spec.listChanges, (args) => {
      const offset = args.offset ?? 0;
      const limit = args.limit ?? 100;
      const { items, total } = db().store.changes(offset, limit);
      const page: Record<string, unknown> = {
        items: items.map(changeOut),
        total,
        offset,
        limit,
        has_more: offset + items.length < total,
      };
      if (page.has_more) page.next_offset = offset + items.length;
      return page as z.input<typeof spec.listChanges.output>;
    }),
    impl(spec.exportAnnotations, (args) => {
      const d = db();
      const format = args.format ?? "json";
      const all = {
        names: d.store.all("name"),
        comments: d.store.all("comment"),
        prototypes: d.store.all("prototype"),
        bookmarks: d.store.all("bookmark"),
      };
      const count = Object.values(all).reduce((n, l) => n + l.length, 0);
      const document = format === "json"
        ? JSON.stringify({
          remcp_annotations: 1,
          file: d.name,
          sha256: d.sha256,
          names: all.names.map(([a, v]) => ({ address: hex(a), name: v })),
          comments: all.comments.map(([a, v]) => ({ address: hex(a), comment: v })),
          prototypes: all.prototypes.map(([a, v]) => ({ address: hex(a), prototype: v })),
          bookmarks: all.bookmarks.map(([a, v]) => ({ address: hex(a), note: v })),
        })
        : rizinScript(d, all);
      return { format, sha256: d.sha256, count, document };
    }),
    impl(spec.importAnnotations, (args) => {
      const d = db();
      let doc: unknown;
      try {
        doc = JSON.parse(args.document);
      } catch {
        throw new RemcpError("InvalidArgument", "document is not JSON from export_annotations", {
          param: "document",
        });
      }
      const parsed = ImportDoc.safeParse(doc);
      if (!parsed.success) {
        throw new RemcpError(
          "InvalidArgument",
          `document is not an export_annotations JSON document: ${parsed.error.issues[0]?.message}`,
          { param: "document" },
        );
      }
      const p = parsed.data;
      let applied = 0;
      let skipped = 0;
      const warnings: { code: string; message: string }[] = [];
      if (p.sha256 !== d.sha256) {
        warnings.push({
          code: "different_file",
          message: `The document was exported from ${p.file ?? "another file"} (different SHA-256)`,
        });
      }
      const apply = (kind: AnnotationKind, address: string, value: string) => {
        try {
          const a = resolveMapped(d, address);
          if (kind === "name") checkName(d, a, value);
          d.store.set(kind, a, value);
          applyToIndexes(d, kind, a, value);
          applied++;
        } catch {
          skipped++;
        }
      };
      for (const n of p.names) apply("name", n.address, n.name);
      for (const c of p.comments) apply("comment", c.address, c.comment);
      for (const t of p.prototypes) apply("prototype", t.address, t.prototype);
      for (const b of p.bookmarks) apply("bookmark", b.address, b.note);
      return { applied, skipped, ...(warnings.length ? { warnings } : {}) };
    }),
  ];
}

const ImportDoc = z.object({
  remcp_annotations: z.literal(1),
  file: z.string().optional(),
  sha256: z.string(),
  names: z.array(z.object({ address: z.string(), name: z.string() })),
  comments: z.array(z.object({ address: z.string(), comment: z.string() })),
  prototypes: z.array(z.object({ address: z.string(), prototype: z.string() })),
  bookmarks: z.array(z.object({ address: z.string(), note: z.string() })),
});

// A script for Rizin's `. file`: names become flags (and function names), comments are passed
// base64-encoded so no character can start another command.
function rizinScript(d: EmbeddedDb, all: Record<string, [number, string][]>): string {
  const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
  const lines = [`# remcp annotations for ${d.name} (sha256 ${d.sha256})`];
  for (const [a, name] of all.names ?? []) {
    lines.push(`f ${name} @ ${hex(a)}`);
    if (d.functionStart?.(a) === a) lines.push(`afn ${name} @ ${hex(a)}`);
  }
  for (const [a, c] of all.comments ?? []) lines.push(`CCu base64:${b64(c)} @ ${hex(a)}`);
  for (const [a, p] of all.prototypes ?? []) {
    lines.push(`# prototype ${hex(a)}: ${p.replace(/\n/g, " ")}`);
  }
  for (const [a, n] of all.bookmarks ?? []) {
    lines.push(`# bookmark ${hex(a)}: ${n.replace(/\n/g, " ")}`);
  }
  return lines.join("\n") + "\n";
}
