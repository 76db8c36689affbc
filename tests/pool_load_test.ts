/**
 * End-to-end: eight long sandboxes at once, or big results, leave the supervisor answering. Each
 * sandbox has its own thread (or process), and a big result is cut to the output cap inside it, so
 * a busy pool costs the event loop nothing; this fails if a script's work ever lands on it.
 */
import assert from "node:assert/strict";
import { ok, startRemcp } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** Times list_databases again and again while `running()` holds; only answers within it count. */
async function listLatencies(
  h: Awaited<ReturnType<typeof startRemcp>>,
  running: () => boolean,
): Promise<number[]> {
  const latencies: number[] = [];
  while (running()) {
    const t0 = performance.now();
    await ok(h.client, "list_databases");
    if (running()) latencies.push(performance.now() - t0);
  }
  return latencies;
}

/** Several answers came, and the median within a second. */
function assertAnswered(latencies: number[]): void {
  assert.ok(latencies.length >= 3, `only ${latencies.length} answers while the scripts ran`);
  const sorted = [...latencies].sort((a, b) => a - b);
  // The median: one scheduler hiccup on a loaded 2-core machine is not the property.
  const median = sorted[Math.floor(sorted.length / 2)]!;
  assert.ok(median < 1000, `list_databases took ${sorted.map(Math.round)} ms`);
}

Deno.test("list_databases answers within a second while 8 sandboxes spin", e2e, async () => {
  const h = await startRemcp();
  try {
    await ok(h.client, "list_databases");
    let pending = 8;
    const runs = Array.from({ length: 8 }, () =>
      ok(h.client, "execute", {
        code: "const t = Date.now(); while (Date.now() - t < 8000) {} 1",
        timeout_s: 120,
      }).finally(() => pending--));
    // Ask again and again while the scripts spin (8 s each, 8 sandboxes on however few cores).
    const latencies = await listLatencies(h, () => pending === 8);
    for (const r of await Promise.all(runs)) assert.equal(r.result, 1);
    assertAnswered(latencies);
  } finally {
    await h.close();
  }
});

Deno.test(
  "list_databases answers within a second while executes return 15 MiB strings",
  e2e,
  async () => {
    const h = await startRemcp();
    try {
      await ok(h.client, "list_databases");
      let done = false;
      const big = (async () => {
        const results = [];
        // Several in a row: before the cut moved into the sandbox, each stalled the loop ~2 s.
        for (let i = 0; i < 3; i++) {
          results.push(await ok(h.client, "execute", { code: "'x'.repeat(15 * 1024 * 1024)" }));
        }
        done = true;
        return results;
      })();
      const latencies = await listLatencies(h, () => !done);
      for (const r of await big) {
        assert.equal(r.truncated, true);
        assert.ok(String(r.result).length <= 128 * 1024, "the result is cut to the output cap");
      }
      assertAnswered(latencies);
    } finally {
      await h.close();
    }
  },
);
