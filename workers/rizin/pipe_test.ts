/**
 * RizinPipe against a stand-in for rizin written in sh: it prints the ready NUL, then answers
 * each line with output and a NUL, logging to stderr like rizin does.
 */
import assert from "node:assert/strict";
import { RemcpError } from "../../src/errors.ts";
import { RizinPipe } from "./pipe.ts";

const FAKE = `
printf '\\000'
while IFS= read -r line; do
  case "$line" in
    echo\\ *) printf '%s' "\${line#echo }" ;;
    fail) echo "ERROR: it failed" >&2 ;;
    warn) echo "WARNING: careful" >&2; printf 'done' ;;
    slow) sleep 20 ;;
    fence) echo "ERROR: Cannot seek to unknown address 'fence'" >&2 ;;
    quit|q!!) exit 0 ;;
  esac
  printf '\\000'
done
`;

const start = () => RizinPipe.start(["sh", "-c", FAKE], { startupTimeoutMs: 5000, graceMs: 20 });

Deno.test("RizinPipe returns each command's output up to its NUL, in order", async () => {
  const p = await start();
  try {
    const [a, b] = await Promise.all([p.run("echo one", 5000), p.run("echo two", 5000)]);
    assert.equal(a.output, "one");
    assert.equal(b.output, "two");
    assert.deepEqual(a.messages, []);
  } finally {
    p.kill();
  }
});

Deno.test("RizinPipe returns stderr messages beside the output of the command that logged them", async () => {
  const p = await start();
  try {
    const f = await p.run("fail", 5000);
    assert.equal(f.output, "");
    assert.deepEqual(f.messages, ["ERROR: it failed"]);
    const w = await p.run("warn", 5000);
    assert.equal(w.output, "done");
    assert.deepEqual(w.messages, ["WARNING: careful"]);
    assert.deepEqual((await p.run("echo x", 5000)).messages, []);
  } finally {
    p.kill();
  }
});

Deno.test("RizinPipe with a stderr fence cuts messages at the fence's line", async () => {
  const p = await start();
  p.useFence({ command: "fence", marker: "'fence'" });
  try {
    const f = await p.run("fail", 5000);
    assert.deepEqual(f.messages, ["ERROR: it failed"]);
    const e = await p.run("echo quiet", 5000);
    assert.equal(e.output, "quiet");
    assert.deepEqual(e.messages, []);
  } finally {
    p.kill();
  }
});

Deno.test("RizinPipe kills a command that times out and fails later calls", async () => {
  const p = await start();
  const t0 = Date.now();
  await assert.rejects(
    p.run("slow", 200),
    (e: unknown) => e instanceof RemcpError && e.code === "Timeout",
  );
  // Uninterrupted, "slow" takes 20 s.
  assert.ok(Date.now() - t0 < 15_000, "the timeout fired before the command ended");
  await p.exited;
  assert.ok(p.dead);
  await assert.rejects(p.run("echo x", 1000), RemcpError);
});

Deno.test("RizinPipe.start fails with OpenFailed when the child exits before its ready NUL", async () => {
  await assert.rejects(
    RizinPipe.start(["sh", "-c", "echo 'ERROR: cannot open file' >&2; exit 1"], {
      startupTimeoutMs: 5000,
    }),
    (e: unknown) => e instanceof RemcpError && e.code === "OpenFailed",
  );
});
