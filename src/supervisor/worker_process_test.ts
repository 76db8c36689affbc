import assert from "node:assert/strict";
import { withWorkerV8Flags, WORKER_V8_FLAGS } from "./worker_process.ts";

Deno.test("withWorkerV8Flags() gives a worker its V8 flags and keeps the rest of the environment", () => {
  const env = withWorkerV8Flags({ REMCP_LOG_LEVEL: "debug" }, undefined);
  assert.equal(env.REMCP_LOG_LEVEL, "debug");
  assert.equal(env.DENO_V8_FLAGS, WORKER_V8_FLAGS.join(","));
});

Deno.test("withWorkerV8Flags() puts the user's DENO_V8_FLAGS after the worker's, so the user's win", () => {
  const inherited = withWorkerV8Flags({}, "--max-opt=4");
  assert.equal(inherited.DENO_V8_FLAGS, [...WORKER_V8_FLAGS, "--max-opt=4"].join(","));
  // A value passed for the worker itself counts as the user's, over the inherited one.
  const given = withWorkerV8Flags({ DENO_V8_FLAGS: "--stack-size=2000" }, "--max-opt=4");
  assert.equal(given.DENO_V8_FLAGS, [...WORKER_V8_FLAGS, "--stack-size=2000"].join(","));
});

Deno.test("a process started with withWorkerV8Flags() starts: V8 knows every flag it is given", async () => {
  // Deno reads DENO_V8_FLAGS at start and exits ("V8 did not recognize flag") on a flag V8 does
  // not know: a flag renamed by a V8 update would stop every worker.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "console.log(1 + 1)"],
    env: withWorkerV8Flags({}, undefined),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "2");
});
