import assert from "node:assert/strict";
import { Activity } from "./activity.ts";

function clock() {
  let t = 1000;
  return { now: () => t, advance: (ms: number) => t += ms };
}

Deno.test("Activity.idleMs() counts from the end of the last request", () => {
  const c = clock();
  const a = new Activity({ callsInFlight: () => 0, now: c.now });
  c.advance(500);
  assert.equal(a.idleMs(), 500);
  const end = a.beginRequest();
  c.advance(10_000);
  assert.equal(a.idleMs(), 0, "busy while a request is open");
  end();
  end(); // a second call changes nothing
  assert.equal(a.requests, 0);
  c.advance(300);
  assert.equal(a.idleMs(), 300);
});

Deno.test("Activity is busy while a session is attached", () => {
  const c = clock();
  const a = new Activity({ callsInFlight: () => 0, now: c.now });
  const one = a.attach("proxy-1");
  const two = a.attach("proxy-1");
  assert.deepEqual(a.sessions(), ["proxy-1"]);
  one();
  assert.ok(a.isAttached("proxy-1"), "one attachment of the session remains");
  c.advance(5000);
  assert.equal(a.idleMs(), 0);
  two();
  assert.ok(!a.isAttached("proxy-1"));
  c.advance(200);
  assert.equal(a.idleMs(), 200);
});

Deno.test("Activity is busy while the supervisor has calls in flight", () => {
  const c = clock();
  let calls = 1;
  const a = new Activity({ callsInFlight: () => calls, now: c.now });
  c.advance(5000);
  assert.equal(a.idleMs(), 0);
  calls = 0;
  c.advance(700);
  assert.equal(a.idleMs(), 700);
});
