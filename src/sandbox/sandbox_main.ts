/**
 * The sandbox process (`remcp sandbox [--connect PATH]`): runs `execute` scripts in QuickJS for a
 * parent {@link SandboxPool}, speaking the line protocol of protocol.ts over the parent's Unix
 * socket at PATH, or on stdin/stdout without one.
 *
 * Start-up order matters: the socket is connected and the engine (and every module it loads
 * lazily) loaded first, then every Deno permission is revoked, and only then is `ready` sent and a
 * script run. The process is started with `-A`; a script that escaped QuickJS would still find no
 * file, network, environment, subprocess or FFI access, and no way to open another connection:
 * the one socket it holds leads to the parent, which reads protocol lines from it as it would from
 * the process's stdout.
 */
import { batchLines, connLines, readLines } from "./lines.ts";
import { SandboxSession } from "./sandbox_session.ts";
import { LaneHub } from "./lane_hub.ts";

/**
 * `import` (remote module loading) is a runtime permission that Deno's type declarations do not
 * list yet, hence the untyped construction.
 */
const IMPORT_PERMISSION: Deno.PermissionDescriptor = JSON.parse('{"name":"import"}');

/** Every permission the process gives up before it runs a script. */
const DROPPED_PERMISSIONS: readonly Deno.PermissionDescriptor[] = [
  { name: "read" },
  { name: "write" },
  { name: "net" },
  { name: "env" },
  { name: "run" },
  { name: "ffi" },
  { name: "sys" },
  IMPORT_PERMISSION,
];

/** Runs the sandbox process until the parent's socket (or stdin) closes. */
export async function sandboxMain(args: readonly string[] = []): Promise<void> {
  keepStdoutForProtocol();
  const started = performance.now();
  const values = sandboxFlags(args);
  const link = await parentLink(values.connect);
  // The lane socket is opened now: after the permissions are dropped nothing can be opened, but
  // a listener still accepts (src/sandbox/lane_hub.ts).
  const lanes = values.lanes === undefined
    ? undefined
    : new LaneHub(Deno.listen({ transport: "unix", path: values.lanes }));
  const { SandboxEngine } = await import("./quickjs.ts");
  const engine = await SandboxEngine.load();
  dropPermissions();
  const session = new SandboxSession(engine, link.writeLine, lanes);
  link.writeLine(
    JSON.stringify({ type: "ready", pid: Deno.pid, loadMs: performance.now() - started }),
  );
  for await (const line of link.lines) session.receive(line);
}

/**
 * `--connect PATH` and `--lanes PATH` (or `--flag=PATH`), each at most once; anything else is an
 * error. By hand, not node:util's parseArgs: the first `node:` module sets up Deno's Node.js
 * compatibility, ~4 MB of an idle sandbox process's resident memory (bench/sandbox_start.ts).
 */
export function sandboxFlags(args: readonly string[]): { connect?: string; lanes?: string } {
  const values: { connect?: string; lanes?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (name !== "--connect" && name !== "--lanes") {
      throw new Error(
        `remcp sandbox: unknown argument ${
          JSON.stringify(arg)
        }; it takes --connect PATH and --lanes PATH`,
      );
    }
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    const key = name === "--connect" ? "connect" : "lanes";
    if (value === undefined || value === "") {
      throw new Error(`remcp sandbox: ${name} needs a path`);
    }
    if (values[key] !== undefined) throw new Error(`remcp sandbox: ${name} given twice`);
    values[key] = value;
  }
  return values;
}

/** How the process talks to its parent: the lines it receives, and how it sends one. */
interface ParentLink {
  lines: AsyncIterable<string>;
  writeLine: (line: string) => void;
}

/**
 * Connects to the parent's socket (`--connect PATH`), or uses stdin and stdout. Call it before
 * {@link dropPermissions}: connecting needs permissions, and nothing can connect afterwards.
 */
export async function parentLink(connect: string | undefined): Promise<ParentLink> {
  if (connect === undefined) {
    return { lines: readLines(Deno.stdin.readable), writeLine: stdoutLines() };
  }
  const conn = await Deno.connect({ transport: "unix", path: connect });
  return { lines: readLines(conn), writeLine: connLines(conn) };
}

/** Revokes every permission, and refuses to go on if one is still granted. */
export function dropPermissions(): void {
  for (const descriptor of DROPPED_PERMISSIONS) {
    Deno.permissions.revokeSync(descriptor);
    if (Deno.permissions.querySync(descriptor).state === "granted") {
      throw new Error(`Sandbox process could not drop the ${descriptor.name} permission`);
    }
  }
}

/** Nothing but protocol lines may reach stdout: route stray console output to stderr. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/** A writer of protocol lines to stdout, a burst at a time (see batchLines). */
function stdoutLines(): (line: string) => void {
  const encoder = new TextEncoder();
  return batchLines((lines) => {
    const bytes = encoder.encode(lines + "\n");
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  });
}
