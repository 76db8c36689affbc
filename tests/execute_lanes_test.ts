/**
 * Invoke lanes end to end (docs/ARCHITECTURE.md section 2): real worker processes on sockets, a
 * real sandbox process, the supervisor in this process. Lane invokes must answer exactly as the
 * supervisor's path does; these tests run the same scripts with lanes on and off and compare.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../src/config.ts";
import { createLogger, stderrSink } from "../src/log.ts";
import { createSupervisor } from "../src/supervisor/create.ts";
import { workerEnv } from "../src/supervisor/pool.ts";
import type { CallContext } from "../src/supervisor/host.ts";
import type { Supervisor } from "../src/supervisor/supervisor.ts";
import { runScript } from "../src/meta/run_script.ts";
import { fixture } from "./_harness.ts";
import { findRizin } from "../src/probes/rizin.ts";

const e2e = {
  sanitizeOps: false,
  sanitizeResources: false,
  ignore: Deno.build.os === "windows",
};

function context(session = "lanes"): CallContext {
  return { session, signal: new AbortController().signal, progress() {}, via: "client" };
}

async function withSupervisor(
  env: Record<string, string>,
  body: (sup: Supervisor, ctx: CallContext) => Promise<void>,
  workerOnly: Record<string, string> = {},
): Promise<void> {
  const stateDir = await Deno.makeTempDir({ prefix: "remcp-lanes-test-" });
  const config = loadConfig({ REMCP_STATE_DIR: stateDir, REMCP_LOG_LEVEL: "error", ...env });
  // Worker-only variables go to the workers alone: Deno.env is shared by every test file that
  // runs in parallel, and a delay set there held other files' analyses for a minute.
  const sup = createSupervisor(config, createLogger("test", stderrSink("error", undefined, "t")), {
    workerEnv: { ...workerEnv(config), ...workerOnly },
  });
  try {
    await body(sup, context());
  } finally {
    await sup.shutdown();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

async function open(sup: Supervisor, ctx: CallContext, name: string): Promise<string> {
  const r = await sup.callTool("open_database", { path: fixture(name) }, ctx);
  assert.notEqual(r.isError, true, r.content[0]?.text);
  const database = String(r.structuredContent?.database);
  await sup.callTool("wait_for_analysis", { database }, ctx);
  return database;
}

function script(sup: Supervisor, ctx: CallContext, code: string, database?: string) {
  return runScript(sup, ctx, { code, database, timeoutMs: 60_000 });
}

/** Runs `body` with lanes on, then off, and returns both outcomes. */
async function onAndOff<T>(
  env: Record<string, string>,
  body: (sup: Supervisor, ctx: CallContext) => Promise<T>,
  workerOnly: Record<string, string> = {},
): Promise<[T, T]> {
  const out: T[] = [];
  for (const lanes of ["1", "0"]) {
    await withSupervisor({ ...env, REMCP_LANES: lanes }, async (sup, ctx) => {
      out.push(await body(sup, ctx));
    }, workerOnly);
  }
  return [out[0]!, out[1]!];
}

/** A script's try/catch that records what the guest sees of each failure. */
const TRY_EACH = `async function tryEach(calls) {
  const out = [];
  for (const [tool, args] of calls) {
    try { out.push({ ok: await invoke(tool, args) }); }
    catch (e) { out.push({ name: e.name, code: e.code, message: e.message, detail: e.detail }); }
  }
  return out;
}`;

Deno.test("lane invokes give the values and errors the supervisor's path gives", e2e, async () => {
  for (const allowScripts of ["0", "1"]) {
    const [on, off] = await onAndOff({ REMCP_ALLOW_SCRIPTS: allowScripts }, async (sup, ctx) => {
      await open(sup, ctx, "elf_x86_64_gcc_O2");
      return await script(
        sup,
        ctx,
        `${TRY_EACH}
         const first = await invoke("list_functions", { limit: 5 });
         const rows = await tryEach([
           ["list_functions", { limit: 5 }],
           ["list_functions", { limit: "ten" }],
           ["list_functions", { limit: 5, colour: "red" }],
           ["disassemble", { address: "no_such_symbol" }],
           ["rename", { address: "main", name: "lane_main" }],
           ["get_function", { address: "lane_main" }],
           ["command", { command: "afl" }],
           ["get_database_info", { database: "ghost" }],
           ["list_functions", { database: null, limit: 1 }],
           ["no_such_tool", {}],
         ]);
         ({ first, rows })`,
      );
    });
    // The lane to the only database is granted as the run starts: the tools on it go over it,
    // the first invoke too, the others (refused by the dispatcher) through the supervisor.
    assert.deepEqual(on.result, off.result);
    assert.equal(on.stats.invokes, 11);
    assert.equal(off.stats.laneInvokes, undefined, "REMCP_LANES=0 grants no lane");
    assert.equal(on.stats.laneInvokes, 7, JSON.stringify(on.result));
  }
});

Deno.test("a lane answers Busy while the file analyses, as the supervisor does", e2e, async () => {
  const [on, off] = await onAndOff({}, async (sup, ctx) => {
    const r = await sup.callTool("open_database", { path: fixture("elf_x86_64_gcc_O2") }, ctx);
    assert.notEqual(r.isError, true, r.content[0]?.text);
    for (let i = 0; i < 2000; i++) {
      if (!(await sup.callTool("list_sections", {}, ctx)).isError) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    return await script(
      sup,
      ctx,
      `${TRY_EACH}
       await invoke("list_sections", {});
       await tryEach([["list_functions", {}], ["list_sections", {}], ["decompile_function", { address: "main" }]])`,
    );
  }, { REMCP_DEBUG_ANALYSIS_DELAY_MS: "60000" });
  assert.deepEqual(on.result, off.result);
  assert.equal((on.result as { code?: string }[])[0]!.code, "Busy");
  assert.equal(on.stats.laneInvokes, 4);
});

Deno.test("a script spanning two databases gets a lane to each", e2e, async () => {
  const [on, off] = await onAndOff({}, async (sup, ctx) => {
    const a = await open(sup, ctx, "elf_x86_64_gcc_O2");
    const b = await open(sup, ctx, "pe_x86_64_O2.exe");
    const r = await script(
      sup,
      ctx,
      `const out = [];
       for (let i = 0; i < 5; i++) {
         const [x, y, z] = await Promise.all([
           invoke("list_functions", { limit: 2 }),
           invoke("list_functions", { limit: 2, database: ${JSON.stringify(b)} }),
           invoke("list_segments", { database: ${JSON.stringify(a)} }),
         ]);
         out.push([x, y, z]);
       }
       out`,
      a,
    );
    return r;
  });
  assert.deepEqual(on.result, off.result);
  assert.equal(on.stats.invokes, 15);
  // The lane to a, the default database, is granted as the run starts; b's first invoke goes
  // through the supervisor (which grants b's lane), the rest over the lanes.
  assert.ok((on.stats.laneInvokes ?? 0) >= 14, String(on.stats.laneInvokes));
});

Deno.test(
  "with no default and two databases open, no lane is granted at the start and a bare invoke is refused",
  e2e,
  async () => {
    const [on, off] = await onAndOff({}, async (sup, ctx) => {
      await open(sup, ctx, "elf_x86_64_gcc_O2");
      const b = await open(sup, ctx, "pe_x86_64_O2.exe");
      return await script(
        sup,
        ctx,
        `${TRY_EACH}
         await tryEach([
           ["list_functions", { limit: 1 }],
           ["list_functions", { limit: 1, database: ${JSON.stringify(b)} }],
           ["list_functions", { limit: 1, database: ${JSON.stringify(b)} }],
           ["list_functions", { limit: 1 }],
         ])`,
      );
    });
    assert.deepEqual(on.result, off.result);
    assert.equal((on.result as { code?: string }[])[0]!.code, "InvalidArgument");
    // Only b's second invoke goes over a lane: its first, through the supervisor, granted it.
    assert.equal(on.stats.laneInvokes, 1);
  },
);

Deno.test(
  "a script's first invoke goes over the lane granted as the run starts, in each sandbox run",
  e2e,
  async () => {
    await withSupervisor({}, async (sup, ctx) => {
      const database = await open(sup, ctx, "elf_x86_64_gcc_O2");
      const info = await sup.callTool("get_database_info", { database }, ctx);
      for (const db of [undefined, database]) {
        for (let i = 0; i < 3; i++) {
          const r = await script(sup, ctx, `await invoke("get_database_info", {})`, db);
          assert.deepEqual(r.result, info.structuredContent);
          assert.equal(r.stats.invokes, 1);
          assert.equal(r.stats.laneInvokes, 1, `run ${i}, default database ${db}`);
        }
      }
      // A script that never names invoke makes no lane (and no worker connection).
      const quiet = await script(sup, ctx, "1 + 1");
      assert.equal(quiet.result, 2);
      assert.equal(quiet.stats.laneInvokes, undefined);
    });
  },
);

/**
 * Runs a script that invokes until it fails, doing `act` once the script has made `after`
 * invokes (seen through execute's progress), and returns the error the script saw.
 */
async function interrupted(
  env: Record<string, string>,
  act: (sup: Supervisor, database: string) => Promise<unknown>,
): Promise<{ code: string; message: string; n: number; lanes: number | undefined }> {
  let outcome: { code: string; message: string; n: number; lanes: number | undefined } | undefined;
  await withSupervisor(env, async (sup, ctx) => {
    const database = await open(sup, ctx, "elf_x86_64_gcc_O2");
    let acted: Promise<unknown> | undefined;
    const r = await runScript(sup, {
      ...ctx,
      progress(done) {
        if (done >= 30) acted ??= act(sup, database);
      },
    }, {
      code: `let n = 0;
        try { for (;;) { await invoke("list_functions", { limit: 3 }); n++; } }
        catch (e) { return { code: e.code, message: e.message, n }; }`,
      timeoutMs: 60_000,
    });
    await acted;
    const result = r.result as { code: string; message: string; n: number };
    outcome = { ...result, lanes: r.stats.laneInvokes };
  });
  return outcome!;
}

Deno.test(
  "close_database mid-script: the next invoke is refused as without lanes",
  e2e,
  async () => {
    const close = (sup: Supervisor, database: string) =>
      sup.callTool("close_database", { database }, context());
    const on = await interrupted({ REMCP_LANES: "1" }, close);
    const off = await interrupted({ REMCP_LANES: "0" }, close);
    assert.equal(on.code, "NoDatabase", on.message);
    assert.equal(off.code, "NoDatabase", off.message);
    // 30 invokes done when it closed, all over the lane granted as the run started.
    assert.ok((on.lanes ?? 0) >= 30, `lanes carried ${on.lanes}`);
  },
);

Deno.test(
  "a worker killed mid-script: the script sees WorkerCrashed, as without lanes",
  e2e,
  async () => {
    const kill = (sup: Supervisor, database: string) => {
      sup.pool.resolve(database, "lanes").worker.kill();
      return Promise.resolve();
    };
    const on = await interrupted({ REMCP_LANES: "1" }, kill);
    const off = await interrupted({ REMCP_LANES: "0" }, kill);
    assert.equal(on.code, "WorkerCrashed", on.message);
    assert.equal(off.code, "WorkerCrashed", off.message);
    // The kill came at 30 invokes done, all of them over the lane granted as the run started.
    assert.ok((on.lanes ?? 0) >= 30, `lanes carried ${on.lanes}`);
  },
);

Deno.test(
  "an execute stopped at its deadline leaves the worker usable and its annotations intact",
  e2e,
  async () => {
    await withSupervisor({}, async (sup, ctx) => {
      const database = await open(sup, ctx, "elf_x86_64_gcc_O2");
      // One comment written before, so there is an annotation to keep even when the machine is
      // so busy that the looping script below reaches its deadline before its first invoke
      // returns (a fresh sandbox's first run is charged its engine's warm-up: ~0.4 CPU s).
      const first = await runScript(sup, ctx, {
        code: `await invoke("set_comment", { address: "main", comment: "lane first" })`,
        timeoutMs: 60_000,
      });
      assert.equal(first.stats.laneInvokes, 1);
      const r = await sup.callTool("execute", {
        timeout_s: 1,
        code: `for (let i = 0; ; i++) {
          await invoke("set_comment", { address: "main", comment: "lane " + i });
        }`,
      }, ctx);
      assert.equal(r.isError, true);
      assert.equal(JSON.parse(r.content[0]!.text).error_type, "SandboxTimeout", r.content[0]!.text);
      // A busy guest is killed, not cancelled: its lanes close with the process.
      const killed = await sup.callTool("execute", {
        timeout_s: 1,
        code:
          `invoke("list_functions", {}).then(() => { for (;;) {} }); await invoke("list_functions", {});
               for (;;) {}`,
      }, ctx);
      assert.equal(
        JSON.parse(killed.content[0]!.text).error_type,
        "SandboxTimeout",
        killed.content[0]!.text,
      );
      const comments = await sup.callTool("list_comments", { database }, ctx);
      assert.notEqual(comments.isError, true, comments.content[0]?.text);
      assert.match(comments.content[0]!.text, /lane (first|\d+)/);
      const after = await runScript(sup, ctx, {
        code:
          `const out = []; for (let i = 0; i < 5; i++) out.push(await invoke("list_comments", {})); out`,
        timeoutMs: 60_000,
      });
      assert.equal(after.stats.laneInvokes, 5);
      assert.deepEqual((after.result as unknown[])[4], comments.structuredContent);
    });
  },
);

Deno.test("the thread sandbox runs without lanes", e2e, async () => {
  await withSupervisor({ REMCP_SANDBOX: "thread" }, async (sup, ctx) => {
    await open(sup, ctx, "elf_x86_64_gcc_O2");
    const r = await script(
      sup,
      ctx,
      `const out = []; for (let i = 0; i < 5; i++) out.push((await invoke("list_functions", { limit: 1 })).items.length); out`,
    );
    assert.deepEqual(r.result, [1, 1, 1, 1, 1]);
    assert.equal(r.stats.laneInvokes, undefined);
  });
});

const rizin = findRizin(Deno.env.get("REMCP_RIZIN"), Deno.env.toObject());
Deno.test(
  "a rizin worker serves lanes too, its answers as the supervisor's path gives them",
  { ...e2e, ignore: e2e.ignore || rizin === undefined },
  async () => {
    const [on, off] = await onAndOff(
      { REMCP_RIZIN: rizin ?? "", REMCP_ALLOW_SCRIPTS: "1" },
      async (sup, ctx) => {
        const r = await sup.callTool("open_database", {
          path: fixture("elf_x86_64_gcc_O0"),
          backend: "rizin",
        }, ctx);
        assert.notEqual(r.isError, true, r.content[0]?.text);
        await sup.callTool("wait_for_analysis", {}, ctx);
        return await script(
          sup,
          ctx,
          `${TRY_EACH}
           await invoke("list_functions", { limit: 3 });
           await tryEach([
             ["list_functions", { limit: 3 }],
             ["list_functions", { limit: -1 }],
             ["command", { command: "?e lane" }],
             ["disassemble", { address: "no_such_symbol" }],
           ])`,
        );
      },
    );
    assert.deepEqual(on.result, off.result);
    assert.equal(on.stats.laneInvokes, 5);
  },
);
