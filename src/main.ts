/**
 * remcp entry: parses the command line and dispatches a mode. Importing this module does nothing;
 * `main()` runs only when it is the program.
 */
import { parseCommandLine } from "./cli.ts";
import { proxyMode } from "./daemon/proxy.ts";
import { serveMode } from "./daemon/serve.ts";
import { stopMode } from "./daemon/stop.ts";
import { sandboxMain } from "./sandbox/sandbox_main.ts";
import { stdioMode } from "./stdio_mode.ts";
import { runMode } from "./run/run_mode.ts";
import { workerMain } from "../workers/worker_main.ts";

/** Runs remcp with `args` (without the program name); resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
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
    case "worker":
      return await workerMain(cmd.rest);
    case "sandbox":
      await sandboxMain();
      return 0;
    case "stdio":
      return await stdioMode(cmd.config);
    case "run":
      return await runMode(cmd.config, cmd.rest);
    case "serve":
      return await serveMode(cmd.config, cmd.rest);
    case "proxy":
      return await proxyMode(cmd.config, cmd.flags);
    case "stop":
      return await stopMode(cmd.config);
    case "node": {
      const { nodeMode } = await import("./cluster/node_mode.ts");
      return await nodeMode(cmd.config, cmd.rest);
    }
    default:
      console.error(`remcp ${cmd.mode} is not available in this version yet`);
      return 2;
  }
}

if (import.meta.main) {
  const code = await main(Deno.args);
  Deno.exit(code);
}
