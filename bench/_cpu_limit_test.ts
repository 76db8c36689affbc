import assert from "node:assert/strict";
import { processTicksCpuMs } from "./_cpu.ts";
import { runCpuLimited } from "./_cpu_limit.ts";

Deno.test("runCpuLimited() returns the output of a child that stays under the limit", async () => {
  const r = await runCpuLimited("sh", ["-c", "echo out; echo err >&2"], 60, 50);
  assert.equal(r.success, true);
  assert.equal(r.overLimit, false);
  assert.equal(r.stdout, "out\n");
  assert.equal(r.stderr, "err\n");
});

Deno.test("runCpuLimited() kills a child once it has used the CPU time allowed", async () => {
  // A busy loop: however slowly a loaded machine schedules it, it reaches 0.2 CPU s.
  const r = await runCpuLimited("sh", ["-c", "while :; do :; done"], 0.2, 50);
  assert.equal(r.overLimit, true);
  assert.equal(r.success, false);
  assert.ok(r.cpuSeconds >= 0.2, `${r.cpuSeconds} CPU s`);
});

Deno.test("runCpuLimited() reports a child's failure without calling it over the limit", async () => {
  const r = await runCpuLimited("sh", ["-c", "exit 3"], 60, 50);
  assert.equal(r.success, false);
  assert.equal(r.overLimit, false);
});

Deno.test("processTicksCpuMs() counts the CPU time of threads that have ended", async () => {
  // Each worker thread spins until it has itself used 150 ms of CPU (its own schedstat, so a busy
  // machine only makes it take longer), then ends.
  const spin = `const cpu = () => Number(Deno.readTextFileSync("/proc/thread-self/schedstat")
    .split(" ")[0]) / 1e6; const t = cpu(); while (cpu() - t < 150) {} postMessage(0);`;
  const url = `data:application/javascript,${encodeURIComponent(spin)}`;
  const before = processTicksCpuMs(Deno.pid);
  for (let i = 0; i < 2; i++) {
    const w = new Worker(url, { type: "module" });
    await new Promise((r) => w.onmessage = r);
    w.terminate();
  }
  // One tick (10 ms) of rounding on each side of the difference.
  assert.ok(processTicksCpuMs(Deno.pid) - before >= 300 - 20);
});
