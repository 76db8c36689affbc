/**
 * The backend-independent parts of annotation tools over an AnnotationStore: name and prototype
 * checks, journal pages, and the export/import document.
 */
import { z } from "zod";
import { RemcpError } from "../../src/errors.ts";
import { hex } from "../../src/protocol/paging.ts";
import type { AnnotationKind, AnnotationStore, Change } from "./store/store.ts";
import { quoteArg } from "../rizin/quote.ts";
import { base64 } from "../rizin/replay.ts";

/** What a user name may look like. */
export const NAME_SYNTAX = /^[A-Za-z_.$@?][A-Za-z0-9_.$@?:<>~]*$/;

/** Refuses a name with characters no engine accepts. */
export function checkNameSyntax(name: string): void {
  if (!NAME_SYNTAX.test(name)) {
    throw new RemcpError(
      "InvalidArgument",
      `"${name}" is not a valid name: start with a letter, _ . $ @ or ?, then letters, digits ` +
        `or _ . $ @ ? : < > ~`,
      { param: "name" },
    );
  }
}

/** Refuses a name already used at another address. */
export function checkNameFree(name: string, address: number, usedAt: number | undefined): void {
  if (usedAt !== undefined && usedAt !== address) {
    throw new RemcpError(
      "InvalidArgument",
      `The name "${name}" is already used at ${hex(usedAt)}: choose another (e.g. ${name}_${
        address.toString(16)
      })`,
      { param: "name", used_at: hex(usedAt) },
    );
  }
}

/** Refuses text that is not shaped like a C prototype. */
export function checkPrototype(proto: string): void {
  if (proto !== "" && !/^[^;{}]+\([^;{}]*\)\s*$/.test(proto)) {
    throw new RemcpError(
      "InvalidArgument",
      `"${proto}" does not look like a C prototype: write e.g. "int parse(char *buf, size_t len)"`,
      { param: "prototype" },
    );
  }
}

/** A journal entry as results show it. */
export function changeRow(c: Change) {
  return { ...c, address: hex(c.address) };
}

/** A page of the journal, newest first. */
export function changesPage(
  store: AnnotationStore,
  args: { offset?: number | undefined; limit?: number | undefined },
) {
  const offset = args.offset ?? 0;
  const limit = args.limit ?? 100;
  const { items, total } = store.changes(offset, limit);
  const has_more = offset + items.length < total;
  return {
    items: items.map(changeRow),
    total,
    offset,
    limit,
    has_more,
    ...(has_more ? { next_offset: offset + items.length } : {}),
  };
}

/** Every annotation, by kind. */
export type AnnotationSet = Record<
  "names" | "comments" | "prototypes" | "bookmarks" | "locals",
  [number, string][]
>;

/** Reads every annotation from the store. */
export function allAnnotations(store: AnnotationStore): AnnotationSet {
  return {
    names: store.all("name"),
    comments: store.all("comment"),
    prototypes: store.all("prototype"),
    bookmarks: store.all("bookmark"),
    locals: store.all("local"),
  };
}

/** The export_annotations result; `rizinScript` renders the "rizin" format. */
export function exportDocument(
  store: AnnotationStore,
  file: { name: string; sha256: string },
  format: "json" | "rizin",
  isFunction: (address: number) => boolean,
) {
  const all = allAnnotations(store);
  const count = Object.values(all).reduce((n, l) => n + l.length, 0);
  const document = format === "json"
    ? JSON.stringify({
      remcp_annotations: 1,
      file: file.name,
      sha256: file.sha256,
      names: all.names.map(([a, v]) => ({ address: hex(a), name: v })),
      comments: all.comments.map(([a, v]) => ({ address: hex(a), comment: v })),
      prototypes: all.prototypes.map(([a, v]) => ({ address: hex(a), prototype: v })),
      bookmarks: all.bookmarks.map(([a, v]) => ({ address: hex(a), note: v })),
      // Local variables (rename_local, set_local_type) of the function at each address.
      locals: all.locals.map(([a, v]) => ({ address: hex(a), variables: JSON.parse(v) })),
      // The change journal, oldest first, for audit; import applies the state above.
      journal: store.changes(0, Number.MAX_SAFE_INTEGER).items.reverse().map(changeRow),
    })
    : rizinScript(all, file, isFunction);
  return { format, sha256: file.sha256, count, document };
}

const ImportDoc = z.object({
  remcp_annotations: z.literal(1),
  file: z.string().optional(),
  sha256: z.string(),
  names: z.array(z.object({ address: z.string(), name: z.string() })),
  comments: z.array(z.object({ address: z.string(), comment: z.string() })),
  prototypes: z.array(z.object({ address: z.string(), prototype: z.string() })),
  bookmarks: z.array(z.object({ address: z.string(), note: z.string() })),
  locals: z.array(z.object({ address: z.string(), variables: z.record(z.string(), z.unknown()) }))
    .optional(),
});

/** One annotation to apply from an imported document. */
export interface ImportItem {
  kind: AnnotationKind;
  address: string;
  value: string;
}

/** Parses an export_annotations JSON document into the items to apply and a warning list. */
export function parseImportDocument(text: string, sha256: string) {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
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
  const items: ImportItem[] = [
    ...p.names.map((n) => ({ kind: "name" as const, address: n.address, value: n.name })),
    ...p.comments.map((c) => ({ kind: "comment" as const, address: c.address, value: c.comment })),
    ...p.prototypes.map((t) => ({
      kind: "prototype" as const,
      address: t.address,
      value: t.prototype,
    })),
    ...p.bookmarks.map((b) => ({ kind: "bookmark" as const, address: b.address, value: b.note })),
    ...(p.locals ?? []).map((l) => ({
      kind: "local" as const,
      address: l.address,
      value: JSON.stringify(l.variables),
    })),
  ];
  const warnings = p.sha256 === sha256 ? [] : [{
    code: "different_file",
    message: `The document was exported from ${p.file ?? "another file"} (different SHA-256)`,
  }];
  return { items, warnings };
}

/**
 * A script for Rizin's `. file`: every argument quoted, comments base64-encoded so no character
 * reaches Rizin's command parser. `isFunction` says where `afn` applies instead of a flag.
 */
export function rizinScript(
  all: AnnotationSet,
  file: { name: string; sha256: string },
  isFunction: (address: number) => boolean,
): string {
  const lines = [`# remcp annotations for ${file.name} (sha256 ${file.sha256})`];
  for (const [a, name] of all.names) {
    lines.push(
      isFunction(a) ? `afn ${quoteArg(name)} @ ${hex(a)}` : `f ${quoteArg(name)} @ ${hex(a)}`,
    );
  }
  for (const [a, c] of all.comments) lines.push(`CCu base64:${base64(c)} @ ${hex(a)}`);
  for (const [a, p] of all.prototypes) lines.push(`afs ${quoteArg(p)} @ ${hex(a)}`);
  for (const [a, n] of all.bookmarks) lines.push(`# bookmark ${hex(a)}: ${n.replace(/\n/g, " ")}`);
  return lines.join("\n") + "\n";
}
