/** Specs: names, comments, prototypes, bookmarks, undo/redo and the change journal. */
import { z } from "zod";
import { Address, CommonOutput, FilteredPageInput, Hex, PageInput, pageOutput } from "../params.ts";
import { ANNOTATE, defineTool, READ_ONLY, STATEFUL } from "./spec.ts";

export const rename = defineTool({
  name: "rename",
  description: "Rename a function, label or data address; returns the old name. The new name " +
    "shows in every later result and persists across sessions. An empty name restores the " +
    "default.",
  input: z.strictObject({
    address: Address,
    name: z.string().max(256).describe("C-like identifier (letters, digits, _ . : @ $ ?)"),
  }),
  output: z.object({
    address: Hex,
    old_name: z.string().nullable(),
    new_name: z.string().nullable(),
    ...CommonOutput,
  }),
  annotations: ANNOTATE,
  tags: ["annotations", "names"],
  pinned: true,
});

export const renameLocal = defineTool({
  name: "rename_local",
  description: "Rename a local variable or parameter of a function in decompile_function's " +
    "output (variable: its current or default name, e.g. v3, local_18, arg1). Persists, is " +
    "journaled (undo) and exported; an empty name restores the default. Embedded backend.",
  input: z.strictObject({
    function: Address.describe("Any address in the function"),
    variable: z.string().min(1).max(256),
    name: z.string().max(256).describe("C identifier, or empty to restore the default"),
  }),
  output: z.object({
    function: Hex,
    variable: z.string().describe("The variable's default name"),
    old_name: z.string(),
    new_name: z.string(),
    ...CommonOutput,
  }),
  annotations: ANNOTATE,
  tags: ["annotations", "names", "decompiler"],
});

export const setLocalType = defineTool({
  name: "set_local_type",
  description: "Set the C type a local variable or parameter is declared with in " +
    'decompile_function\'s output (e.g. "char *", "int32_t", "struct req *"); an empty ' +
    "type restores the inferred one. Persists, journaled (undo), exported. Embedded backend.",
  input: z.strictObject({
    function: Address.describe("Any address in the function"),
    variable: z.string().min(1).max(256),
    type: z.string().max(256),
  }),
  output: z.object({
    function: Hex,
    variable: z.string().describe("The variable's default name"),
    old_type: z.string(),
    new_type: z.string(),
    ...CommonOutput,
  }),
  annotations: ANNOTATE,
  tags: ["annotations", "decompiler"],
});

export const setComment = defineTool({
  name: "set_comment",
  description: "Set (or clear, with an empty string) the comment at an address; returns the " +
    "old one. Comments show in disassembly and persist.",
  input: z.strictObject({
    address: Address,
    comment: z.string().max(4096),
  }),
  output: z.object({
    address: Hex,
    old_comment: z.string().nullable(),
    new_comment: z.string().nullable(),
    ...CommonOutput,
  }),
  annotations: ANNOTATE,
  tags: ["annotations", "comments"],
  pinned: true,
});

export const listComments = defineTool({
  name: "list_comments",
  description: "List user comments with address and function. Paged; filter is a regex over " +
    "comment text.",
  input: z.strictObject({ ...FilteredPageInput }),
  output: pageOutput(z.object({
    address: Hex,
    comment: z.string(),
    function: z.string().optional(),
  })),
  annotations: READ_ONLY,
  tags: ["annotations", "comments"],
});

export const setFunctionPrototype = defineTool({
  name: "set_function_prototype",
  description: 'Set a function\'s C prototype (e.g. "int parse(char *buf, size_t len)"); ' +
    "returns the old one.",
  input: z.strictObject({ address: Address, prototype: z.string().max(1024) }),
  output: z.object({
    address: Hex,
    old_prototype: z.string().nullable(),
    new_prototype: z.string().nullable(),
    ...CommonOutput,
  }),
  annotations: ANNOTATE,
  tags: ["annotations", "types"],
});

export const addBookmark = defineTool({
  name: "add_bookmark",
  description: "Bookmark an address with a note (replaces an existing bookmark there).",
  input: z.strictObject({ address: Address, note: z.string().max(1024) }),
  output: z.object({ address: Hex, old_note: z.string().nullable(), note: z.string() }),
  annotations: ANNOTATE,
  tags: ["annotations", "bookmarks"],
});

export const listBookmarks = defineTool({
  name: "list_bookmarks",
  description: "List bookmarks with their notes. Paged.",
  input: z.strictObject({ ...PageInput }),
  output: pageOutput(z.object({ address: Hex, note: z.string(), function: z.string().optional() })),
  annotations: READ_ONLY,
  tags: ["annotations", "bookmarks"],
});

const Change = z.object({
  id: z.number(),
  kind: z.string(),
  address: Hex,
  old: z.string().nullable(),
  new: z.string().nullable(),
  at: z.string().describe("ISO time"),
  undone: z.boolean(),
});

export const undo = defineTool({
  name: "undo",
  description: "Undo the last annotation change (rename, comment, prototype, bookmark).",
  input: z.strictObject({}),
  output: z.object({ undone: Change.nullable(), ...CommonOutput }),
  annotations: STATEFUL,
  tags: ["annotations", "journal"],
});

export const redo = defineTool({
  name: "redo",
  description: "Redo the last undone annotation change.",
  input: z.strictObject({}),
  output: z.object({ redone: Change.nullable(), ...CommonOutput }),
  annotations: STATEFUL,
  tags: ["annotations", "journal"],
});

export const listChanges = defineTool({
  name: "list_changes",
  description: "List the annotation journal, newest first. Paged.",
  input: z.strictObject({ ...PageInput }),
  output: pageOutput(Change),
  annotations: READ_ONLY,
  tags: ["annotations", "journal"],
});

export const exportAnnotations = defineTool({
  name: "export_annotations",
  description: "Export user annotations (names, comments, prototypes, bookmarks, local " +
    "variables) with the " +
    'change journal as a JSON document (format "json"), or as a Rizin script that `. file` ' +
    'replays (format "rizin").',
  input: z.strictObject({ format: z.enum(["json", "rizin"]).optional() }),
  output: z.object({
    format: z.string(),
    sha256: z.string(),
    count: z.number(),
    document: z.string(),
    ...CommonOutput,
  }),
  annotations: READ_ONLY,
  tags: ["annotations", "export"],
});

export const importAnnotations = defineTool({
  name: "import_annotations",
  description: "Apply a JSON document made by export_annotations (names, comments, " +
    "prototypes, bookmarks); each change is journaled and undoable.",
  input: z.strictObject({
    document: z.string().min(2).max(16 * 1024 * 1024).describe("export_annotations JSON"),
  }),
  output: z.object({ applied: z.number(), skipped: z.number(), ...CommonOutput }),
  annotations: ANNOTATE,
  tags: ["annotations", "import"],
});
