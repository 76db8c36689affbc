/** `search_tools`: find tools (hidden ones included) by regex over names, descriptions, tags. */
import { z } from "zod";
import { compileFilter } from "../protocol/paging.ts";
import { defineTool, READ_ONLY, summaryOf, type ToolSpec } from "../protocol/catalog/spec.ts";
import type { Host, LocalHandler } from "../supervisor/host.ts";
import { briefSignature, invokeSignature } from "./typings.ts";

export const searchToolsSpec = defineTool({
  name: "search_tools",
  description: "Find tools by a regex over names, descriptions and tags — including the many " +
    "tools not listed — with TypeScript signatures.\n" +
    'detail "brief" (default) gives signature and summary; "full" adds the whole description ' +
    "and the result type. Call a found tool with call, batch or execute.",
  input: z.strictObject({
    pattern: z.string().max(200).describe('Regex, e.g. "xref|string" ("" lists all)'),
    detail: z.enum(["brief", "full"]).optional(),
  }),
  output: z.object({
    items: z.array(z.object({
      name: z.string(),
      signature: z.string(),
      summary: z.string(),
      tags: z.array(z.string()),
      listed: z.boolean(),
      description: z.string().optional(),
    })),
    total: z.number(),
  }),
  annotations: READ_ONLY,
  tags: ["meta"],
});

/** The tools `search_tools` may reveal: enabled ones, minus internal ones. */
export function searchable(sup: Host): { spec: ToolSpec; listed: boolean }[] {
  return [...sup.entries.values()]
    .filter((e) => sup.enabled(e) && !e.spec.name.startsWith("_"))
    .map((e) => ({ spec: e.spec, listed: sup.listed(e) }));
}

export const searchToolsHandler: LocalHandler = (sup, args) => {
  const a = args as z.output<typeof searchToolsSpec.input>;
  const re = compileFilter(a.pattern, "pattern");
  const full = a.detail === "full";
  const items = [];
  for (const { spec, listed } of searchable(sup)) {
    const entry = sup.entries.get(spec.name)!;
    if (re && !re.test(spec.name) && !re.test(spec.description) && !re.test(spec.tags.join(" "))) {
      continue;
    }
    const input = sup.routedInput(entry);
    items.push({
      name: spec.name,
      signature: full
        ? invokeSignature(spec.name, input, spec.output)
        : briefSignature(spec.name, input),
      summary: summaryOf(spec),
      tags: [...spec.tags],
      listed,
      ...(full ? { description: spec.description } : {}),
    });
  }
  return Promise.resolve({ items, total: items.length });
};
