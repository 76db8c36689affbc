import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { confineToRoot } from "./root.ts";

Deno.test("confineToRoot() allows files under the root and refuses the rest after symlinks", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "remcp-root-" }));
  try {
    await Deno.mkdir(`${dir}/root/sub`, { recursive: true });
    await Deno.mkdir(`${dir}/outside`);
    await Deno.writeTextFile(`${dir}/root/sub/a.bin`, "a");
    await Deno.writeTextFile(`${dir}/outside/b.bin`, "b");
    await Deno.symlink(`${dir}/outside/b.bin`, `${dir}/root/escape`);
    await Deno.symlink(`${dir}/root/sub/a.bin`, `${dir}/outside/inward`);
    await Deno.symlink(`${dir}/root`, `${dir}/root_link`);
    const root = `${dir}/root`;

    await confineToRoot(`${root}/sub/a.bin`, root);
    await confineToRoot(`${dir}/outside/inward`, root);
    await confineToRoot(`${root}/sub/a.bin`, `${dir}/root_link`);
    await confineToRoot(`${dir}/outside/b.bin`, undefined);
    for (const bad of [`${dir}/outside/b.bin`, `${root}/escape`, `${root}/../outside/b.bin`]) {
      await assert.rejects(confineToRoot(bad, root), (err: unknown) => {
        assert.ok(err instanceof RemcpError);
        assert.equal(err.code, "OpenFailed");
        assert.match(err.message, /outside the folder this server may open \(--root \/ REMCP_ROOT/);
        return true;
      }, bad);
    }
    // A root beside another with the same prefix is not the same tree.
    await Deno.mkdir(`${dir}/root2`);
    await Deno.writeTextFile(`${dir}/root2/c.bin`, "c");
    await assert.rejects(confineToRoot(`${dir}/root2/c.bin`, root), RemcpError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
