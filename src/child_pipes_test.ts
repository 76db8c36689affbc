import assert from "node:assert/strict";
import { childPipesServed, spawnOnPipes } from "./child_pipes.ts";
import { LineTransport } from "./line_transport.ts";

// Echoes each line of its stdin to its stdout upper-cased, says "bye" on stderr at the end.
const ECHO = `const dec = new TextDecoder(); let text = "";
for await (const c of Deno.stdin.readable) text += dec.decode(c, { stream: true });
await Deno.stdout.write(new TextEncoder().encode(text.toUpperCase()));
console.error("bye");`;

Deno.test("childPipesServed() picks the pipes on Linux unless REMCP_STDIO=stream", () => {
  assert.equal(childPipesServed({}, "linux"), true);
  assert.equal(childPipesServed({ REMCP_STDIO: "auto" }, "linux"), true);
  assert.equal(childPipesServed({ REMCP_STDIO: "stream" }, "linux"), false);
  assert.equal(childPipesServed({}, "darwin"), false);
  assert.equal(childPipesServed({}, "windows"), false);
});

Deno.test("spawnOnPipes() carries a child's stdin, stdout and stderr, and its end", async () => {
  const child = spawnOnPipes(Deno.execPath(), ["eval", ECHO], { REMCP_TEST_MARK: "1" });
  const big = "x".repeat(300 * 1024);
  const stdin = new TextEncoder().encode(`hello\n${big}\n`);
  for (let at = 0; at < stdin.length;) at += await child.conn.write(stdin.subarray(at));
  await child.conn.closeWrite();
  const err: string[] = [];
  const stderr = (async () => {
    for await (const c of child.stderr) err.push(new TextDecoder().decode(c));
  })();
  const decoder = new TextDecoder();
  let out = "";
  const buffer = new Uint8Array(64 * 1024);
  for (let n; (n = await child.conn.read(buffer)) !== null;) {
    out += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  assert.equal(out, `HELLO\n${big.toUpperCase()}\n`);
  assert.deepEqual(await child.status, { success: true, code: 0, signal: null });
  await stderr;
  assert.match(err.join(""), /bye/);
  child.conn.close();
});

Deno.test("spawnOnPipes() reports a killed child as Deno.Command does", async () => {
  const child = spawnOnPipes(Deno.execPath(), ["eval", "setInterval(() => {}, 1000)"], {});
  const lines = new LineTransport({ conn: child.conn });
  await lines.start();
  child.kill("SIGKILL");
  // The kill leaves the child's stdin to the pipe: a write racing it fails, if at all, as the
  // pipe does (EPIPE), not as a stream the kill destroyed, which the pool would not take for a
  // crash while the exit is still on its way.
  const written = await child.conn.write(new TextEncoder().encode("late\n")).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.notEqual((written as { code?: unknown } | undefined)?.code, "ERR_STREAM_DESTROYED");
  assert.doesNotMatch(String(written), /destroyed/);
  const byDeno = new Deno.Command(Deno.execPath(), {
    args: ["eval", "setInterval(() => {}, 1000)"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  byDeno.kill("SIGKILL");
  assert.deepEqual(await child.status, { ...await byDeno.status });
  assert.deepEqual(await child.status, { success: false, code: 137, signal: "SIGKILL" });
  // The end of the child's stdout ends the transport.
  await lines.ended;
});

Deno.test("spawnOnPipes() refuses a program that cannot start, and nothing throws later", async () => {
  assert.throws(() => spawnOnPipes("/nonexistent/remcp-test", [], {}), /Cannot start/);
  // The child process object reports the cause as an event a tick later: let it come.
  for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 0));
});
