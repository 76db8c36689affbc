/**
 * The supervisor ↔ worker hop over the worker's own stdin and stdout (src/child_pipes.ts): real
 * worker processes started the way the pool starts them, driven through `WorkerProcess`.
 */
import assert from "node:assert/strict";
import { RemcpError } from "../src/errors.ts";
import { createLogger } from "../src/log.ts";
import type { ToolResult } from "../src/protocol/results.ts";
import { WorkerProcess } from "../src/supervisor/worker_process.ts";
import { remcpEnv } from "./_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const RAW = { raw: true, arch: "x86_64", base: 0 };
const linux = Deno.build.os === "linux";

/** A worker for a raw file of `bytes`, in a fresh state folder; removed by `fn`'s end. */
async function withWorker(
  bytes: Uint8Array,
  fn: (worker: WorkerProcess, stderr: string[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "remcp-pipes-" });
  const path = `${dir}/blob.bin`;
  await Deno.writeFile(path, bytes);
  const stderr: string[] = [];
  const log = createLogger("test", { level: "debug", write: (l) => void stderr.push(l) });
  const worker = await WorkerProcess.start({
    backend: "embedded",
    path,
    options: RAW,
    databaseId: "pipes",
    // The output cap raised, so that 64 KiB read whole (256 KiB of JSON) is answered as it is.
    env: remcpEnv(`${dir}/state`, { REMCP_LOG_LEVEL: "info", REMCP_MAX_OUTPUT_BYTES: "4194304" }),
    log,
  });
  try {
    await untilLoaded(worker);
    await fn(worker, stderr);
  } finally {
    await worker.close(2000);
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Waits (a condition, polled) until the worker has loaded its file: a call before that is refused
 * with Busy ("still loading"), which a busy machine makes likely for the first calls.
 */
async function untilLoaded(worker: WorkerProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await worker.callStructured("read_bytes", { address: "0x0", size: 1 }, { timeoutMs: 60_000 });
      return;
    } catch (err) {
      if (!(err instanceof RemcpError) || err.code !== "Busy" || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test(
  "a worker speaks over its own pipes: big answers at once come back whole, a 1 MiB request is read",
  e2e,
  async () => {
    const bytes = crypto.getRandomValues(new Uint8Array(64 * 1024));
    await withWorker(bytes, async (worker) => {
      if (linux) {
        for (const fd of [0, 1]) {
          assert.match(await Deno.readLink(`/proc/${worker.pid}/fd/${fd}`), /^pipe:/);
        }
      }
      // 20 answers of 16–64 KiB each (128 KiB of hex, twice: text and structured content),
      // several times what a pipe holds, asked for at once.
      const reads = Array.from({ length: 20 }, (_, i) => {
        const size = i % 4 === 0 ? 64 * 1024 : 16 * 1024;
        const address = i % 4 === 0 ? 0 : (i * 1024) % (48 * 1024);
        return { address, size };
      });
      const answers = await Promise.all(reads.map((r) =>
        worker.callStructured("read_bytes", {
          address: `0x${r.address.toString(16)}`,
          size: r.size,
        }, { timeoutMs: 60_000 })
      ));
      answers.forEach((a, i) => {
        const { address, size } = reads[i]!;
        assert.equal(a.hex, hex(bytes.subarray(address, address + size)), `read ${i}`);
      });
      // A request far over a pipe's 64 KiB crosses whole: the worker answers it (refusing the
      // unknown argument or ignoring it), and the next call finds the line boundaries intact.
      const big: ToolResult = await worker.call(
        "read_bytes",
        { address: "0x0", size: 16, padding: "x".repeat(1024 * 1024) },
        { timeoutMs: 60_000 },
      );
      assert.ok(Array.isArray(big.content));
      const after = await worker.callStructured("read_bytes", { address: "0x10", size: 16 }, {
        timeoutMs: 60_000,
      });
      assert.equal(after.hex, hex(bytes.subarray(16, 32)));
    });
  },
);

Deno.test(
  "a worker killed in the middle of a call: the call fails with WorkerCrashed and its stderr",
  e2e,
  async () => {
    await withWorker(new Uint8Array(4096), async (worker) => {
      // Stopped, the worker reads nothing: a 1 MiB request fills its stdin and waits there.
      Deno.kill(worker.pid, "SIGSTOP");
      const call = worker.call(
        "read_bytes",
        { address: "0x0", size: 16, padding: "x".repeat(1024 * 1024) },
        { timeoutMs: 60_000 },
      );
      Deno.kill(worker.pid, "SIGKILL");
      const err = await call.then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof RemcpError, String(err));
      assert.equal(err.code, "WorkerCrashed", err.message);
      assert.match(err.message, /killed by SIGKILL/);
      assert.match(err.message, /Reopen the file with open_database/);
      assert.ok(Array.isArray(err.detail.stderr));
      // The next call is refused at once, with the same error.
      const next = await worker.call("read_bytes", { address: "0x0", size: 16 }, {
        timeoutMs: 60_000,
      }).then(() => undefined, (e: unknown) => e);
      assert.ok(next instanceof RemcpError && next.code === "WorkerCrashed", String(next));
    });
  },
);

Deno.test("a worker's stderr still reaches the supervisor's log over the pipes", e2e, async () => {
  await withWorker(new Uint8Array(4096), async (worker, stderr) => {
    // A grace long enough for a busy machine: the worker exits as soon as it has stopped.
    await worker.close(30_000);
    // The worker logs its stop at info level to stderr, which the supervisor copies at debug;
    // the copy may trail the exit by a read or two.
    const logged = () => worker.stderrTail().some((l) => /stopping/.test(l));
    for (let i = 0; i < 2400 && !logged(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(logged(), worker.stderrTail().join("\n"));
    assert.ok(stderr.some((l) => /stopping/.test(l)));
  });
});
