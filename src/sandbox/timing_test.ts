/**
 * Prints what a sandbox run costs (no timing is asserted: machines differ). Run with
 * `deno test -A src/sandbox/timing_test.ts` and read stderr.
 */
import assert from "node:assert/strict";
import { resolveLimits } from "./limits.ts";
import { type InvokeHandler, SandboxPool } from "./pool.ts";
import type { EngineHost } from "./engine_types.ts";
import { SandboxEngine } from "./quickjs.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function report(what: string, ms: number): void {
  console.error(`  ${what}: ${ms.toFixed(3)} ms`);
}

Deno.test("sandbox timing: fresh instance per run and per-invoke overhead", async () => {
  const engine = await SandboxEngine.load();
  const host: EngineHost = {
    invoke: () => Promise.resolve({ ok: true, valueJson: '{"ok":true}' }),
    log: () => {},
  };
  const limits = resolveLimits();
  const cold: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t = performance.now();
    const out = await engine.run({ code: "1", globals: { database: "d" }, limits }, host);
    cold.push(performance.now() - t);
    assert.ok(out.ok);
  }
  report(
    "in-process: fresh instance + trivial script, median of 60 (after warm-up)",
    median(cold.slice(10)),
  );

  const n = 5000;
  let t = performance.now();
  const seq = await engine.run({
    code: `for (let i = 0; i < ${n}; i++) await invoke('t', { i }); 1`,
    globals: {},
    limits,
  }, host);
  assert.ok(seq.ok);
  report(`in-process: per sequential invoke (${n})`, (performance.now() - t) / n);

  const pool = new SandboxPool({ size: 1 });
  try {
    await pool.warm();
    const echo: InvokeHandler = (_name, args) => Promise.resolve(args);
    const walls: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await pool.run("1", { invoke: echo, timeoutMs: 5000 });
      assert.ok(r.ok);
      walls.push(r.stats.wallMs);
    }
    report(
      "pool: whole run of a trivial script on a warm process, median of 30",
      median(walls.slice(5)),
    );
    for (
      const [label, code] of [
        ["sequential", `for (let i = 0; i < ${n}; i++) await invoke('t', { i }); 1`],
        [
          "Promise.all",
          `await Promise.all(Array.from({ length: ${n} }, (_, i) => invoke('t', { i }))); 1`,
        ],
      ]
    ) {
      t = performance.now();
      const r = await pool.run(code!, {
        invoke: echo,
        timeoutMs: 30_000,
        limits: { cpuMs: 30_000 },
      });
      assert.ok(r.ok);
      report(
        `pool: per ${label} invoke (${n}), wall`,
        (performance.now() - t) / n,
      );
      report(`pool: per ${label} invoke (${n}), script CPU only`, r.stats.cpuMs / n);
    }
  } finally {
    await pool.close();
  }
});
