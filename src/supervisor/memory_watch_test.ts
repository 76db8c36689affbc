import assert from "node:assert/strict";
import { watchMemory } from "./memory_watch.ts";

Deno.test("watchMemory() reports the first sample over the budget once, then stops", async () => {
  const samples = [100, 200, undefined, 300, 900, 950];
  let reads = 0;
  const over = Promise.withResolvers<{ rssBytes: number; budgetBytes: number }>();
  let calls = 0;
  watchMemory(42, 500, (o) => {
    calls++;
    over.resolve(o);
  }, {
    everyMs: 1,
    read: (pid) => {
      assert.equal(pid, 42);
      return Promise.resolve(samples[reads++]);
    },
  });
  // The watch's timers do not hold the process open; this one holds the test's.
  const keep = setInterval(() => {}, 1000);
  assert.deepEqual(await over.promise, { rssBytes: 900, budgetBytes: 500 });
  clearInterval(keep);
  const readsThen = reads;
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(calls, 1);
  assert.equal(reads, readsThen);
});

Deno.test("watchMemory() samples no more after stop()", async () => {
  let reads = 0;
  const w = watchMemory(1, 10, () => assert.fail("no overrun after stop"), {
    everyMs: 1,
    read: () => Promise.resolve(++reads > 3 ? 100 : 1),
  });
  w.stop();
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(reads <= 1);
});
