/**
 * The entry of the sandbox's own bundle (src/bundle_main.ts, src/sandbox/sandbox_bundle.ts):
 * `deno run -A remcp-sandbox-….js sandbox [flags]` runs one sandbox process, as
 * `remcp sandbox [flags]` does.
 */
import { sandboxMain } from "./sandbox_main.ts";

if (import.meta.main) {
  await sandboxMain(Deno.args[0] === "sandbox" ? Deno.args.slice(1) : Deno.args);
  Deno.exit(0);
}
