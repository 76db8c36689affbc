import assert from "node:assert/strict";
import {
  daemonPaths,
  type DaemonState,
  daemonUrl,
  ensureStateDir,
  processAlive,
  readState,
  removeState,
  writeState,
} from "./state.ts";

const sample: DaemonState = {
  host: "127.0.0.1",
  port: 4567,
  token: "c".repeat(64),
  pid: Deno.pid,
  version: "0.1.0",
  started: new Date(0).toISOString(),
  auto: true,
};

Deno.test("writeState() writes atomically with mode 0600 in a 0700 folder", async () => {
  const root = await Deno.makeTempDir({ prefix: "remcp-state-test-" });
  try {
    const dir = `${root}/state`;
    await ensureStateDir(dir);
    const { state } = daemonPaths(dir);
    await writeState(state, sample);
    await writeState(state, { ...sample, port: 4568 });
    assert.deepEqual(await readState(state), { ...sample, port: 4568 });
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(state)).mode! & 0o777, 0o600);
      assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    }
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert.deepEqual(names, ["daemon.json"], "no temp file left");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("readState() treats a missing, malformed or foreign file as none", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-state-test-" });
  try {
    const { state } = daemonPaths(dir);
    assert.equal(await readState(state), undefined);
    await Deno.writeTextFile(state, "{ half");
    assert.equal(await readState(state), undefined);
    await Deno.writeTextFile(state, JSON.stringify({ ...sample, token: "short" }));
    assert.equal(await readState(state), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("removeState() leaves a successor's file alone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remcp-state-test-" });
  try {
    const { state } = daemonPaths(dir);
    await writeState(state, { ...sample, pid: 999_999 });
    assert.equal(await removeState(state, Deno.pid), false);
    assert.ok(await readState(state));
    assert.equal(await removeState(state, 999_999), true);
    assert.equal(await readState(state), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("processAlive() tells running from exited processes", async () => {
  assert.ok(processAlive(Deno.pid));
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", ""] }).spawn();
  await child.status;
  assert.ok(!processAlive(child.pid));
});

Deno.test("daemonUrl() brackets IPv6 hosts", () => {
  assert.equal(daemonUrl({ host: "127.0.0.1", port: 1 }), "http://127.0.0.1:1/mcp");
  assert.equal(daemonUrl({ host: "::1", port: 2 }, "/remcp/health"), "http://[::1]:2/remcp/health");
});
