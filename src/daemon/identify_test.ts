import assert from "node:assert/strict";
import { inspectProcess, isDaemonProcess, type ProcessInspector } from "./identify.ts";

const STARTED = "2026-12-01T10:00:00.000Z";
const at = (iso: string) => Date.parse(iso);
const facts = (args: string[], startedMs: number): ProcessInspector => () =>
  Promise.resolve({ args, startedMs });

Deno.test("isDaemonProcess() accepts remcp serve started just before the state file", async () => {
  const serve = ["/usr/bin/deno", "run", "-A", "/x/src/main.ts", "serve", "--auto"];
  const r = await isDaemonProcess(
    { pid: 7, started: STARTED },
    facts(serve, at("2026-12-01T09:59:58Z")),
  );
  assert.equal(r.ours, true);
  const compiled = await isDaemonProcess(
    { pid: 7, started: STARTED },
    facts(["/opt/remcp", "serve"], at(STARTED)),
  );
  assert.equal(compiled.ours, true);
});

Deno.test("isDaemonProcess() refuses another program or a later process on the pid", async () => {
  const other = await isDaemonProcess(
    { pid: 7, started: STARTED },
    facts(["/usr/bin/sleep", "60"], at(STARTED)),
  );
  assert.equal(other.ours, false);
  assert.match(other.why, /another program \(\/usr\/bin\/sleep 60\)/);
  const later = await isDaemonProcess(
    { pid: 7, started: STARTED },
    facts(["/opt/remcp", "serve"], at("2026-12-01T11:00:00Z")),
  );
  assert.equal(later.ours, false);
  assert.match(later.why, /not with the daemon/);
  const unknown = await isDaemonProcess(
    { pid: 7, started: STARTED },
    () => Promise.resolve(undefined),
  );
  assert.equal(unknown.ours, false);
});

Deno.test("inspectProcess() reads this process's command line and start time", async () => {
  if (Deno.build.os !== "linux" && Deno.build.os !== "darwin") return;
  const me = await inspectProcess(Deno.pid);
  assert.ok(me);
  assert.ok(me.args.some((a) => /deno/.test(a)), me.args.join(" "));
  const age = Date.now() - me.startedMs;
  // Started before now and not before the machine booted this year: a sanity bound, not timing.
  assert.ok(age >= -5_000 && age < 365 * 24 * 3600 * 1000, `age ${age}`);
});
