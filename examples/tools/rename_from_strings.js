// rename_from_strings: a remcp script tool (see README, "Writing a tool").
//
// Suggests names for unnamed functions (sub_*) from the strings they reference: "Hello, remcp!"
// makes `hello_remcp`, "secret_key_%d\n" makes `secret_key`. Only suggestions, unless
// apply: true, which renames through the `rename` tool (undoable with `undo`).

/** A C identifier from a string: words only, format directives and escapes dropped. */
function slug(text, maxWords, maxLength) {
  const words = text
    .replace(/%[-+ #0]*\d*(?:\.\d+)?[hlLqjzt]*[a-zA-Z%]/g, " ")
    .replace(/\\[nrt]/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  let name = words.slice(0, maxWords).join("_").slice(0, maxLength).replace(/_+$/, "");
  if (/^[0-9]/.test(name)) name = `n${name}`;
  return name;
}

/** Whether a string says enough to name a function: four letters at least. */
function meaningful(text) {
  return (text.match(/[A-Za-z]/g) ?? []).length >= 4;
}

export default {
  name: "rename_from_strings",
  description: "Suggest names for unnamed (sub_*) functions from the strings they reference; " +
    "with apply: true, also rename them.\n" +
    "Returns suggestions {address, old_name, new_name, string}; names are unique and never " +
    "clash with existing ones. filter selects functions by a regex over names (default ^sub_).",
  input: {
    type: "object",
    properties: {
      apply: { type: "boolean", default: false, description: "Rename, not only suggest" },
      filter: { type: "string", minLength: 1, maxLength: 200, default: "^sub_" },
      prefix: { type: "string", maxLength: 16, default: "", description: "Prepended to names" },
      max_functions: { type: "integer", minimum: 1, maximum: 5000, default: 500 },
      max_words: { type: "integer", minimum: 1, maximum: 8, default: 4 },
    },
  },
  output: {
    type: "object",
    properties: {
      suggestions: {
        type: "array",
        items: {
          type: "object",
          properties: {
            address: { type: "string" },
            old_name: { type: "string" },
            new_name: { type: "string" },
            string: { type: "string" },
          },
          required: ["address", "old_name", "new_name", "string"],
        },
      },
      examined: { type: "integer" },
      applied: { type: "integer" },
    },
    required: ["suggestions", "examined", "applied"],
  },
  // May rename (with apply); renaming again gives the same names.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  scope: "database",
  timeout_s: 300,
  tags: ["names", "strings", "annotations", "example"],

  async run(args, ctx) {
    let re;
    try {
      re = new RegExp(args.filter);
    } catch (e) {
      // A typed error: the caller gets error_type InvalidArgument with this detail.
      throw Object.assign(new Error(`filter is not a valid regex: ${e.message}`), {
        code: "InvalidArgument",
        detail: { param: "filter" },
      });
    }
    const functions = [];
    const taken = new Set();
    let total = 0;
    for (let offset = 0;;) {
      const page = await ctx.invoke("list_functions", { offset, limit: 500 });
      total = page.total;
      for (const f of page.items) {
        taken.add(f.name);
        if (re.test(f.name) && !f.flags.includes("import")) functions.push(f);
      }
      if (!page.has_more) break;
      offset = page.next_offset ?? offset + page.items.length;
    }
    if (functions.length > args.max_functions) {
      ctx.warn(
        "limited",
        `${functions.length} functions match; only the first ${args.max_functions} were examined`,
      );
      functions.length = args.max_functions;
    }

    const suggestions = [];
    let applied = 0;
    for (const [i, f] of functions.entries()) {
      const s = await ctx.invoke("function_summary", {
        address: f.start,
        max_items: 10,
        disassembly_lines: 0,
      });
      const text = s.strings.map((x) => x.text).find(meaningful);
      if (text !== undefined) {
        const base = slug(text, args.max_words, 48);
        if (base.length >= 3) {
          let name = args.prefix + base;
          for (let n = 2; taken.has(name); n++) name = `${args.prefix}${base}_${n}`;
          taken.add(name);
          suggestions.push({ address: f.start, old_name: f.name, new_name: name, string: text });
          if (args.apply) {
            await ctx.invoke("rename", { address: f.start, name });
            applied++;
          }
        }
      }
      if (i % 10 === 9) ctx.progress(i + 1, functions.length, `${suggestions.length} suggestions`);
    }
    if (suggestions.length === 0) {
      ctx.warn("none", `None of ${functions.length} functions references a usable string`);
    }
    return { suggestions, examined: functions.length, applied, total_functions: total };
  },
};
