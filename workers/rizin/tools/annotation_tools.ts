/**
 * Rizin handlers: names, comments, prototypes, bookmarks, undo/redo and the journal. Each change
 * is written to remcp's store (which survives rizin restarts and reopens) and applied in rizin
 * (`afn`/`f`, `CCu`, `afs`) so rizin's own output shows it.
 */
import { z } from "zod";
import { RemcpError } from "../../../src/errors.ts";
import * as spec from "../../../src/protocol/catalog/annotations.ts";
import { hex, pageOf, paginate } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, resolveMapped, type RizinDb } from "../db.ts";
import type { Model } from "../model.ts";
import { addr, quoteArg } from "../quote.ts";
import { applyComment, applyName, base64 } from "../replay.ts";
import type { Conn } from "../session.ts";
import type { AnnotationKind, Change } from "../../embedded/store/store.ts";
import { withRizin } from "./_common.ts";

/** The names remcp accepts: C-like identifiers plus the punctuation symbols use. */
export const NAME = /^[A-Za-z_.$@?][A-Za-z0-9_.$@?:<>~]*$/;

/** Checks a user-supplied name's syntax and uniqueness. */
export function checkName(m: Model, address: number, name: string): void {
  if (!NAME.test(name)) {
    throw new RemcpError(
      "InvalidArgument",
      `"${name}" is not a valid name: start with a letter, _ . $ @ or ?, then letters, digits ` +
        `or _ . $ @ ? : < > ~`,
      { param: "name" },
    );
  }
  const at = m.lookup(name);
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

const changeOut = (c: Change) => ({ ...c, address: hex(c.address) });

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
        if (proto !== "" && !/^[^;{}]+\([^;{}]*\)\s*$/.test(proto)) {
          throw new RemcpError(
            "InvalidArgument",
            `"${proto}" does not look like a C prototype: write e.g. "int parse(char *buf, size_t len)"`,
            { param: "prototype" },
          );
        }
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
        return { undone: ch ? changeOut(ch) : null };
      })),
    impl(spec.redo, () =>
      withRizin(db, async (c, m, d) => {
        const ch = d.store.redo();
        if (ch) await apply(c, m, ch.kind, ch.address, ch.new, ch.old);
        return { redone: ch ? changeOut(ch) : null };
      })),
    impl(spec.listChanges, (args) =>
      withRizin(db, (_c, _m, d) => {
        const offset = args.offset ?? 0;
        const limit = args.limit ?? 100;
        const { items, total } = d.store.changes(offset, limit);
        const page: Record<string, unknown> = {
          items: items.map(changeOut),
          total,
          offset,
          limit,
          has_more: offset + items.length < total,
        };
        if (page.has_more) page.next_offset = offset + items.length;
        return page as z.input<typeof spec.listChanges.output>;
      })),
    impl(spec.exportAnnotations, (args) =>
      withRizin(db, (_c, m, d) => {
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
          : rizinScript(m, d, all);
        return { format, sha256: d.sha256, count, document };
      })),
    impl(spec.importAnnotations, (args) =>
      withRizin(db, async (c, m, d) => {
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
            `document is not an export_annotations JSON document: ${
              parsed.error.issues[0]?.message
            }`,
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
            message: `The document was exported from ${
              p.file ?? "another file"
            } (different SHA-256)`,
          });
        }
        const one = async (kind: AnnotationKind, address: string, value: string) => {
          try {
            const a = resolveMapped(m, address, d.name);
            if (kind === "name") checkName(m, a, value);
            if (kind === "bookmark") d.store.set(kind, a, value);
            else await change(c, m, d, kind, a, value);
            applied++;
          } catch {
            skipped++;
          }
        };
        for (const n of p.names) await one("name", n.address, n.name);
        for (const x of p.comments) await one("comment", x.address, x.comment);
        for (const t of p.prototypes) await one("prototype", t.address, t.prototype);
        for (const b of p.bookmarks) await one("bookmark", b.address, b.note);
        return { applied, skipped, ...(warnings.length ? { warnings } : {}) };
      })),
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

// A script for Rizin's `. file`: every argument quoted, comments base64-encoded.
function rizinScript(m: Model, d: RizinDb, all: Record<string, [number, string][]>): string {
  const lines = [`# remcp annotations for ${d.name} (sha256 ${d.sha256})`];
  for (const [a, name] of all.names ?? []) {
    lines.push(
      m.functionAt(a) ? `afn ${quoteArg(name)} @ ${hex(a)}` : `f ${quoteArg(name)} @ ${hex(a)}`,
    );
  }
  for (const [a, c] of all.comments ?? []) lines.push(`CCu base64:${base64(c)} @ ${hex(a)}`);
  for (const [a, p] of all.prototypes ?? []) lines.push(`afs ${quoteArg(p)} @ ${hex(a)}`);
  for (const [a, n] of all.bookmarks ?? []) {
    lines.push(`# bookmark ${hex(a)}: ${n.replace(/\n/g, " ")}`);
  }
  return lines.join("\n") + "\n";
}
