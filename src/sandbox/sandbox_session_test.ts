import assert from "node:assert/strict";
import { resolveLimits } from "./limits.ts";
import { SandboxEngine } from "./quickjs.ts";
import { SandboxSession } from "./sandbox_session.ts";

Deno.test("SandboxSession sends a run's done line before the engine makes its next instance", async () => {
  const events: string[] = [];
  const engine = await SandboxEngine.load({ onInstance: () => events.push("instance") });
  const made = Promise.withResolvers<void>();
  const session = new SandboxSession(engine, (line) => {
    events.push(`send ${(JSON.parse(line) as { type: string }).type}`);
  });
  // Wait for the answer and the spare made after the run, in whichever order they come.
  const watch = setInterval(() => {
    if (events.includes("send done") && events.includes("instance")) made.resolve();
  }, 1);
  try {
    events.length = 0;
    session.receive(JSON.stringify({
      type: "run",
      id: "r1",
      code: "6 * 7",
      globals: {},
      limits: resolveLimits({}),
    }));
    await made.promise;
  } finally {
    clearInterval(watch);
  }
  // The run took the spare made at load; the one made after it comes once `done` is sent: made
  // before, its ~5 ms of CPU would delay the answer (docs/ARCHITECTURE.md section 7).
  assert.deepEqual(events, ["send done", "instance"]);
});
