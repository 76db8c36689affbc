import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { daemonPaths, processAlive, writeState } from "./state.ts";
import { stopMode } from "./stop.ts";

Deno.test("stopMode() signals nothing when a stale state file's pid now runs another program", async () => {
  if (Deno.build.os === "windows") return;
  const dir = await Deno.makeTempDir({ prefix: "remcp-stop-" });
  // The pid a SIGKILLed daemon left behind, now reused by an unrelated program.
  const other = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" }).spawn();
  try {
    const config = loadConfig({ REMCP_STATE_DIR: dir });
    await writeState(daemonPaths(dir).state, {
      host: "127.0.0.1",
      port: 9, // discard: nothing answers as a daemon there
      token: "0".repeat(64),
      pid: other.pid,
      version: "0.1.0",
      started: new Date().toISOString(),
      auto: false,
    });
    const lines: string[] = [];
    const code = await stopMode(config, (l) => lines.push(l));
    assert.equal(code, 0);
    assert.ok(processAlive(other.pid), "the unrelated process was left alone");
    assert.match(lines.join("\n"), /another program \(\S*sleep 60\).*signalled nothing/);
    await assert.rejects(Deno.stat(daemonPaths(dir).state), Deno.errors.NotFound);
  } finally {
    other.kill("SIGKILL");
    await other.status;
    await Deno.remove(dir, { recursive: true });
  }
});
