/**
 * The tool contract, written once and run against every backend that is available here: every
 * catalog tool the backend implements answers sample arguments with a result that matches the
 * catalog's output schema; listing tools page; address parameters refuse garbage with
 * InvalidAddress; unknown arguments are InvalidArgument. A backend that is not available is
 * skipped with the reason printed.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import { WORKER_TOOLS } from "../src/protocol/catalog/all.ts";
import { callTool, fixture, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const FILE = fixture("elf_x86_64_gcc_O0");

/** Sample arguments per tool (against FILE, which has main and remcp_* functions). */
const SAMPLES: Record<string, Record<string, unknown>> = {
  get_database_info: {},
  list_segments: {},
  list_sections: { filter: "text" },
  list_entry_points: {},
  resolve_address: { address: "main+4" },
  list_targets: {},
  list_imports: {},
  list_exports: {},
  list_names: { filter: "remcp" },
  list_strings: {},
  read_bytes: { address: "main", size: 16 },
  read_data: { address: "main", type: "u32", count: 2 },
  get_entropy: { address: "main", size: 256 },
  disassemble: { address: "main", count: 5 },
  search_bytes: { pattern: "48 65 6c 6c 6f" },
  search_text: { text: "remcp" },
  search_immediate: { value: 10 },
  rename: { address: "remcp_fib", name: "contract_fib" },
  rename_local: { function: "main", variable: "arg1", name: "argc" },
  set_local_type: { function: "main", variable: "arg1", type: "int" },
  set_comment: { address: "main", comment: "contract" },
  list_comments: {},
  set_function_prototype: { address: "main", prototype: "int main(int argc, char **argv)" },
  add_bookmark: { address: "main", note: "contract" },
  list_bookmarks: {},
  undo: {},
  redo: {},
  list_changes: {},
  export_annotations: {},
  import_annotations: {
    document: JSON.stringify({
      remcp_annotations: 1,
      sha256: "x",
      names: [],
      comments: [],
      prototypes: [],
      bookmarks: [],
    }),
  },
  list_functions: {},
  get_function: { address: "main" },
  function_summary: { address: "main" },
  disassemble_function: { address: "main", limit: 20 },
  decompile_function: { address: "main" },
  get_basic_blocks: { address: "main" },
  get_cfg: { address: "main" },
  get_call_graph: { address: "main" },
  function_features: { limit: 20 },
  xrefs_to: { address: "remcp_fact" },
  xrefs_from: { address: "main" },
  find_code_by_string: { pattern: "remcp" },
  command: { command: "afl~main" },
  command_json: { command: "aflj" },
};

/** Backends and whether they can run here. */
async function backends(): Promise<{ name: string; available: boolean; reason?: string }[]> {
  const h = await startRemcp();
  try {
    const r = await ok(h.client, "list_backends");
    return r.items as { name: string; available: boolean; reason?: string }[];
  } finally {
    await h.close();
  }
}

for (const b of await backends()) {
  Deno.test({
    name: `contract: ${b.name} backend honours the catalog`,
    ignore: !b.available,
    ...e2e,
    fn: async () => {
      const h = await startRemcp({ args: ["--allow-scripts"] });
      try {
        const o = await ok(h.client, "open_database", { path: FILE, backend: b.name });
        await ok(h.client, "wait_for_analysis", { timeout: 120 });
        let checked = 0;
        for (const spec of WORKER_TOOLS) {
          const sample = SAMPLES[spec.name];
          assert.ok(sample, `the contract has sample arguments for ${spec.name}`);
          const r = await callTool(h.client, "call", { name: spec.name, arguments: sample });
          if (r.isError) {
            const e = r.sc as { error_type: string; detail: { backends?: string[] } };
            assert.equal(e.error_type, "Unsupported", `${spec.name}: ${r.text}`);
            continue;
          }
          const parsed = (spec.output as z.ZodType).safeParse(r.sc);
          assert.ok(
            parsed.success,
            `${spec.name} result matches its schema: ${r.text.slice(0, 300)}`,
          );
          assert.deepEqual(JSON.parse(r.text), r.sc, `${spec.name} text is the structured content`);
          checked++;
          const shape = spec.input.shape as Record<string, unknown>;
          if ("limit" in shape && "offset" in shape && Array.isArray(r.sc.items)) {
            const p = await ok(h.client, "call", {
              name: spec.name,
              arguments: { ...sample, limit: 1 },
            });
            assert.ok((p.items as unknown[]).length <= 1);
            if ((p.total as number) > 1) {
              assert.equal(p.has_more, true, `${spec.name} pages`);
              assert.equal(p.next_offset, 1);
            }
          }
          if ("address" in shape) {
            const bad = await callTool(h.client, "call", {
              name: spec.name,
              arguments: { ...sample, address: "no_such_symbol_anywhere" },
            });
            assert.equal(bad.isError, true, `${spec.name} refuses a bad address`);
            assert.ok(
              ["InvalidAddress", "Unsupported"].includes(
                (bad.sc as { error_type: string }).error_type,
              ),
              `${spec.name}: ${bad.text}`,
            );
          }
          const extra = await callTool(h.client, "call", {
            name: spec.name,
            arguments: { ...sample, not_a_parameter: 1 },
          });
          assert.equal(
            (extra.sc as { error_type: string }).error_type,
            "InvalidArgument",
            spec.name,
          );
        }
        console.log(`${b.name}: ${checked} tools checked against the catalog (${o.database})`);
        assert.ok(checked > 10);
      } finally {
        await h.close();
      }
    },
  });
  if (!b.available) console.log(`contract: skipping ${b.name}: ${b.reason}`);
}
