import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { canonicalFile } from "./pool.ts";

const fails = (code: string, pattern: RegExp) => (e: unknown) =>
  e instanceof RemcpError && e.code === code && pattern.test(e.message);

Deno.test("canonicalFile() expands ~/ from HOME", async () => {
  const home = await Deno.makeTempDir({ prefix: "remcp-pool-test-" });
  try {
    await Deno.writeTextFile(`${home}/bin`, "x");
    const real = await canonicalFile("~/bin", { home, cwd: () => "/" });
    assert.equal(real, await Deno.realPath(`${home}/bin`));
    await assert.rejects(
      canonicalFile("~/bin", { home: undefined, cwd: () => "/" }),
      fails("OpenFailed", /HOME is not set/),
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("canonicalFile() refuses ~user by name", async () => {
  await assert.rejects(
    canonicalFile("~root/x", { home: "/home/a", cwd: () => "/" }),
    fails("OpenFailed", /~root\/x names another user's home folder/),
  );
});

Deno.test("canonicalFile() says what a missing relative path resolved against", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-pool-test-" });
  try {
    await assert.rejects(
      canonicalFile("no_such_rel_file", { home: undefined, cwd: () => dir }),
      fails("OpenFailed", new RegExp(`resolved against the server's folder ${dir}`)),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
