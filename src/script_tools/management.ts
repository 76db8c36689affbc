/**
 * Management tools for script tools: `define_tool`, `delete_tool` and `list_script_tools`.
 */
import { z } from "zod";
import { defineTool, READ_ONLY } from "../protocol/catalog/spec.ts";
import { type LocalTool, localTool } from "../supervisor/host.ts";
import type { ScriptTools } from "./registry.ts";
import { MAX_SOURCE_BYTES } from "./source.ts";

export const defineToolSpec = defineTool({
  name: "define_tool",
  description: "Turn a script into a named tool that runs in the execute sandbox. `code` is a " +
    "file whose `export default` is {name, description, input (JSON Schema), output?, " +
    'annotations?, scope? ("database"|"global"), pinned?, timeout_s?, run(args, ctx)}.\n' +
    "ctx has invoke(name, args), database, warn(code, message), progress(done, total, msg). " +
    'Arguments are checked first; "format": "address" parameters arrive as 0x strings. A name ' +
    "already defined is replaced; persist: true also saves it to the tools folder.",
  input: z.strictObject({
    code: z.string().min(1).max(MAX_SOURCE_BYTES).describe("The tool file (JavaScript)"),
    persist: z.boolean().optional().describe("Also write it to the tools folder"),
  }),
  output: z.object({
    name: z.string(),
    replaced: z.boolean(),
    listed: z.boolean(),
    file: z.string().optional(),
  }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  tags: ["management", "script", "tools"],
});

export const deleteToolSpec = defineTool({
  name: "delete_tool",
  description: "Remove a script tool; persist: true also deletes its file from the tools folder.",
  input: z.strictObject({
    name: z.string().min(1).max(64),
    persist: z.boolean().optional().describe("Also delete its file"),
  }),
  output: z.object({ name: z.string(), deleted: z.boolean(), file: z.string().optional() }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  tags: ["management", "script", "tools"],
});

export const listScriptToolsSpec = defineTool({
  name: "list_script_tools",
  description: "List script tools (loaded from the tools folder or defined with define_tool) " +
    "and the tool files that failed to load, with why.",
  input: z.strictObject({}),
  output: z.object({
    tools_dir: z.string().nullable(),
    tools: z.array(z.object({
      name: z.string(),
      summary: z.string(),
      scope: z.enum(["database", "global"]),
      listed: z.boolean(),
      origin: z.string(),
      timeout_s: z.number(),
    })),
    problems: z.array(z.object({ file: z.string(), error: z.string(), error_type: z.string() })),
  }),
  annotations: READ_ONLY,
  tags: ["management", "script", "tools"],
});

/** The script-tool management tools over `scripts`, in listing order. */
export function scriptToolManagement(scripts: ScriptTools): LocalTool[] {
  return [
    localTool(defineToolSpec, async (sup, a) => {
      await scripts.ready();
      const def = await scripts.compile(a.code, "define_tool");
      const previous = scripts.defs.get(def.spec.name);
      scripts.assertDefinable(def.spec.name);
      let file: string | undefined;
      if (a.persist) {
        file = scripts.fileFor(def, previous);
        await scripts.persist(def, file);
        def.origin = file;
      }
      const { replaced } = scripts.add(def);
      const entry = sup.entries.get(def.spec.name)!;
      return {
        name: def.spec.name,
        replaced,
        listed: sup.listed(entry),
        ...(file ? { file } : {}),
      };
    }),
    localTool(deleteToolSpec, async (_sup, a) => {
      await scripts.ready();
      const def = scripts.defs.get(a.name);
      const file = a.persist && def ? await scripts.unpersist(def) : undefined;
      scripts.remove(a.name);
      return { name: a.name, deleted: true, ...(file ? { file } : {}) };
    }),
    localTool(listScriptToolsSpec, async (sup) => {
      await scripts.ready();
      const tools = [...scripts.defs.values()].map((d) => {
        const entry = sup.entries.get(d.spec.name);
        return {
          name: d.spec.name,
          summary: d.spec.description.split("\n")[0]!,
          scope: d.scope,
          listed: entry ? sup.listed(entry) : false,
          origin: d.origin,
          timeout_s: d.timeoutMs / 1000,
        };
      });
      return { tools_dir: scripts.dir ?? null, tools, problems: [...scripts.problems] };
    }),
  ];
}
