/**
 * Command-line modes and flags (node:util parseArgs) → the mode to run and its configuration.
 */
import { parseArgs } from "node:util";
import { type Config, ENV_VARS, loadConfig, sandboxKind, VERSION } from "./config.ts";
import { NATS_HELP } from "./cluster/flags.ts";

/** The modes remcp runs in. */
export const MODES = [
  "stdio",
  "serve",
  "proxy",
  "stop",
  "run",
  "node",
  "worker",
  "sandbox",
] as const;
/** The modes a person types (the others are started by remcp itself). */
const PUBLIC_MODES = ["stdio", "serve", "proxy", "stop", "run", "node"] as const;
/** One of {@link MODES}. */
export type Mode = typeof MODES[number];

/** A parsed command line. */
export type Command =
  | { kind: "help"; text: string }
  | { kind: "version"; text: string }
  | { kind: "error"; text: string }
  | { kind: "mode"; mode: Mode; config: Config; rest: string[]; flags: Record<string, unknown> };

/** The `--help` text: modes, flags and every REMCP_* variable with its default. */
export function helpText(): string {
  const vars = ENV_VARS.map((v) => `  ${v.name.padEnd(24)} ${v.help} (default: ${v.default})`);
  return [
    `remcp ${VERSION} — reverse-engineering MCP server`,
    "",
    "Usage: remcp [MODE] [FLAGS]",
    "",
    "Modes:",
    "  stdio (default)   serve MCP over stdin/stdout",
    "  serve             run the daemon: streamable HTTP MCP on 127.0.0.1",
    "  proxy             bridge stdio to the daemon, starting one if needed",
    "  stop              stop the running daemon",
    "  run SCRIPT FILES  run an execute script over files from the shell",
    "  node --nats URL   a worker host of a cluster: runs `remcp run --nats` jobs",
    "  worker            (internal) one database's worker",
    "  sandbox           (internal) a script sandbox process",
    "",
    "Flags:",
    "  --allow-write     reserved for tools that write the file (none exists yet)",
    "  --allow-scripts   enable raw engine commands and scripts",
    "  --backend NAME    default backend (embedded, rizin, ghidra, ida, binja)",
    "  --rizin PATH      rizin binary",
    "  --tools-dir DIR   load script tools from DIR (define_tool persists there)",
    "  --root DIR        open_database opens only files under DIR (after symlinks)",
    "  --sandbox KIND    where execute runs: process (default) or thread",
    "  -h, --help        this text",
    "  -V, --version     print the version",
    "",
    "serve flags:",
    "  --host H          address to listen on (default 127.0.0.1; others need --allow-remote)",
    "  --port N          port (default 0: any free port; the state file records it)",
    "  --idle-timeout S  exit after S idle seconds (auto-started daemons: REMCP_IDLE_TIMEOUT)",
    "  --allow-remote    allow a non-loopback --host (prints a warning)",
    "  --connection-timeout S  close a connection silent for S seconds (default 30)",
    "",
    "run flags: remcp run SCRIPT.js [FILES…] | remcp run -e CODE [FILES…]",
    "  --jobs N          files in parallel (default: CPUs)   --timeout S   per file (600)",
    "  --json | --ndjson output form (several files: NDJSON)  --quiet       no progress",
    "  --pair            files two at a time (OLD NEW …): the script gets globals a and b",
    "",
    "cluster flags: remcp run --nats URL SCRIPT.js FILES… | remcp node --nats URL",
    "  run:  --max-deliveries N  poison job after N deliveries (3)  --import-annotations",
    "  node: --jobs N (1)  --cache DIR  --lease S (30)  --drain S (25)",
    ...NATS_HELP,
    "",
    "Environment:",
    ...vars,
  ].join("\n");
}

/** Parses `argv` (without the program name). */
export function parseCommandLine(argv: string[], env: Record<string, string | undefined>): Command {
  const first = argv[0];
  const isMode = first !== undefined && (MODES as readonly string[]).includes(first);
  const mode: Mode = isMode ? first as Mode : "stdio";
  const rest = isMode ? argv.slice(1) : argv;
  if (mode === "worker" || mode === "sandbox") {
    return { kind: "mode", mode, config: loadConfig(env), rest, flags: {} };
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: {
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
        "allow-write": { type: "boolean" },
        "allow-scripts": { type: "boolean" },
        backend: { type: "string" },
        rizin: { type: "string" },
        "tools-dir": { type: "string" },
        root: { type: "string" },
        sandbox: { type: "string" },
      },
      allowPositionals: true,
      strict: mode !== "run" && mode !== "node" && mode !== "serve" && mode !== "proxy" &&
        mode !== "stop",
    });
  } catch (err) {
    return { kind: "error", text: `${(err as Error).message}\n\n${helpText()}` };
  }
  const v = parsed.values;
  if (v.help) return { kind: "help", text: helpText() };
  // The stdio server takes no words: a word there is a mistyped or unknown mode, and starting a
  // server that waits silently on stdin would hide the mistake.
  const stray = mode === "stdio" ? parsed.positionals[0] : undefined;
  if (stray !== undefined) {
    return {
      kind: "error",
      text: `Unknown mode "${stray}": the modes are ${
        PUBLIC_MODES.join(", ")
      } (stdio when none is given); remcp --help describes them`,
    };
  }
  if (v.version) return { kind: "version", text: `remcp ${VERSION}` };
  let config: Config;
  try {
    config = loadConfig(env, {
      ...(v["allow-write"] ? { allowWrite: true } : {}),
      ...(v["allow-scripts"] ? { allowScripts: true } : {}),
      ...(typeof v.backend === "string" ? { defaultBackend: v.backend } : {}),
      ...(typeof v.rizin === "string" ? { rizinPath: v.rizin } : {}),
      ...(typeof v["tools-dir"] === "string" ? { toolsDir: v["tools-dir"] } : {}),
      ...(typeof v.root === "string" ? { root: v.root } : {}),
      ...(typeof v.sandbox === "string" ? { sandbox: sandboxKind(v.sandbox, "--sandbox") } : {}),
    });
  } catch (err) {
    return { kind: "error", text: (err as Error).message };
  }
  return { kind: "mode", mode, config, rest, flags: v };
}
