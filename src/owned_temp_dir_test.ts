import assert from "node:assert/strict";
import { makeOwnedTempDir, removeStale } from "./owned_temp_dir.ts";

Deno.test("removeStale() removes the folders of a prefix whose owner died, and only those", async () => {
  const parent = await Deno.makeTempDir({ prefix: "remcp-samples-test-" });
  try {
    // A pid that existed and is gone: a child that has exited and been reaped.
    const dead = new Deno.Command(Deno.execPath(), { args: ["--version"], stdout: "null" }).spawn();
    await dead.status;
    for (const [name, owner] of [["remcp-data-crashed", dead.pid], ["remcp-data-live", Deno.pid]]) {
      await Deno.mkdir(`${parent}/${name}`);
      await Deno.writeTextFile(`${parent}/${name}/.owner`, String(owner));
      await Deno.writeFile(`${parent}/${name}/sample.bin`, new Uint8Array(16));
    }
    await Deno.mkdir(`${parent}/remcp-data-unowned`);
    await Deno.mkdir(`${parent}/unrelated`);
    await Deno.mkdir(`${parent}/remcp-http-other-kind`);
    await Deno.writeTextFile(`${parent}/remcp-http-other-kind/.owner`, String(dead.pid));
    await Deno.writeTextFile(`${parent}/unrelated/.owner`, String(dead.pid));

    const removed = await removeStale(
      parent,
      "remcp-data-",
      `${parent}/remcp-data-keep`,
      (pid) => pid === Deno.pid,
    );
    assert.deepEqual(removed, [`${parent}/remcp-data-crashed`]);
    const left = [...Deno.readDirSync(parent)].map((e) => e.name).sort();
    assert.deepEqual(left, [
      "remcp-data-live",
      "remcp-data-unowned",
      "remcp-http-other-kind",
      "unrelated",
    ]);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("makeOwnedTempDir() makes a private folder that names its owner", async () => {
  const dir = await makeOwnedTempDir("remcp-data-", () => true);
  try {
    assert.equal(await Deno.readTextFile(`${dir}/.owner`), String(Deno.pid));
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
