/** End-to-end: resources and prompts. */
import assert from "node:assert/strict";
import { fixture, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "resources list the databases and each one's imports, exports, entry points, statistics",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      const o = await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
      await ok(h.client, "wait_for_analysis", {});
      const list = await h.client.listResources();
      const uris = list.resources.map((r) => r.uri);
      assert.ok(uris.includes("remcp://databases"));
      assert.ok(uris.includes(`remcp://${o.database}/imports`));
      const dbs = await h.client.readResource({ uri: "remcp://databases" });
      const text = (dbs.contents[0] as { text: string }).text;
      assert.equal(JSON.parse(text).items[0].database, o.database);
      const imports = await h.client.readResource({ uri: `remcp://${o.database}/imports` });
      const items = JSON.parse((imports.contents[0] as { text: string }).text).items as {
        name: string;
      }[];
      assert.ok(items.some((i) => i.name === "puts" || i.name === "printf"));
      const stats = await h.client.readResource({ uri: `remcp://${o.database}/statistics` });
      assert.equal(JSON.parse((stats.contents[0] as { text: string }).text).format, "elf");
      const templates = await h.client.listResourceTemplates();
      assert.ok(
        templates.resourceTemplates.some((t) => t.uriTemplate === "remcp://{database}/exports"),
      );
      await assert.rejects(() => h.client.readResource({ uri: "remcp://nope/imports" }));
    } finally {
      await h.close();
    }
  },
);

Deno.test("prompts are listed and render with their arguments", e2e, async () => {
  const h = await startRemcp();
  try {
    const names = (await h.client.listPrompts()).prompts.map((p) => p.name).sort();
    assert.deepEqual(names, [
      "analyze_function",
      "find_crypto_constants",
      "rename_from_strings",
      "survey_binary",
    ]);
    const p = await h.client.getPrompt({ name: "survey_binary", arguments: { path: "/bin/ls" } });
    assert.match((p.messages[0]!.content as { text: string }).text, /\/bin\/ls/);
  } finally {
    await h.close();
  }
});
