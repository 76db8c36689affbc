/**
 * remcp entry: parses the command line and dispatches a mode. Importing this module does nothing;
 * `main()` runs only when it is the program. Each mode's modules are imported only when that mode
 * runs, so a sandbox process never loads the engines and a worker never loads the MCP server.
 */
import { SANDBOX_THREAD_NAME } from "./sandbox/thread_name.ts";

/** Runs remcp with `args` (without the program name); resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
  // The sandbox process (remcp starts it; it reads no configuration) comes first, before the
  // command line's parser: cli.ts and config.ts import node:util and node:path, and the first
  // `node:` module sets up Deno's Node.js compatibility, ~4 MB of an idle sandbox process's
  // resident memory (bench/sandbox_start.ts, docs/ARCHITECTURE.md section 7).
  if (args[0] === "sandbox") {
    const { sandboxMain } = await import("./sandbox/sandbox_main.ts");
    await sandboxMain(args.slice(1));
    return 0;
  }
  const { parseCommandLine } = await import("./cli.ts");
  const cmd = parseCommandLine(args, Deno.env.toObject());
  switch (cmd.kind) {
    case "help":
    case "version":
      console.log(cmd.text);
      return 0;
    case "error":
      console.error(cmd.text);
      return 2;
  }
  switch (cmd.mode) {
    case "worker": {
      const { workerMain } = await import("../workers/worker_main.ts");
      return await workerMain(cmd.rest);
    }
    case "stdio": {
      const { stdioMode } = await import("./stdio_mode.ts");
      return await stdioMode(cmd.config);
    }
    case "run": {
      const { runMode } = await import("./run/run_mode.ts");
      return await runMode(cmd.config, cmd.rest);
    }
    case "serve": {
      const { serveMode } = await import("./daemon/serve.ts");
      return await serveMode(cmd.config, cmd.rest);
    }
    case "proxy": {
      const { proxyMode } = await import("./daemon/proxy.ts");
      return await proxyMode(cmd.config, cmd.flags);
    }
    case "stop": {
      const { stopMode } = await import("./daemon/stop.ts");
      return await stopMode(cmd.config);
    }
    case "node": {
      const { nodeMode } = await import("./cluster/node_mode.ts");
      return await nodeMode(cmd.config, cmd.rest);
    }
    default:
      console.error(`remcp ${cmd.mode} is not available in this version yet`);
      return 2;
  }
}

/** Whether this module runs as a sandbox thread's entry (sandbox_thread.ts), not as the program. */
function isSandboxThread(): boolean {
  return "WorkerGlobalScope" in globalThis &&
    (globalThis as { name?: unknown }).name === SANDBOX_THREAD_NAME;
}

if (import.meta.main) {
  if (isSandboxThread()) await import("./sandbox/sandbox_thread_main.ts");
  else Deno.exit(await main(Deno.args));
}
