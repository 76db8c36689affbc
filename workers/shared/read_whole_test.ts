import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readWhole } from "./read_whole.ts";
import { sha256Bytes, sha256File } from "./sha256.ts";

Deno.test("readWhole(), sha256File() and sha256Bytes() see every byte of a file larger than one chunk", async () => {
  const path = await Deno.makeTempFile();
  try {
    const data = new Uint8Array(9 * 1024 * 1024 + 123);
    for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) & 0xff;
    await Deno.writeFile(path, data);
    assert.deepEqual(await readWhole(path), data);
    const want = createHash("sha256").update(data).digest("hex");
    assert.equal(await sha256File(path), want);
    assert.equal(sha256Bytes(data), want);
    await Deno.writeFile(path, new Uint8Array());
    assert.equal((await readWhole(path)).length, 0);
  } finally {
    await Deno.remove(path);
  }
});
