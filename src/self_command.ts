/**
 * How remcp re-launches itself for a subcommand (worker, sandbox, daemon): the compiled
 * executable runs itself; from source or a bundle, the running Deno runs the main module again.
 * Nothing spawns `deno` by name.
 */

/** A program and its arguments, ready for `Deno.Command`. */
export interface SelfCommand {
  command: string;
  args: string[];
}

/** The URL of the program's entry module (src/main.ts, or the bundle when bundled). */
export function mainModuleUrl(): string {
  return Deno.mainModule.endsWith("/src/main.ts") || Deno.mainModule.endsWith(".js")
    ? Deno.mainModule
    : new URL("./main.ts", import.meta.url).href;
}

/** The command that runs `remcp <subcommand> ...args` with this same program. */
export function selfCommand(subcommand: string, args: readonly string[] = []): SelfCommand {
  if (Deno.build.standalone) {
    return { command: Deno.execPath(), args: [subcommand, ...args] };
  }
  const main = mainModuleUrl();
  const config = configFlag(main);
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", "--no-prompt", ...config, main, subcommand, ...args],
  };
}

/** From a source checkout, pin the project's deno.json so a child's cwd does not matter. */
function configFlag(main: string): string[] {
  if (!main.startsWith("file:") || !main.endsWith("/src/main.ts")) return [];
  const config = new URL("../deno.json", main);
  try {
    Deno.statSync(config);
    return ["--config", config.pathname];
  } catch {
    return [];
  }
}
