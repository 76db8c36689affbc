import assert from "node:assert/strict";
import { SandboxProcess } from "./sandbox_process.ts";
import type { ChildExit, SandboxChild } from "./sandbox_child.ts";

/** A child that ends only when told to, after its kill: as a busy machine delays the exit. */
function slowToDie(): SandboxChild & { end(): void; kills: number } {
  const exit = Promise.withResolvers<ChildExit>();
  const child = {
    kind: "process" as const,
    kills: 0,
    listen() {},
    write() {},
    exited: exit.promise,
    kill() {
      child.kills++;
    },
    stderrTail: () => "",
    lanePath: () => Promise.resolve(undefined),
    end: () => exit.resolve({ code: null, signal: "SIGKILL" }),
  };
  return child;
}

Deno.test("SandboxProcess: a killed sandbox is not alive before its exit is seen", async () => {
  const child = slowToDie();
  const proc = new SandboxProcess(child);
  assert.equal(proc.alive, true);
  proc.kill();
  assert.equal(child.kills, 1);
  // The pool reads `alive` to decide whether a process takes the next run.
  assert.equal(proc.alive, false, "a killed process must not go back to the pool");
  child.end();
  await proc.exited;
  assert.equal(proc.alive, false);
});
