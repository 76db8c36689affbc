/** End-to-end: execute reports progress on its invokes at a bounded rate, not one note per invoke. */
import assert from "node:assert/strict";
import { fixture, ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "execute sends progress about its invokes, far fewer notes than invokes",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      await ok(h.client, "open_database", { path: fixture("elf_x86_64_gcc_O2") });
      await ok(h.client, "wait_for_analysis");
      const N = 2000;
      const notes: { progress: number; message?: string | undefined }[] = [];
      const started = performance.now();
      const r = await h.client.callTool({
        name: "execute",
        arguments: {
          code: `for (let i = 0; i < ${N}; i++) await invoke("get_database_info", {}); "done"`,
        },
      }, { onprogress: (p) => notes.push(p), timeout: 600_000 });
      const seconds = (performance.now() - started) / 1000;
      assert.ok(!r.isError, JSON.stringify(r.content));
      assert.equal((r.structuredContent as { invokes: number }).invokes, N);
      // The first invoke is reported; then at most one note per 100 ms of the run.
      assert.ok(notes.length >= 1, "at least one progress note");
      assert.match(notes[0]!.message ?? "", /^\d+ invokes$/);
      assert.ok(
        notes.length <= Math.ceil(seconds * 10) + 2,
        `${notes.length} notes for ${N} invokes in ${seconds.toFixed(1)} s`,
      );
      assert.ok(notes.length < N / 4, `${notes.length} notes for ${N} invokes`);
    } finally {
      await h.close();
    }
  },
);
