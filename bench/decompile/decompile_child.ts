/**
 * Child process of the decompile benchmark: opens one binary with the embedded backend
 * in-process, then calls `decompile_function` through the worker's own tool runner (argument
 * parsing, Busy checks and error mapping as the server does) for each requested address, and
 * prints one NDJSON line per function. The parent (engine_runner.ts) restarts it past a function
 * that hangs or kills it.
 *
 *   deno run -A bench/decompile/decompile_child.ts BINARY STATE_DIR ADDRESSES_FILE|--list
 *
 * Line shapes: `{"ready":true,"seconds":S}` once, then per function `{"address","started":true}`
 * and `{"address","ok":true,"ms","disasm_ms","result"}` or
 * `{"address","ok":false,"ms","disasm_ms","error_type","error"}` (`disasm_ms`: the same
 * function through disassemble_function, the reference the benchmark divides by;
 * `instructions`: how many it lists).
 * With `--list`, one line `{"addresses":[…]}`: every function the analysis found, in address
 * order.
 */
import { cpuUsage } from "node:process";
import { loadConfig, VERSION } from "../../src/config.ts";
import { createLogger, stderrSink } from "../../src/log.ts";
import type { HandlerContext } from "../../workers/backend.ts";
import { createEmbedded } from "../../workers/embedded/embedded_backend.ts";
import { runTool } from "../../workers/tool_server.ts";

const encoder = new TextEncoder();

function emit(value: Record<string, unknown>): void {
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(value) + "\n"));
}

async function main(): Promise<void> {
  const [binary, stateDir, which] = Deno.args;
  if (!binary || !stateDir || !which) {
    console.error("usage: decompile_child.ts BINARY STATE_DIR ADDRESSES_FILE|--list");
    Deno.exit(2);
  }
  const config = loadConfig({ REMCP_STATE_DIR: stateDir, REMCP_LOG_LEVEL: "error" });
  const log = createLogger("bench", stderrSink("error", undefined, "bench"));
  const t0 = performance.now();
  const e = createEmbedded({ config, log });
  e.open(binary, {});
  // The backend loads in the background: wait for its state to leave loading/analysing.
  while (["loading", "analysing"].includes(e.backend.status().state)) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const status = e.backend.status();
  if (status.state !== "ready") {
    emit({ ready: false, error: status.error?.error ?? "the database failed to open" });
    Deno.exit(1);
  }
  const tools = new Map(e.backend.tools().map((t) => [t.spec.name, t]));
  const decompile = tools.get("decompile_function");
  const listing = tools.get("list_functions");
  const disassemble = tools.get("disassemble_function");
  if (!decompile || !listing || !disassemble) {
    throw new Error("the embedded backend lacks a needed tool");
  }
  const ctx: HandlerContext = { signal: new AbortController().signal, progress: () => {} };
  const options = { version: VERSION, maxOutputBytes: 64 * 1024 * 1024 };

  if (which === "--list") {
    const addresses: string[] = [];
    for (let offset = 0;;) {
      const page = await runTool(e.backend, listing, { offset, limit: 1000 }, ctx, options);
      if (page.isError) throw new Error(`list_functions failed: ${page.content[0]?.text}`);
      const sc = page.structuredContent as { items: { start: string }[]; has_more: boolean };
      addresses.push(...sc.items.map((f) => f.start));
      if (!sc.has_more) break;
      offset += sc.items.length;
    }
    addresses.sort((a, b) => Number(a) - Number(b));
    emit({ addresses });
    await e.backend.close();
    return;
  }
  const addresses = JSON.parse(await Deno.readTextFile(which)) as string[];
  emit({ ready: true, seconds: Math.round(performance.now() - t0) / 1000 });
  for (const address of addresses) {
    emit({ address, started: true });
    const t = performance.now();
    const cpu0 = cpuUsage();
    const r = await runTool(e.backend, decompile, { address }, ctx, options);
    const cpu = cpuUsage(cpu0);
    const ms = Math.round((performance.now() - t) * 1000) / 1000;
    // CPU time of the whole process (all threads): what the work costs, whatever the load.
    const cpu_ms = (cpu.user + cpu.system) / 1000;
    // The reference in the same run: listing the same function's instructions.
    const t2 = performance.now();
    const listed = await runTool(e.backend, disassemble, { address, limit: 10_000 }, ctx, options);
    const disasm_ms = Math.round((performance.now() - t2) * 1000) / 1000;
    const total = listed.structuredContent?.total;
    const instructions = typeof total === "number" ? total : undefined;
    const sc = r.structuredContent ?? {};
    if (r.isError) {
      emit({
        address,
        ok: false,
        ms,
        cpu_ms,
        disasm_ms,
        instructions,
        error_type: sc.error_type,
        error: sc.error,
      });
    } else {
      emit({ address, ok: true, ms, cpu_ms, disasm_ms, instructions, result: sc });
    }
  }
  await e.backend.close();
}

if (import.meta.main) await main();
