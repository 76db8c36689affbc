import assert from "node:assert/strict";
import type { SelfLaunch } from "../self_command.ts";
import { threadsAvailable } from "./sandbox_thread.ts";

const launch = (main: string, standalone = false): SelfLaunch => ({
  standalone,
  execPath: "/usr/bin/deno",
  main,
  exists: () => true,
});
const config = (unstable: string[]) => () => JSON.stringify({ unstable });

Deno.test("threadsAvailable() only where --unstable-worker-options is sure to be on", () => {
  const source = "file:///home/u/remcp/src/main.ts";
  assert.equal(threadsAvailable(launch(source), config(["raw-imports", "worker-options"])), true);
  assert.equal(threadsAvailable(launch(source), config(["raw-imports"])), false);
  assert.equal(
    threadsAvailable(launch(source), () => {
      throw new Deno.errors.NotFound("no deno.json");
    }),
    false,
  );
  assert.equal(threadsAvailable(launch("file:///tmp/remcp.js"), config(["worker-options"])), false);
  assert.equal(
    threadsAvailable(launch("https://example.com/remcp/src/main.ts"), config(["worker-options"])),
    false,
  );
  assert.equal(threadsAvailable(launch("file:///b/remcp", true), config([])), true);
});

Deno.test("threadsAvailable() is true for this checkout (deno.json asks for worker options)", () => {
  assert.equal(threadsAvailable(), true);
});
