/**
 * How remcp re-launches itself for a subcommand (worker, sandbox, daemon): the compiled
 * executable runs itself; from source, a bundle or a URL, the running Deno runs the main module
 * again with the flags that module needs. Nothing spawns `deno` by name.
 */
import { fileURLToPath } from "node:url";
import { sandboxBundlePath } from "./sandbox/sandbox_bundle.ts";

/** A program and its arguments, ready for `Deno.Command`. */
export interface SelfCommand {
  command: string;
  args: string[];
}

/** What {@link selfCommand} looks at; tests pass their own. */
export interface SelfLaunch {
  /** `Deno.build.standalone`: running as a `deno compile` executable. */
  standalone: boolean;
  /** `Deno.execPath()`: the executable running now (deno, or the compiled remcp). */
  execPath: string;
  /** The URL of the program's entry module, see {@link mainModuleUrl}. */
  main: string;
  /** Whether a local file exists (for the checkout's deno.json). */
  exists(path: string): boolean;
  /** A bundle's file holding the sandbox alone (sandbox/sandbox_bundle.ts), if it carries one. */
  sandboxBundle?: () => string | undefined;
}

/** The running process, as {@link selfCommand} sees it by default. */
export function currentLaunch(): SelfLaunch {
  return {
    standalone: Deno.build.standalone,
    execPath: Deno.execPath(),
    main: mainModuleUrl(),
    sandboxBundle: sandboxBundlePath,
    exists(path) {
      try {
        Deno.statSync(path);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The URL of the program's entry module (src/main.ts, or the bundle when bundled). */
export function mainModuleUrl(): string {
  return Deno.mainModule.endsWith("/src/main.ts") || Deno.mainModule.endsWith(".js")
    ? Deno.mainModule
    : new URL("./main.ts", import.meta.url).href;
}

/**
 * Deno.serve's request.signal aborts only when the client goes away, not after every response
 * (the legacy behaviour, which prints a warning on first use). deno.json asks for it too.
 */
const NO_LEGACY_ABORT = "--unstable-no-legacy-abort";
/** Sandbox threads are Web Workers started without permissions (sandbox/sandbox_thread.ts). */
const WORKER_OPTIONS = "--unstable-worker-options";

/** The command that runs `remcp <subcommand> ...args` with this same program. */
export function selfCommand(
  subcommand: string,
  args: readonly string[] = [],
  launch: SelfLaunch = currentLaunch(),
): SelfCommand {
  if (launch.standalone) {
    return { command: launch.execPath, args: [subcommand, ...args] };
  }
  // A bundle starts its sandboxes from the sandbox's own bundle: a fraction of the whole's start
  // and memory. Like the whole bundle, it needs no config.
  const alone = subcommand === "sandbox" ? launch.sandboxBundle?.() : undefined;
  if (alone !== undefined) {
    return {
      command: launch.execPath,
      args: ["run", "-A", "--quiet", "--no-prompt", "--no-config", alone, subcommand, ...args],
    };
  }
  return {
    command: launch.execPath,
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-prompt",
      ...runFlags(launch),
      launch.main,
      subcommand,
      ...args,
    ],
  };
}

/**
 * The `deno run` flags the main module needs, derived from where it lives (Deno does not tell a
 * program the flags it was started with):
 * - a checkout's src/main.ts: its deno.json (imports, unstable raw-imports), whatever the cwd;
 * - a bundle: nothing, and no config a child's cwd might hold;
 * - src/main.ts from a URL: the import map served beside it (bare specifiers do not resolve in
 *   remote modules otherwise) and raw imports (deno.json is not read for remote modules).
 * Without deno.json, the daemon's HTTP server also needs {@link NO_LEGACY_ABORT}, and sandbox
 * threads {@link WORKER_OPTIONS}.
 */
function runFlags(launch: SelfLaunch): string[] {
  const { main } = launch;
  const isSource = main.endsWith("/src/main.ts");
  if (main.startsWith("file:")) {
    if (!isSource) return ["--no-config", NO_LEGACY_ABORT, WORKER_OPTIONS];
    const config = fileURLToPath(new URL("../deno.json", main));
    return launch.exists(config) ? ["--config", config] : [NO_LEGACY_ABORT, WORKER_OPTIONS];
  }
  if (!isSource) return ["--no-config", NO_LEGACY_ABORT, WORKER_OPTIONS];
  return [
    "--no-config",
    NO_LEGACY_ABORT,
    WORKER_OPTIONS,
    "--unstable-raw-imports",
    "--import-map",
    new URL("../import_map.json", main).href,
  ];
}
