/**
 * remcp entry: parses the command line and dispatches a mode. Importing this module does nothing;
 * `main()` runs only when it is the program.
 */
import { sandboxMain } from "./sandbox/sandbox_main.ts";

/** Runs remcp with `args` (without the program name). */
export async function main(args: string[]): Promise<number> {
  const [mode, ...rest] = args;
  switch (mode) {
    case "sandbox":
      await sandboxMain();
      return 0;
    default:
      void rest;
      return 0;
  }
}

if (import.meta.main) {
  const code = await main(Deno.args);
  Deno.exit(code);
}
