import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { type InvokeHandler, SandboxPool, type SandboxRunResult } from "./pool.ts";
import { type SandboxChild, spawnSandboxChild } from "./sandbox_child.ts";
import { spawnSandboxThread } from "./sandbox_thread.ts";

const echo: InvokeHandler = (name, args) => Promise.resolve({ name, args });

const CPU_MS = 1000;
/**
 * A backstop only: the limits under test are CPU time and memory, which a busy machine does not
 * change, while the wall clock of a run (process start included) it stretches without bound.
 */
const WALL_MS = 120_000;
/** Memory bombs get CPU enough that only the memory limit can end them. */
const MEMORY_BOMB = { cpuMs: 30_000 };

function ok(r: SandboxRunResult): unknown {
  assert.ok(r.ok, `expected success, got ${r.ok ? "" : `${r.error.code}: ${r.error.message}`}`);
  return r.result;
}

function err(r: SandboxRunResult): RemcpError {
  assert.ok(!r.ok, `expected an error, got ${JSON.stringify(r)}`);
  return r.error;
}

/** Every test runs against both homes of the sandbox: the default child process and the thread. */
const KINDS = [["process", spawnSandboxChild], ["thread", spawnSandboxThread]] as const;

async function withPoolOf(
  fn: (pool: SandboxPool) => Promise<void>,
  options: ConstructorParameters<typeof SandboxPool>[0] = {},
): Promise<void> {
  const pool = new SandboxPool(options);
  try {
    await pool.warm();
    await fn(pool);
  } finally {
    await pool.close();
  }
}

for (const [kind, spawn] of KINDS) {
  const withPool: typeof withPoolOf = (fn, options = {}) => withPoolOf(fn, { spawn, ...options });

  Deno.test(`SandboxPool.run() [${kind}] ends hostile scripts with the right error, then runs normal ones`, async (t) => {
    await withPool(async (pool) => {
      // [name, code, expected error, limits]
      const invokeFlood = { cpuMs: 10_000 };
      const hostile: [string, string, string, { cpuMs?: number; wallMs?: number }?][] = [
        ["infinite loop", "while (1) {}", "SandboxTimeout"],
        [
          "sort loop on a large array",
          "const arr = Array.from({ length: 200000 }, (_, i) => (i * 7919) % 100003);\n" +
          "while (1) arr.sort()",
          "SandboxTimeout",
          // A native sort does not poll the interrupt handler: the wall clock ends this one.
          { wallMs: 10_000 },
        ],
        ["catastrophic regex", '/(a+)+$/.test("a".repeat(40) + "b")', "SandboxTimeout"],
        [
          "string doubling",
          "let s = 'x'; while (true) { s += s; s.indexOf('y') }",
          "SandboxMemory",
          MEMORY_BOMB,
        ],
        [
          "array push",
          "const a = []; while (true) a.push([a.length])",
          "SandboxMemory",
          MEMORY_BOMB,
        ],
        ["huge typed array", "new Uint8Array(1e9)", "SandboxMemory", MEMORY_BOMB],
        [
          "ArrayBuffers",
          "const bs = []; while (true) bs.push(new ArrayBuffer(1 << 20))",
          "SandboxMemory",
          MEMORY_BOMB,
        ],
        ["deep recursion", "function f(n) { return f(n + 1) + n }\nf(0)", "SandboxError"],
        [
          "100,000 invokes",
          "for (let i = 0; i < 100000; i++) await invoke('t', { i })",
          "SandboxError",
          invokeFlood,
        ],
        [
          "100,000 invokes at once",
          "await Promise.all(Array.from({ length: 100000 }, (_, i) => invoke('t', { i })))",
          "SandboxError",
          invokeFlood,
        ],
        ["huge return value", "'x'.repeat(5 * 1024 * 1024)", "OutputTooLarge"],
        ["throw 42", "throw 42", "SandboxError"],
        ["throw an object", "throw { a: 1 }", "SandboxError"],
        ["never-settling promise", "await new Promise(() => {})", "SandboxError"],
      ];
      for (const [name, code, expected, budget] of hostile) {
        await t.step(name, async () => {
          const started = performance.now();
          const r = await pool.run(code, {
            invoke: echo,
            timeoutMs: budget?.wallMs ?? WALL_MS,
            limits: { cpuMs: budget?.cpuMs ?? CPU_MS },
          });
          const elapsed = performance.now() - started;
          const error = err(r);
          assert.equal(error.code, expected, `${name}: ${error.message}`);
          console.error(`  ${name}: ${error.code} after ${elapsed.toFixed(0)} ms`);
          assert.equal(ok(await pool.run("6 * 7", { invoke: echo, timeoutMs: WALL_MS })), 42);
        });
      }
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] keeps a huge console.log within the log limit`, async () => {
    await withPool(async (pool) => {
      const r = await pool.run(
        "const line = 'y'.repeat(10000); for (let i = 0; i < 1000; i++) console.log(line); 'done'",
        { invoke: echo, timeoutMs: WALL_MS },
      );
      assert.equal(ok(r), "done");
      assert.ok(r.logs.endsWith("[log truncated]\n"));
      assert.ok(r.logs.length <= 64 * 1024 + 20, `logs are ${r.logs.length} chars`);
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] does not leak prototype pollution into the next run`, async () => {
    await withPool(async (pool) => {
      ok(
        await pool.run("Object.prototype.polluted = 1; globalThis.leak = 2; 0", {
          invoke: echo,
          timeoutMs: WALL_MS,
        }),
      );
      const r = await pool.run("[typeof ({}).polluted, typeof leak]", {
        invoke: echo,
        timeoutMs: WALL_MS,
      });
      assert.deepEqual(ok(r), ["undefined", "undefined"]);
    }, { size: 1 });
  });

  Deno.test(`SandboxPool.run() [${kind}] shows the script no host capabilities`, async () => {
    await withPool(async (pool) => {
      const r = await pool.run(
        "[typeof fetch, typeof Deno, typeof process, typeof require, typeof setTimeout,\n" +
          " typeof WebAssembly, typeof database, typeof file]",
        { invoke: echo, timeoutMs: WALL_MS, globals: { database: "db1", file: "/bin/ls" } },
      );
      assert.deepEqual(ok(r), [
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "string",
        "string",
      ]);
      const imported = err(
        await pool.run("await import('./x.js')", { invoke: echo, timeoutMs: WALL_MS }),
      );
      assert.equal(imported.code, "SandboxError");
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] returns the last expression or the return value`, async () => {
    await withPool(async (pool) => {
      assert.deepEqual(
        ok(await pool.run("const x = 20;\n({ x: x + 1 })", { invoke: echo, timeoutMs: WALL_MS })),
        {
          x: 21,
        },
      );
      assert.equal(
        ok(await pool.run("return 'early';\n1", { invoke: echo, timeoutMs: WALL_MS })),
        "early",
      );
      assert.equal(ok(await pool.run("undefined", { invoke: echo, timeoutMs: WALL_MS })), null);
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] round-trips invoke results and RemcpErrors to the script`, async () => {
    await withPool(async (pool) => {
      const invoke: InvokeHandler = (name, args) => {
        if (name === "missing") {
          return Promise.reject(
            new RemcpError("NotFound", "No function named nope", { nearest: "main" }),
          );
        }
        return Promise.resolve({ got: args, name });
      };
      const r = await pool.run(
        "const a = await invoke('list_functions', { database, limit: 3 });\n" +
          "let b;\ntry { await invoke('missing', {}) } catch (e) { b = [e.message, e.code, e.detail] }\n" +
          "console.log('a is', a);\n[a, b]",
        { invoke, timeoutMs: WALL_MS, globals: { database: "db7" } },
      );
      assert.deepEqual(ok(r), [
        { got: { database: "db7", limit: 3 }, name: "list_functions" },
        ["No function named nope", "NotFound", { nearest: "main" }],
      ]);
      assert.equal(r.logs, 'a is {"got":{"database":"db7","limit":3},"name":"list_functions"}\n');
      assert.equal(r.stats.invokes, 2);
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] runs the invokes of Promise.all concurrently`, async () => {
    await withPool(async (pool) => {
      let inFlight = 0;
      let peak = 0;
      const all = Promise.withResolvers<void>();
      const invoke: InvokeHandler = async (_name, args) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        if (inFlight === 100) all.resolve();
        await all.promise;
        inFlight--;
        return { args };
      };
      const r = await pool.run(
        "(await Promise.all(Array.from({ length: 100 }, (_, i) => invoke('t', { i })))).length",
        { invoke, timeoutMs: WALL_MS },
      );
      assert.equal(ok(r), 100);
      assert.equal(peak, 100);
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] streams console output to onLog`, async () => {
    await withPool(async (pool) => {
      const seen: string[] = [];
      const r = await pool.run("console.log('one'); console.error('two'); 3", {
        invoke: echo,
        timeoutMs: WALL_MS,
        onLog: (level, text) => seen.push(`${level}:${text}`),
      });
      assert.equal(ok(r), 3);
      assert.deepEqual(seen, ["log:one\n", "error:[error] two\n"]);
      assert.equal(r.logs, "one\n[error] two\n");
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] times out a script waiting on a slow invoke and reuses the process`, async () => {
    await withPool(async (pool) => {
      let signalled = false;
      const invoke: InvokeHandler = (_name, _args, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            signalled = true;
            reject(new Error("aborted"));
          });
        });
      // The wall clock starts with the script, which reaches its invoke in far less than the
      // limit even on a busy machine.
      const r = await pool.run("console.log('before'); await invoke('slow', {})", {
        invoke,
        timeoutMs: 5000,
      });
      const error = err(r);
      assert.equal(error.code, "SandboxTimeout");
      assert.equal(error.detail.pending_invokes, 1);
      assert.equal(r.logs, "before\n");
      assert.ok(signalled, "the host invoke is told the run is over");
      assert.equal(ok(await pool.run("1", { invoke: echo, timeoutMs: WALL_MS })), 1);
    }, { size: 1 });
  });

  Deno.test(`SandboxPool.run() [${kind}] ends with Cancelled when its signal aborts`, async () => {
    await withPool(async (pool) => {
      const abort = new AbortController();
      const invoke: InvokeHandler = () => {
        abort.abort();
        return new Promise(() => {});
      };
      const r = await pool.run("await invoke('hang', {})", {
        invoke,
        timeoutMs: WALL_MS,
        signal: abort.signal,
      });
      assert.equal(err(r).code, "Cancelled");
      assert.equal(ok(await pool.run("2", { invoke: echo, timeoutMs: WALL_MS })), 2);
    });
  });

  Deno.test(`SandboxPool.run() [${kind}] reports a process that dies mid-run as SandboxError with its stderr`, async () => {
    const children: SandboxChild[] = [];
    const spawnTracked = () => {
      const child = spawn();
      children.push(child);
      return child;
    };
    await withPool(async (pool) => {
      const invoke: InvokeHandler = () => {
        for (const c of children) c.kill();
        return new Promise(() => {});
      };
      const r = await pool.run("await invoke('x', {})", { invoke, timeoutMs: WALL_MS });
      const error = err(r);
      assert.equal(error.code, "SandboxError");
      assert.match(
        error.message,
        kind === "thread" ? /thread was terminated/ : /killed by SIGKILL/,
      );
      assert.equal(ok(await pool.run("'alive'", { invoke: echo, timeoutMs: WALL_MS })), "alive");
    }, { size: 1, spawn: spawnTracked });
  });

  Deno.test(`SandboxPool.run() [${kind}] runs scripts in parallel on separate processes`, async () => {
    await withPool(async (pool) => {
      const gate = Promise.withResolvers<void>();
      let waiting = 0;
      const invoke: InvokeHandler = async () => {
        if (++waiting === 3) gate.resolve();
        await gate.promise;
        return {};
      };
      const runs = await Promise.all(
        [1, 2, 3].map((n) =>
          pool.run(`await invoke('t', {}); ${n}`, { invoke, timeoutMs: WALL_MS })
        ),
      );
      assert.deepEqual(runs.map(ok), [1, 2, 3]);
    }, { size: 2 });
  });

  Deno.test(`SandboxPool.run() [${kind}] on a cold pool does not count start-up as the script's time`, async () => {
    // No warm(): the process starts inside run(). A script's clock (its timeout, its wallMs) starts
    // once a process is ready, so timeout_s 0.1 can run `1` on a cold pool. Asserting the timeout
    // itself would race a loaded machine; the clock's start is what the fix moved.
    const pool = new SandboxPool({ size: 1, spawn });
    try {
      const t0 = performance.now();
      const r = await pool.run("1", { timeoutMs: 60_000, invoke: echo });
      const total = performance.now() - t0;
      assert.equal(ok(r), 1);
      // Starting a Deno process and QuickJS takes hundreds of ms; none of it is the script's.
      assert.ok(total - r.stats.wallMs >= 50, `wallMs ${r.stats.wallMs} of ${total} ms in all`);
    } finally {
      await pool.close();
    }
  });

  Deno.test(`SandboxPool.run() [${kind}] cuts a 15 MiB result to fitResultBytes before sending it`, async () => {
    // What the host receives, line by line: the cut must happen on the sandbox's side.
    let longest = 0;
    const measured = (): SandboxChild => {
      const child = spawn();
      return {
        ...child,
        kind: child.kind,
        exited: child.exited,
        listen: (onLine) =>
          child.listen((line) => {
            longest = Math.max(longest, line.length);
            onLine(line);
          }),
      };
    };
    await withPool(async (pool) => {
      const r = await pool.run("'x'.repeat(15 * 1024 * 1024)", {
        invoke: echo,
        timeoutMs: WALL_MS,
        limits: { maxOutputBytes: 16 * 1024 * 1024 },
        fitResultBytes: 128 * 1024,
      });
      const value = ok(r);
      assert.ok(typeof value === "string" && value.length <= 128 * 1024, "the string is cut");
      assert.ok(r.ok && r.cut.some((note) => note.includes("15728640")), "the cut is reported");
      assert.ok(longest < 256 * 1024, `the host received a ${longest}-character line`);
    }, { size: 1, spawn: measured });
  });
}
