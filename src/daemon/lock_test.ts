import assert from "node:assert/strict";
import { withFileLock } from "./lock.ts";

Deno.test("withFileLock() runs holders one at a time", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-lock-test-" });
  try {
    const path = `${dir}/x.lock`;
    let inside = 0;
    let most = 0;
    await Promise.all(Array.from({ length: 5 }, () =>
      withFileLock(path, 5000, async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 20));
        inside--;
      })));
    assert.equal(most, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("withFileLock() gives up after its timeout and releases on throw", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-lock-test-" });
  try {
    const path = `${dir}/x.lock`;
    const held = Promise.withResolvers<void>();
    const holder = withFileLock(path, 1000, () => held.promise);
    await new Promise((r) => setTimeout(r, 20));
    await assert.rejects(withFileLock(path, 100, () => Promise.resolve()), /Cannot lock/);
    held.resolve();
    await holder;
    await assert.rejects(withFileLock(path, 100, () => Promise.reject(new Error("boom"))), /boom/);
    assert.equal(await withFileLock(path, 100, () => Promise.resolve(7)), 7);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
